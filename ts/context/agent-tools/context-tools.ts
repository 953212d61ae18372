// The two tools an agent steers its context with, as every adapter declares them (one name, one
// description the model reads, one JSON schema each), as plain definitions for any other
// framework (contextToolDefinitions), and the one executor they all call (runContextTool), which
// answers bad input with a coded line instead of throwing inside the agent's loop, as recall does.
//
// The target is anything with status(), requestCompaction() and a counter: a
// MessageContextManager, or an adapter's PromptFitter (contextMiddleware(...).fitter,
// ContextProcessor.fitter, ...): contextToolTarget() takes either, or an object holding a fitter.
import { describe, isCtxwinError, typeError } from "../../runtime/errors.js";
import type { FunctionDefinition, ToolDefinition } from "../../messages/types.js";
import type { CompactionPreview } from "../compaction-preview.js";
import { statusText, type ContextStatus } from "./context-status.js";
import type { TokenCounter } from "../../tokens/token-counter.js";
import { bounded } from "./notices.js";
import { idList } from "./compaction-log.js";

/** compact_context's input: why, and what must survive (recall ids kept verbatim, or a text carried). */
export interface CompactionRequest {
  reason: string;
  /** Ids to keep verbatim (the ids placeholders and context_status name), or a text the context must carry after it. */
  keep?: string | string[];
}

/** What requestCompaction answers: queued, not done; the preview says what the compaction will take. */
export interface CompactionRequestAnswer {
  queued: true;
  reason: string;
  /** The ids of `keep` found in the context: kept verbatim. */
  keep: string[];
  /** Entries of `keep` that name no message of the context: carried as text, with the text given. */
  text?: string;
  /** What the compaction would do if it ran now (the next request may add to it). */
  preview: CompactionPreview;
}

/** What the tools act on. */
export interface ContextToolTarget {
  status(): ContextStatus;
  /** The counter context_status's bound is counted with. */
  readonly counter: TokenCounter;
  requestCompaction(request: CompactionRequest): Promise<CompactionRequestAnswer>;
}

export const CONTEXT_STATUS_TOOL = {
  name: "context_status",
  description:
    "How full your context window is: tokens used and free, the share of the system prompt, the task, summaries, tool results and messages, " +
    "every compaction so far with the recall ids of what it took, and the session's cost where known. Takes no arguments.",
} as const;

export const COMPACT_CONTEXT_TOOL = {
  name: "compact_context",
  description:
    "Ask for a compaction of your context before the next request (never in the middle of a step): old tool results are cleared and old turns " +
    "summarized or dropped, each readable again with recall(id). Use it when a phase of the work is over and its logs are noise. " +
    "Give the reason, and in keep the ids that must stay verbatim (the tool call ids) or a text that must survive (a finding, a plan). " +
    "It answers with what the compaction will take; it has not happened yet when it answers.",
} as const;

/** context_status's input: nothing (a JSON schema, draft 7). */
export const contextStatusInputSchema = { type: "object", properties: {}, additionalProperties: false } as const;

/** compact_context's input, as a JSON schema (draft 7). */
export const compactContextInputSchema = {
  type: "object",
  properties: {
    reason: { type: "string", description: "Why now: the phase that ended, what is noise." },
    keep: {
      anyOf: [
        { type: "array", items: { type: "string" }, description: "Ids (tool call ids) whose messages stay verbatim." },
        { type: "string", description: "A text the context must still carry after the compaction." },
      ],
    },
  },
  required: ["reason"],
  additionalProperties: false,
} as const;

/** Both tools, name, description and input schema each: what the adapters wrap. */
export const CONTEXT_TOOLS: ReadonlyArray<{ name: string; description: string; schema: object }> = [
  { ...CONTEXT_STATUS_TOOL, schema: contextStatusInputSchema },
  { ...COMPACT_CONTEXT_TOOL, schema: compactContextInputSchema },
];

/** Both tools as plain function definitions (the OpenAI chat shape), for any framework: run them with runContextTool. */
export function contextToolDefinitions(): ToolDefinition[] {
  return [
    {
      type: "function",
      function: { ...CONTEXT_STATUS_TOOL, parameters: structuredClone(contextStatusInputSchema) as FunctionDefinition["parameters"] },
    },
    {
      type: "function",
      function: {
        ...COMPACT_CONTEXT_TOOL,
        parameters: structuredClone(compactContextInputSchema) as unknown as FunctionDefinition["parameters"],
      },
    },
  ];
}

function isTarget(value: unknown): value is ContextToolTarget {
  const v = value as Partial<ContextToolTarget> | null;
  return typeof v === "object" && v !== null && typeof v.status === "function" && typeof v.requestCompaction === "function";
}

/** The target of the tools: a manager or fitter itself, or an adapter object holding a `fitter` (`source` checked, a TypeError naming it). */
export function contextToolTarget(source: unknown, name = "source"): ContextToolTarget {
  if (isTarget(source)) return source;
  // An adapter object may be a function (contextInputFilter's filter) holding its fitter.
  const fitter =
    (typeof source === "object" && source !== null) || typeof source === "function" ? (source as { fitter?: unknown }).fitter : undefined;
  if (isTarget(fitter)) return fitter;
  throw typeError(`${name} must be a MessageContextManager, a PromptFitter or an adapter holding one (.fitter), got ${describe(source)}`);
}

/** The answer to compact_context as the model reads it. */
export function compactionAnswerText(answer: CompactionRequestAnswer): string {
  const p = answer.preview;
  const count = (action: string) => p.units.filter((u) => u.action === action).length;
  const taken = p.units.map((u) => u.id);
  const what = [
    count("summarize") > 0 ? `summarize ${count("summarize")} messages` : "",
    count("clear") > 0 ? `clear ${count("clear")} tool results` : "",
    count("cut") + count("clear_reasoning") > 0 ? `cut ${count("cut") + count("clear_reasoning")} results or reasoning` : "",
    count("drop") > 0 ? `drop ${count("drop")} messages` : "",
  ].filter((s) => s !== "");
  return bounded(
    `Queued, not done yet: a compaction runs before your next request (${answer.reason.slice(0, 80)}). ` +
      (what.length === 0
        ? "As the context is now it would take nothing. "
        : `As the context is now it would ${what.join(", ")}: ${p.tokensBefore} -> about ${p.tokensAfter} tokens; recall ids ${idList([...new Set(taken)])}. `) +
      (answer.keep.length > 0 ? `Kept verbatim: ${idList(answer.keep)}. ` : "") +
      (answer.text === undefined ? "" : `Carried as a note: "${answer.text.slice(0, 160)}".`),
    1200,
  );
}

/**
 * Runs one of the tools by name for `target`: the text the model reads. Bad input (an unknown
 * tool, a reason that is not a string, ...) is answered as `[context_tool CODE: message]`.
 */
export async function runContextTool(target: ContextToolTarget, name: string, input: unknown): Promise<string> {
  try {
    if (name === CONTEXT_STATUS_TOOL.name) return statusText(target.status(), target.counter);
    if (name === COMPACT_CONTEXT_TOOL.name) return compactionAnswerText(await target.requestCompaction(input as CompactionRequest));
    throw typeError(`name must be "context_status" or "compact_context", got ${describe(name)}`);
  } catch (error) {
    const code = isCtxwinError(error) ? error.code : "ERR_CTXWIN_INTERNAL";
    return `[${name} ${code}: ${error instanceof Error ? error.message : String(error)}]`;
  }
}
