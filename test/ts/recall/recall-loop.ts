// The script every framework's recall test plays: a model reads READS files (call_1 ...), by
// then the first result has been cleared from its prompt, so it calls recall("call_1") and
// answers only when the result it gets back is the original, byte for byte. Every request is
// checked: the calls so far in order, and each result whole, cut by level 1, or a placeholder that
// names its id and the recall call that reads it.
import { expect } from "vitest";
import { getCounter, type ToolDefinition } from "ctxwin";
import { FINAL, MODEL, RESERVED_OUTPUT, WINDOW, expectStepsSoFar, toolOutput } from "../support/tool-loop.js";

export const READS = 12;
export const RECALL_CALL_ID = "recall_1";
export { FINAL };

export type Move =
  | { kind: "read"; step: number; callId: string }
  | { kind: "recall"; callId: string; id: string }
  | { kind: "final"; text: string };

/** Checks model call `call` (1-based) against the results it holds (call id to text, in order) and says what the model does next. */
export function nextMove(call: number, results: ReadonlyMap<string, string>, callIds: readonly string[]): Move {
  expectStepsSoFar(
    callIds.filter((id) => id !== RECALL_CALL_ID),
    Math.min(call, READS + 1),
  );
  for (const [id, text] of results) {
    if (id === RECALL_CALL_ID) continue;
    const step = Number(/^call_(\d+)$/.exec(id)?.[1]);
    const whole = text === toolOutput(step);
    const cut = text.includes(`[Output truncated...; recall("${id}")]`);
    const cleared = text.startsWith(`[tool result cleared: `) && text.includes(`; recall("${id}")]`);
    expect(whole || cut || cleared, `result of ${id} at call ${call}: ${text.slice(0, 120)}`).toBe(true);
  }
  if (call <= READS) return { kind: "read", step: call, callId: `call_${call}` };
  if (call === READS + 1) {
    expect(results.get("call_1")).toMatch(/^\[tool result cleared: [\d.]+ (KB|B); recall\("call_1"\)\]/);
    return { kind: "recall", callId: RECALL_CALL_ID, id: "call_1" };
  }
  expect(call).toBe(READS + 2);
  expect(results.get(RECALL_CALL_ID)).toBe(toolOutput(1));
  return { kind: "final", text: FINAL };
}

/** A message of a provider prompt (the AI SDK's LanguageModelV3 / V4 prompt, which Mastra sends too), as far as the checks read it. */
export interface ProviderMessage {
  role: string;
  content: unknown;
}
type ProviderPart = { type: string; toolCallId?: string; output?: { type: string; value: unknown } };

const counter = getCounter(MODEL);

/**
 * Checks a request in the provider prompt shape, before nextMove reads it: with its tools and the
 * reserved output it fits the window, every tool result follows its call (no orphan), and every
 * call is answered in the message right after it. Returns the results (call id to text, in order)
 * and the call ids, as nextMove takes them.
 */
export function readProviderPrompt(
  prompt: readonly ProviderMessage[],
  tools: ToolDefinition[],
): { results: Map<string, string>; callIds: string[] } {
  expect(counter.countMessages(prompt as never, { tools }) + RESERVED_OUTPUT).toBeLessThanOrEqual(WINDOW);
  const results = new Map<string, string>();
  const callIds: string[] = [];
  prompt.forEach((message, i) => {
    const parts = (Array.isArray(message.content) ? message.content : []) as ProviderPart[];
    for (const part of parts) {
      if (part.type === "tool-call") callIds.push(part.toolCallId as string);
      if (part.type !== "tool-result") continue;
      expect(callIds, `result ${String(part.toolCallId)} without its call`).toContain(part.toolCallId);
      expect(part.output?.type).toBe("text");
      results.set(part.toolCallId as string, String(part.output?.value));
    }
    const calls = parts.flatMap((p) => (p.type === "tool-call" ? [p.toolCallId] : []));
    if (message.role !== "assistant" || calls.length === 0) return;
    const next = prompt[i + 1];
    const answered =
      next?.role === "tool" && Array.isArray(next.content)
        ? (next.content as ProviderPart[]).flatMap((p) => (p.type === "tool-result" ? [p.toolCallId] : []))
        : [];
    expect(answered, `the calls of message ${i} are not answered right after it`).toEqual(calls);
  });
  return { results, callIds };
}

/** What a scripted AI SDK model (LanguageModelV3 / V4, which Mastra drives too) returns for `move`. */
export function providerResult<U>(move: Move, usage: U) {
  if (move.kind === "final")
    return {
      content: [{ type: "text" as const, text: move.text }],
      finishReason: { unified: "stop" as const, raw: undefined },
      usage,
      warnings: [],
    };
  const input = move.kind === "read" ? { path: `src/module${move.step}.ts`, step: move.step } : { id: move.id };
  return {
    content: [
      {
        type: "tool-call" as const,
        toolCallId: move.callId,
        toolName: move.kind === "read" ? "read_file" : "recall",
        input: JSON.stringify(input),
      },
    ],
    finishReason: { unified: "tool-calls" as const, raw: undefined },
    usage,
    warnings: [],
  };
}
