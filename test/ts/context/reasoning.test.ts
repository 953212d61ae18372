// Issue 14: reasoning stays with the tool calls of its assistant turn in every strategy (AI SDK
// reasoning parts, Anthropic thinking / redacted_thinking blocks, OpenAI Responses reasoning
// items), and clearing old reasoning is a compaction level of its own. Properties over random
// conversations, checked through the public API.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ContextLimits, MessageContextManager, TiktokenCounter, TruncationMode, type MessageLike } from "ctxwin";
import {
  CompositeStrategy,
  SelectiveTruncationStrategy,
  SlidingWindowStrategy,
  SmartTruncationStrategy,
  TokenBudgetStrategy,
  type TruncationStrategy,
} from "ctxwin/truncation";
import { hasReasoning } from "../../../ts/messages/reasoning.js";

const counter = new TiktokenCounter({ model: "gpt-4o" });
type Shape = "ai-sdk" | "anthropic" | "responses";
type Item = MessageLike & Record<string, unknown>;

interface Step {
  reasoning: boolean;
  redacted: boolean;
  calls: number;
  words: number;
}
interface Turn {
  words: number;
  steps: Step[];
}

const step: fc.Arbitrary<Step> = fc.record({
  reasoning: fc.boolean(),
  redacted: fc.boolean(),
  calls: fc.integer({ min: 0, max: 3 }),
  words: fc.integer({ min: 1, max: 60 }),
});
const turns = fc.array(fc.record({ words: fc.integer({ min: 1, max: 40 }), steps: fc.array(step, { minLength: 1, maxLength: 3 }) }), {
  minLength: 1,
  maxLength: 12,
});

/** A conversation in one shape; every step with calls is answered by its results. */
function build(shape: Shape, conversation: Turn[]): Item[] {
  const out: Item[] = [];
  let id = 0;
  const words = (n: number, w: string) => `${w} `.repeat(n).trim();
  for (const turn of conversation) {
    out.push(
      shape === "anthropic"
        ? { role: "user", content: [{ type: "text", text: words(turn.words, "ask") }] }
        : { role: "user", content: words(turn.words, "ask") },
    );
    for (const s of turn.steps) {
      const ids = Array.from({ length: s.calls }, () => `call_${id++}`);
      const thought = words(s.words, "think");
      if (shape === "ai-sdk") {
        out.push({
          role: "assistant",
          content: [
            ...(s.reasoning ? [{ type: "reasoning", text: thought }] : []),
            { type: "text", text: "ok" },
            ...ids.map((c) => ({ type: "tool-call", toolCallId: c, toolName: "read", input: { path: `${c}.ts` } })),
          ],
        });
        if (ids.length > 0)
          out.push({
            role: "tool",
            content: ids.map((c) => ({
              type: "tool-result",
              toolCallId: c,
              toolName: "read",
              output: { type: "text", value: words(s.words, "data") },
            })),
          });
      } else if (shape === "anthropic") {
        const thinking = s.reasoning
          ? [
              s.redacted
                ? { type: "redacted_thinking", data: "EncRypTed".repeat(s.words) }
                : { type: "thinking", thinking: thought, signature: "sig" },
            ]
          : [];
        out.push({
          role: "assistant",
          content: [
            ...thinking,
            { type: "text", text: "ok" },
            ...ids.map((c) => ({ type: "tool_use", id: c, name: "read", input: { path: `${c}.ts` } })),
          ],
        });
        if (ids.length > 0)
          out.push({ role: "user", content: ids.map((c) => ({ type: "tool_result", tool_use_id: c, content: words(s.words, "data") })) });
      } else {
        if (s.reasoning)
          out.push({ type: "reasoning", id: `rs_${id++}`, summary: [{ type: "summary_text", text: thought }] } as unknown as Item);
        if (ids.length === 0) out.push({ role: "assistant", content: "ok" });
        for (const c of ids)
          out.push({ type: "function_call", call_id: c, name: "read", arguments: `{"path":"${c}.ts"}` } as unknown as Item);
        for (const c of ids) out.push({ type: "function_call_output", call_id: c, output: words(s.words, "data") } as unknown as Item);
      }
    }
  }
  return out;
}

/** The ids of the tool calls and results an item holds. */
function callsOf(m: Item): { calls: string[]; results: string[] } {
  const calls: string[] = [];
  const results: string[] = [];
  if (m.type === "function_call") calls.push(m.call_id as string);
  if (m.type === "function_call_output") results.push(m.call_id as string);
  if (Array.isArray(m.content)) {
    for (const p of m.content as Array<Record<string, unknown>>) {
      if (p.type === "tool-call") calls.push(p.toolCallId as string);
      if (p.type === "tool_use") calls.push(p.id as string);
      if (p.type === "tool-result") results.push(p.toolCallId as string);
      if (p.type === "tool_result") results.push(p.tool_use_id as string);
    }
  }
  return { calls, results };
}

/** Reasoning stays with its turn's calls; calls and results stay together; order is kept. */
function checkKept(original: readonly Item[], kept: readonly Item[]): void {
  const index = new Map(original.map((m, i) => [m, i]));
  // SmartTruncationStrategy's "[N messages omitted]" marker is the one message of its own.
  kept = kept.filter((m) => !(index.get(m) === undefined && typeof m.content === "string" && /^\[\d+ messages omitted\]$/.test(m.content)));
  const keptSet = new Set(kept);
  let last = -1;
  for (const m of kept) {
    const i = index.get(m);
    expect(i).toBeDefined(); // the caller's own objects, unchanged
    expect(i!).toBeGreaterThan(last);
    last = i!;
  }
  const callHolder = new Map<string, Item>();
  const resultHolder = new Map<string, Item>();
  for (const m of original) {
    const { calls, results } = callsOf(m);
    for (const c of calls) callHolder.set(c, m);
    for (const r of results) resultHolder.set(r, m);
  }
  for (const [id, holder] of callHolder) expect(keptSet.has(holder)).toBe(keptSet.has(resultHolder.get(id)!));
  // An OpenAI reasoning item and the item after it (and the parallel calls after that) go together.
  original.forEach((m, i) => {
    if (m.type !== "reasoning") return;
    const next = original[i + 1];
    if (next && next.role !== "user") expect(keptSet.has(m)).toBe(keptSet.has(next));
    if (next?.type === "function_call") {
      for (let k = i + 2; k < original.length && original[k]!.type === "function_call"; k++)
        expect(keptSet.has(original[k]!)).toBe(keptSet.has(m));
    }
  });
}

const strategies: Array<[string, () => TruncationStrategy]> = [
  ["SlidingWindowStrategy", () => new SlidingWindowStrategy({ windowSize: 6 })],
  ["TokenBudgetStrategy", () => new TokenBudgetStrategy()],
  ["SmartTruncationStrategy", () => new SmartTruncationStrategy({ preserveFirst: 2, preserveLast: 4 })],
  ["SelectiveTruncationStrategy", () => new SelectiveTruncationStrategy()],
  ["CompositeStrategy", () => new CompositeStrategy([new SmartTruncationStrategy(), new TokenBudgetStrategy()])],
];

describe.each(["ai-sdk", "anthropic", "responses"] as const)("reasoning in %s conversations", (shape) => {
  it.each(strategies)("%s keeps reasoning with its turn's tool calls", (_name, make) => {
    fc.assert(
      fc.property(turns, fc.double({ min: 0.05, max: 1, noNaN: true }), (conversation, share) => {
        const messages = build(shape, conversation);
        const total = counter.countMessages(messages);
        const kept = make().truncate(messages, Math.floor(total * share), counter) as Item[];
        checkKept(messages, kept);
      }),
      { numRuns: 60 },
    );
  });

  it("MessageContextManager keeps them together through its trims in every mode", () => {
    fc.assert(
      fc.property(
        turns,
        fc.constantFrom(TruncationMode.SLIDING_WINDOW, TruncationMode.TOKEN_BUDGET, TruncationMode.SMART),
        (conversation, mode) => {
          const messages = build(shape, conversation);
          const removed = new Set<Item>();
          const cm = new MessageContextManager<Item>({
            model: "gpt-4o",
            counter,
            mode,
            logger: { warn: () => {} },
            limits: new ContextLimits({ model: "gpt-4o", maxTokens: 400, maxOutputTokens: 0, reservedTokens: 0 }),
          });
          // The default mode clears old reasoning and results (copies) before it trims, and a trim
          // that cannot fit the newest exchange whole cuts its results: each copy stands for the
          // caller's message it was made from.
          const origin = new Map<Item, Item>();
          const copied = (replaced: Array<{ before: Item; after: Item }>) =>
            replaced.forEach(({ before, after }) => origin.set(after, origin.get(before) ?? before));
          cm.on("trimmed", (t) => {
            t.removed.forEach((m) => removed.add(m));
            copied(t.replaced);
          });
          cm.on("compacted", (report) => copied(report.replaced));
          for (const m of messages) cm.addMessage(m);
          // What the manager holds is what survived every trim: check it against the whole conversation
          // (a result whose call a trim past the window removed is left out when it comes).
          checkKept(
            messages,
            cm.getMessages().map((m) => origin.get(m) ?? m),
          );
          expect(cm.getMessages().length + removed.size).toBeLessThanOrEqual(messages.length);
        },
      ),
      { numRuns: 40 },
    );
  });

  it("leaves out the rest of an exchange that a trim past the window cut into", () => {
    // fast-check's counterexample: the window is exceeded in the middle of a response's parallel
    // calls; the trim removes the reasoning and the calls so far, so the calls still to come and
    // every result of the exchange must stay out too.
    const conversation: Turn[] = [
      { words: 38, steps: [{ reasoning: true, redacted: false, calls: 2, words: 15 }] },
      {
        words: 34,
        steps: [
          { reasoning: true, redacted: false, calls: 1, words: 47 },
          { reasoning: true, redacted: false, calls: 3, words: 51 },
        ],
      },
    ];
    const messages = build(shape, conversation);
    const cm = new MessageContextManager<Item>({
      model: "gpt-4o",
      counter,
      mode: TruncationMode.SMART,
      logger: { warn: () => {} },
      limits: new ContextLimits({ model: "gpt-4o", maxTokens: 400, maxOutputTokens: 0, reservedTokens: 0 }),
    });
    for (const m of messages) cm.addMessage(m);
    checkKept(messages, cm.getMessages());
  });

  it("counts reasoning: a longer thought costs more tokens", () => {
    const short = build(shape, [{ words: 3, steps: [{ reasoning: true, redacted: false, calls: 1, words: 2 }] }]);
    const long = build(shape, [{ words: 3, steps: [{ reasoning: true, redacted: false, calls: 1, words: 200 }] }]);
    expect(counter.countMessages(long) - counter.countMessages(short)).toBeGreaterThan(190);
  });

  it("compaction level 0 clears the reasoning of older turns only, and nothing else", async () => {
    await fc.assert(
      fc.asyncProperty(turns, fc.integer({ min: 0, max: 3 }), async (conversation, keep) => {
        const messages = build(shape, conversation);
        const cm = new MessageContextManager<Item>({
          model: "gpt-4o",
          counter,
          limits: new ContextLimits({ model: "gpt-4o", maxTokens: 10_000_000, maxOutputTokens: 0, reservedTokens: 0 }),
          compaction: {
            autoTruncate: false,
            keepReasoningTurns: keep,
            maxToolResultTokens: 100_000,
            keepToolResults: 1000,
            clearAtLeast: 0,
          },
        });
        cm.load(messages);
        const report = await cm.compactIfNeeded({ threshold: Math.max(1e-6, (cm.tokenUsage - 1) / cm.limits.effectiveLimit) });
        const after = cm.getMessages() as Item[];
        const withReasoning = messages.map((m, i) => (hasReasoning(m) ? i : -1)).filter((i) => i >= 0);
        const cleared = new Set(withReasoning.slice(0, Math.max(0, withReasoning.length - keep)));
        if (report.levels[0]!.applied && report.levels[0]!.messagesChanged > 0) {
          expect(after).toHaveLength(messages.length - report.removed.length);
        }
        // Level 0 changed the older reasoning turns only, oldest first, only as many as the target
        // (1 token below usage) needed; their calls and text are intact.
        const level0 = report.replaced.filter(({ before }) => hasReasoning(before));
        const changed = level0.map(({ before }) => messages.indexOf(before as Item)).sort((a, b) => a - b);
        expect(changed).toEqual([...cleared].slice(0, changed.length));
        if (cleared.size > 0) expect(changed.length).toBeGreaterThan(0);
        for (const { before, after: copy } of level0) {
          expect(hasReasoning(copy)).toBe(false);
          expect(callsOf(copy as Item)).toEqual(callsOf(before as Item));
        }
      }),
      { numRuns: 40 },
    );
  });
});
