// Recall: what compaction cleared, cut, summarized or trimmed, read back by the id its placeholder
// names, from the in-memory cache or from the session's log.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ContextLimits,
  MemorySessionStore,
  MessageContextManager,
  Recall,
  TruncationMode,
  extractiveSummarizer,
  getCounter,
  type MessageLike,
} from "ctxwin";
import { RecallCache } from "ctxwin/recall";

type Msg = MessageLike & {
  tool_calls?: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
};
const quiet = { warn: () => {}, info: () => {}, error: () => {}, debug: () => {} };
const counter = getCounter("gpt-4o");

/**
 * A long tool result whose lines are all different: "row N: ..." with an error line in the middle
 * (of an audit, not a read: what a read prints is content, and its placeholder keeps no lines).
 */
function bigResult(i: number, lines = 400): string {
  return Array.from({ length: lines }, (_, n) =>
    n === 200 ? `Error: checksum mismatch in part ${i}` : `row ${n + 1}: value ${i * 1000 + n} résumé 数据`,
  ).join("\n");
}

function session(turns: number): Msg[] {
  const messages: Msg[] = [{ role: "user", content: "Audit the parts" }];
  for (let i = 0; i < turns; i++) {
    messages.push({
      role: "assistant",
      content: "",
      tool_calls: [{ id: `call_${i}`, type: "function", function: { name: "audit_part", arguments: `{"part":${i}}` } }],
    });
    messages.push({ role: "tool", tool_call_id: `call_${i}`, content: bigResult(i) });
    messages.push({ role: "assistant", content: `part ${i} read` });
  }
  return messages;
}

function manager(options: { session?: { store: MemorySessionStore; id: string } } = {}) {
  return new MessageContextManager<Msg>({
    model: "gpt-4o",
    mode: TruncationMode.SUMMARIZE,
    limits: new ContextLimits({ model: "gpt-4o", maxTokens: 200_000, maxOutputTokens: 0, reservedTokens: 0 }),
    logger: quiet,
    ...options,
    compaction: {
      summarizer: extractiveSummarizer(),
      maxToolResultTokens: 100_000,
      keepToolResults: 1,
    },
  });
}

describe("the cleared placeholder", () => {
  it("names the id, the size and the call that reads it, and keeps the error lines", async () => {
    const context = manager();
    context.load(session(6));
    await context.preview({ target: 20_000 });
    const report = await context.compactIfNeeded({ threshold: 0.05 });
    expect(report.levels.find((l) => l.name === "clear_old_tool_results")?.applied).toBe(true);
    const cleared = context.getMessages().find((m) => m.tool_call_id === "call_0");
    expect(cleared?.content).toMatch(
      /^\[tool result cleared: \d+(\.\d)? KB; recall\("call_0"\)\]\nError lines kept:\nError: checksum mismatch in part 0/,
    );
  });
});

describe("a result cut at level 1", () => {
  it("names the call that reads the whole of it back, and the recall returns it byte for byte", async () => {
    const context = new MessageContextManager<Msg>({
      model: "gpt-4o",
      mode: TruncationMode.SUMMARIZE,
      limits: new ContextLimits({ model: "gpt-4o", maxTokens: 200_000, maxOutputTokens: 0, reservedTokens: 0 }),
      logger: quiet,
      compaction: { summarizer: extractiveSummarizer(), maxToolResultTokens: 500 },
    });
    const recall = new Recall({ context, maxTokens: 50_000 });
    context.load(session(3));
    const report = await context.compactIfNeeded({ threshold: 0.05 });
    expect(report.levels.find((l) => l.name === "compact_tool_results")?.applied).toBe(true);
    // Oldest first, only until the target: every result that was cut names its own call.
    const cuts = context.getMessages().filter((m) => m.role === "tool" && String(m.content).includes("[Output truncated"));
    expect(cuts.length).toBeGreaterThan(0);
    for (const message of cuts) {
      const id = message.tool_call_id as string;
      const cut = message.content as string;
      expect(cut).toContain(`[Output truncated...; recall("${id}")]`);
      expect(counter.count(cut)).toBeLessThanOrEqual(500);
      const back = await recall.read(id);
      expect(back.ok && back.text).toBe(bigResult(Number(id.slice(5))));
    }
  });
});

describe("Recall", () => {
  it("returns the original byte for byte, a line range, or the matching lines, within its token bound", async () => {
    const context = manager();
    const recall = new Recall({ context, maxTokens: 50_000 });
    context.load(session(6));
    await context.compactIfNeeded({ threshold: 0.05 });
    const whole = await recall.read("call_0");
    expect(whole).toMatchObject({ ok: true, source: "cache", truncated: false, totalLines: 400, fromLine: 1, toLine: 400 });
    expect(whole.ok && whole.text).toBe(bigResult(0));
    expect(await recall.answer({ id: "call_0" })).toBe(bigResult(0));

    const range = await recall.read("call_1", { lines: [10, 12] });
    expect(range.ok && range.text).toBe(bigResult(1).split("\n").slice(9, 12).join("\n"));
    const grep = await recall.read("call_1", { pattern: "^Error" });
    expect(grep).toMatchObject({ ok: true, matches: 1, text: "201: Error: checksum mismatch in part 1" });

    // The bound: whole lines while they fit, counted with the manager's counter, and it says so.
    const small = await recall.read("call_2", { maxTokens: 100 });
    expect(small).toMatchObject({ ok: true, truncated: true, fromLine: 1 });
    if (!small.ok) throw new Error("unreachable");
    expect(counter.count(small.text)).toBeLessThanOrEqual(100);
    expect(small.text).toBe(bigResult(2).split("\n").slice(0, small.toLine).join("\n"));
    // What the tool answers holds its last line within the bound too, so it holds fewer lines.
    const page = await recall.answer({ id: "call_2", maxTokens: 100 });
    expect(counter.count(page)).toBeLessThanOrEqual(100);
    const shown = page.split("\n").length - 1;
    expect(page).toBe(
      `${bigResult(2).split("\n").slice(0, shown).join("\n")}\n[recall "call_2": lines 1-${shown} of 400; cut at ${counter.count(
        bigResult(2)
          .split("\n")
          .slice(0, shown)
          .map((l) => `${l}\n`)
          .join(""),
      )} tokens: ask for lines [${shown + 1}, 400] next]`,
    );
  });

  it("gives coded answers, never throws, for unknown ids, evicted originals and a model's bad arguments", async () => {
    const context = manager();
    const recall = new Recall({ context, maxBytes: 64 * 1024 });
    context.load(session(8));
    await context.compactIfNeeded({ threshold: 0.05 });
    expect(recall.cache.bytes).toBeLessThanOrEqual(64 * 1024);
    expect(await recall.read("call_0")).toMatchObject({ ok: false, code: "ERR_CTXWIN_RECALL_EVICTED" });
    expect(await recall.read("nope")).toMatchObject({ ok: false, code: "ERR_CTXWIN_RECALL_UNKNOWN_ID" });
    expect(await recall.answer({ id: "nope" })).toMatch(/^\[recall ERR_CTXWIN_RECALL_UNKNOWN_ID: /);
    expect(await recall.answer({ id: "call_6", pattern: "(" })).toMatch(/^\[recall ERR_CTXWIN_OUT_OF_RANGE: query.pattern/);
    expect(await recall.answer({ id: 5 })).toMatch(/^\[recall ERR_CTXWIN_INVALID_ARGUMENT: id must be a string/);
    expect(await recall.answer({ id: "call_6", lines: [5, 2] })).toMatch(/^\[recall ERR_CTXWIN_OUT_OF_RANGE/);
    expect(await recall.answer(undefined)).toMatch(/^\[recall ERR_CTXWIN_INVALID_ARGUMENT/);
    // The public call throws coded errors for a programmer's bad arguments.
    await expect(recall.read(5 as unknown as string)).rejects.toMatchObject({ name: "TypeError", code: "ERR_CTXWIN_INVALID_ARGUMENT" });
    await expect(recall.read("call_6", { maxTokens: 0 })).rejects.toMatchObject({ name: "RangeError", code: "ERR_CTXWIN_OUT_OF_RANGE" });
    expect(() => new Recall({ context, maxBytes: -1 })).toThrow(expect.objectContaining({ code: "ERR_CTXWIN_OUT_OF_RANGE" }));
    expect(() => new Recall({})).toThrow(expect.objectContaining({ name: "TypeError", code: "ERR_CTXWIN_INVALID_ARGUMENT" }));
    expect(() => new Recall({ context, session: { store: {} as MemorySessionStore, id: "s" } })).toThrow(
      expect.objectContaining({ code: "ERR_CTXWIN_INVALID_ARGUMENT" }),
    );
  });

  it("keeps what a context's trim cut in place as well as what it removed: the original, never the cut", async () => {
    // A context that cuts a result to make a request fit tells the rewrite in its trimmed event,
    // as a compaction's report tells its levels' rewrites.
    const listeners = new Map<string, (event: never) => void>();
    const context = { counter, on: (event: string, listener: (event: never) => void) => listeners.set(event, listener) };
    const recall = new Recall({ context, maxTokens: 50_000 });
    const original: Msg = { role: "tool", tool_call_id: "call_cut", content: bigResult(7) };
    const cut: Msg = {
      role: "tool",
      tool_call_id: "call_cut",
      content: `${bigResult(7).slice(0, 200)}\n[Output truncated...; recall("call_cut")]`,
    };
    const removed: Msg = { role: "tool", tool_call_id: "call_old", content: bigResult(8) };
    const trimmed = listeners.get("trimmed") as (event: { removed: Msg[]; replaced?: Array<{ before: Msg; after: Msg }> }) => void;
    trimmed({ removed: [removed], replaced: [{ before: original, after: cut }] });
    trimmed({ removed: [cut] });
    const answer = await recall.read("call_cut");
    expect(answer.ok && answer.text).toBe(bigResult(7));
    const old = await recall.read("call_old");
    expect(old.ok && old.text).toBe(bigResult(8));
  });

  it("reads from the session's log what the cache evicted, however old", async () => {
    const store = new MemorySessionStore();
    const context = manager({ session: { store, id: "s1" } });
    await context.ready;
    const recall = new Recall({ context, session: { store, id: "s1" }, maxBytes: 1024, maxTokens: 50_000 });
    for (const m of session(6)) context.addMessage(m);
    await context.compactIfNeeded({ threshold: 0.05 });
    await context.flush();
    const answer = await recall.read("call_0");
    expect(answer).toMatchObject({ ok: true, source: "session" });
    expect(answer.ok && answer.text).toBe(bigResult(0));
  });
});

describe("RecallCache", () => {
  it("never holds more than its bound, evicts oldest first, and knows what it evicted", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2000 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 30 }), fc.string({ maxLength: 300 })), { maxLength: 200 }),
        (bound, puts) => {
          const cache = new RecallCache(bound);
          const model = new Map<string, string>();
          for (const [k, text] of puts) {
            cache.remember(`id${k}`, text);
            model.set(`id${k}`, text);
            expect(cache.bytes).toBeLessThanOrEqual(bound);
          }
          for (const [id, text] of model) {
            const found = cache.lookup(id);
            if (found.kind === "found") expect(found.text).toBe(text);
            else expect(found.kind).toBe("evicted");
          }
          expect(cache.lookup("never").kind).toBe("unknown");
        },
      ),
    );
  });
});
