// The recall tool as every framework's adapter declares it: one name, one description the model
// reads, one JSON schema of its input, one check of the Recall it answers from. The adapters
// (ctxwin/ai-sdk, ctxwin/langchain, ctxwin/openai-agents, ctxwin/mastra) wrap these in their
// framework's tool type and call Recall.answer, which never throws inside the agent's loop.
import { describe, typeError } from "../runtime/errors.js";
import { Recall } from "./recall.js";

/** `recall`, checked: an adapter's recallTool answers from a Recall and nothing else. */
export function requireRecall(recall: unknown): Recall {
  if (!(recall instanceof Recall)) throw typeError(`recall must be a Recall, got ${describe(recall)}`);
  return recall;
}

export const RECALL_TOOL = {
  name: "recall",
  description:
    "Read again a tool result or message that was cleared, cut or summarized to save context. " +
    'Pass the id its placeholder names (e.g. "[tool result cleared: 48 KB; recall("call_17")]" gives id "call_17"). ' +
    "Without lines or pattern it returns the whole original when it fits; lines [from, to] (1-based, inclusive) returns a range; " +
    "pattern (a JavaScript regular expression) returns the matching lines with their numbers. A long answer is cut and says which lines to ask for next " +
    "(and, inside a line longer than one answer, the column to go on from).",
} as const;

/** The recall tool's input: `{ id, lines?, column?, pattern?, maxTokens? }`, as a JSON schema (draft 7). */
export const recallInputSchema = {
  type: "object",
  properties: {
    id: { type: "string", description: "The id the placeholder or summary names." },
    lines: {
      type: "array",
      items: { type: "integer", minimum: 1 },
      minItems: 2,
      maxItems: 2,
      description: "[from, to]: only these lines, 1-based and inclusive.",
    },
    column: {
      type: "integer",
      minimum: 1,
      description: "With lines: start the first line at this column (1-based), to read on inside a long line.",
    },
    pattern: { type: "string", description: "Only the lines this regular expression matches." },
    maxTokens: { type: "integer", minimum: 1, description: "At most this many tokens (the tool has its own bound too)." },
  },
  required: ["id"],
  additionalProperties: false,
} as const;

/** The recall tool's input as the model sends it. */
export interface RecallInput {
  id: string;
  lines?: [number, number];
  column?: number;
  pattern?: string;
  maxTokens?: number;
}
