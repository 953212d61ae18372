// Properties of a session-backed MessageContextManager: whatever it does (messages with tool
// calls, automatic and explicit trims, compactions, /clear, system prompts, metadata), a manager
// opened on the same session afterwards sees exactly its context; and two workers writing one
// session at once, trimming as they go, converge on one context that keeps every message in the log.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ContextLimits, MemorySessionStore, MessageContextManager, TruncationMode, extractiveSummarizer, type MessageLike } from "ctxwin";

/** The context's stats without the request accounting (getStats().cache), which the view's own getContextForRequest() calls change. */
const contextStats = (cm: MessageContextManager) => {
  const { cache: _cache, ...stats } = cm.getStats();
  return stats;
};

const quiet = { warn: () => {} };
const options = (store: MemorySessionStore, id: string) => ({
  model: "gpt-4o",
  mode: TruncationMode.SUMMARIZE,
  limits: new ContextLimits({ model: "gpt-4o", maxTokens: 900, maxOutputTokens: 0, reservedTokens: 0 }),
  compaction: { summarizer: extractiveSummarizer(), preserveLast: 4, maxToolResultTokens: 60, keepToolResults: 1 },
  logger: quiet,
  session: { store, id },
});
const view = (cm: MessageContextManager) => ({
  request: cm.getContextForRequest(),
  stats: contextStats(cm),
  metadata: cm.metadata,
  exported: cm.export().turns,
});

type Op =
  | { op: "say"; role: "user" | "assistant"; words: number }
  | { op: "tool"; result: number }
  | { op: "trim"; share: number }
  | { op: "compact" }
  | { op: "clear" }
  | { op: "prompt"; text: string }
  | { op: "meta"; value: number };

const ops = fc.array(
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        op: fc.constant("say" as const),
        role: fc.constantFrom("user" as const, "assistant" as const),
        words: fc.integer({ min: 1, max: 40 }),
      }),
    },
    { weight: 2, arbitrary: fc.record({ op: fc.constant("tool" as const), result: fc.integer({ min: 1, max: 200 }) }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant("trim" as const), share: fc.double({ min: 0.1, max: 0.9, noNaN: true }) }) },
    { weight: 1, arbitrary: fc.constant({ op: "compact" as const }) },
    { weight: 1, arbitrary: fc.constant({ op: "clear" as const }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant("prompt" as const), text: fc.string({ maxLength: 30 }) }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant("meta" as const), value: fc.integer() }) },
  ),
  { maxLength: 40 },
);

let calls = 0;
async function apply(cm: MessageContextManager, op: Op, tag: string): Promise<void> {
  switch (op.op) {
    case "say":
      cm.addMessage({ role: op.role, content: `${tag} ${"word ".repeat(op.words)}` });
      break;
    case "tool": {
      const id = `${tag}-call-${calls++}`;
      cm.addMessage({
        role: "assistant",
        content: null,
        tool_calls: [{ id, type: "function", function: { name: "grep", arguments: "{}" } }],
      } as MessageLike);
      cm.addMessage({ role: "tool", tool_call_id: id, content: "match\n".repeat(op.result) });
      break;
    }
    case "trim":
      cm.truncate(Math.floor(cm.tokenUsage * op.share));
      break;
    case "compact":
      await cm.compactIfNeeded({ threshold: 0.3 });
      break;
    case "clear":
      cm.clear();
      break;
    case "prompt":
      cm.setSystemPrompt(op.text);
      break;
    case "meta":
      cm.metadata = { ...cm.metadata, [tag]: op.value };
      break;
  }
}

describe("a session-backed manager (property)", () => {
  it("reopens to exactly the context it had, and the log keeps every message", async () => {
    await fc.assert(
      fc.asyncProperty(ops, async (sequence) => {
        const store = new MemorySessionStore();
        const cm = await MessageContextManager.open(options(store, "s"));
        let added = 0;
        for (const op of sequence) {
          await apply(cm, op, "w");
          if (op.op === "say") added++;
          if (op.op === "tool") added += 2;
        }
        await cm.flush();
        const again = await MessageContextManager.open(options(store, "s"));
        expect(view(again)).toEqual(view(cm));
        const logged = (await store.read("s")).filter((r) => r.entry.type === "message" && r.entry.summary !== true);
        expect(logged).toHaveLength(added);
      }),
      { numRuns: 40 },
    );
  });

  // The property's counterexample (seed -147467892): a run started early, for the summarizer's
  // input alone, found nothing to do while the messages added meanwhile took usage past trimAt;
  // it changed nothing, so the manager did not look again, and left the old result whole where a
  // manager opened on the same log cut it.
  it("compacts what messages added during a compaction took past trimAt, as a reopened manager does", async () => {
    const store = new MemorySessionStore();
    const cm = await MessageContextManager.open(options(store, "s"));
    const compactions: number[] = [];
    cm.on("compacted", (report) => compactions.push(report.tokensBefore));
    const sequence: Op[] = [
      { op: "tool", result: 169 },
      ...[37, 3, 29, 16, 15, 3].map((words) => ({ op: "say" as const, role: "user" as const, words })),
      { op: "tool", result: 99 },
      { op: "say", role: "user", words: 3 },
    ];
    for (const op of sequence) await apply(cm, op, "w");
    await cm.compactIfNeeded({ threshold: 1 }); // joins the run going on, if any
    await cm.flush();
    const request = cm.getContextForRequest();
    // The older result is cut down to its maxToolResultTokens; the newest (keepToolResults: 1) is whole.
    expect(String(request[1]?.content)).toContain("[Output truncated");
    expect(String(request.at(-2)?.content)).toBe("match\n".repeat(99));
    expect(compactions.length).toBeGreaterThanOrEqual(2);
    const again = await MessageContextManager.open(options(store, "s"));
    expect(view(again)).toEqual(view(cm));
  });

  it("two workers writing at once converge: the last to append sees what a new worker opens", async () => {
    await fc.assert(
      fc.asyncProperty(ops, ops, fc.array(fc.boolean(), { maxLength: 40 }), async (first, second, flushes) => {
        const store = new MemorySessionStore();
        const a = await MessageContextManager.open(options(store, "s"));
        const b = await MessageContextManager.open(options(store, "s"));
        for (let i = 0; i < Math.max(first.length, second.length); i++) {
          if (first[i]) await apply(a, first[i] as Op, "a");
          if (second[i]) await apply(b, second[i] as Op, "b");
          if (flushes[i]) await Promise.all([a.flush(), b.flush()]);
        }
        await Promise.all([a.flush(), b.flush()]);
        // One more message from a: if b appended after a, a's append is stale, a re-reads the log.
        a.addMessage({ role: "user", content: "last" });
        await a.flush();
        const c = await MessageContextManager.open(options(store, "s"));
        expect(view(c)).toEqual(view(a));
        // Each worker's messages in the log keep their order.
        const contents = (await store.read("s"))
          .filter((r) => r.entry.type === "message" && r.entry.summary !== true)
          .map((r) => String((r.entry.message as MessageLike).content));
        const said = (seq: Op[]) => seq.filter((o) => o.op === "say").length;
        expect(contents.filter((t) => t.startsWith("a ")).length).toBe(said(first));
        expect(contents.filter((t) => t.startsWith("b ")).length).toBe(said(second));
      }),
      { numRuns: 30 },
    );
  });
});
