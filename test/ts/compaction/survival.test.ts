// Issue 14: compaction agents survive. Hysteresis and the cacheable share, clearing at least
// clearAtLeast tokens, the circuit breaker, levels that freed nothing, compaction that starts while
// the summarization request still fits, and the user's words kept beside the summary.
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  ContextLimits,
  MessageContextManager,
  TiktokenCounter,
  TruncationMode,
  extractiveSummarizer,
  type MessageLike,
  type TokenCounter,
} from "ctxwin";
import { ContextCompactor, type BreakerEvent } from "ctxwin/compaction";
import { isClearedToolResult } from "../../../ts/compaction/levels/clear-old-tool-results.js";

type Msg = MessageLike & {
  tokens?: number;
  tool_calls?: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }>;
};
/** Every message costs its `tokens` (default 10); an empty request costs nothing. */
const fixed: TokenCounter = {
  count: (text) => Math.ceil(text.length / 4),
  countMessages: (messages) => messages.reduce((sum, m) => sum + ((m as Msg).tokens ?? 10), 0),
};
const limits = (effective: number) => new ContextLimits({ model: "test", maxTokens: effective, maxOutputTokens: 0, reservedTokens: 0 });
const quiet = { warn: () => {} };

/** The prefix two requests share, by identity for messages and by value for the system prompt and the marker. */
function sharedPrefix(previous: readonly object[], current: readonly object[]): number {
  let tokens = 0;
  for (let i = 0; i < Math.min(previous.length, current.length); i++) {
    const a = previous[i] as Msg;
    const b = current[i] as Msg;
    const same =
      a === b ||
      (a.role === "system" && b.role === "system" && a.content === b.content && a.tokens === undefined && b.tokens === undefined);
    if (!same) break;
    tokens += b.tokens ?? 10;
  }
  return tokens;
}

describe("hysteresis and the cacheable share", () => {
  it("cuts down to trimTo when usage crosses trimAt, then grows again without trimming", () => {
    const trims: number[] = [];
    const cm = new MessageContextManager<Msg>({ model: "m", counter: fixed, limits: limits(1000), mode: TruncationMode.TOKEN_BUDGET });
    expect(cm.trimTo).toBe(0.6);
    cm.on("trimmed", (t) => trims.push(t.tokensAfter));
    for (let i = 0; i < 100; i++) cm.addMessage({ role: i % 2 ? "assistant" : "user", content: `m${i}`, tokens: 30 });
    expect(trims.length).toBeGreaterThan(1);
    for (const after of trims) expect(after).toBeLessThanOrEqual(600);
    // Between trims the history grew by the 0.2 of the window that hysteresis leaves.
    expect(trims.length).toBeLessThanOrEqual(Math.ceil((100 * 30 - 800) / 200));
    expect(() => new MessageContextManager({ model: "gpt-4o", compaction: { trimAt: 0.7, trimTo: 0.75 } })).toThrow(
      /options\.compaction\.trimTo must be a number in \(0, trimAt = 0\.7\]/,
    );
  });

  it("reports each request's prefix shared with the one before, as an identity walk finds it", () => {
    type Op =
      | { kind: "add"; tokens: number; tool: boolean }
      | { kind: "request" }
      | { kind: "system"; text: string }
      | { kind: "truncate"; share: number };
    const op: fc.Arbitrary<Op> = fc.oneof(
      {
        weight: 6,
        arbitrary: fc.record({ kind: fc.constant("add" as const), tokens: fc.integer({ min: 1, max: 120 }), tool: fc.boolean() }),
      },
      { weight: 3, arbitrary: fc.constant({ kind: "request" as const }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant("system" as const), text: fc.constantFrom("a", "b") }) },
      {
        weight: 1,
        arbitrary: fc.record({ kind: fc.constant("truncate" as const), share: fc.double({ min: 0.1, max: 0.9, noNaN: true }) }),
      },
    );
    fc.assert(
      fc.property(
        fc.array(op, { maxLength: 120 }),
        fc.constantFrom(TruncationMode.SMART, TruncationMode.TOKEN_BUDGET, TruncationMode.SLIDING_WINDOW),
        (ops, mode) => {
          const cm = new MessageContextManager<Msg>({ model: "m", counter: fixed, limits: limits(1500), mode });
          let previous: object[] | undefined;
          let expected = 0;
          let total = 0;
          let n = 0;
          for (const o of ops) {
            if (o.kind === "add") {
              if (o.tool) {
                const id = `c${n++}`;
                cm.addMessage({
                  role: "assistant",
                  content: null,
                  tool_calls: [{ id, type: "function", function: { name: "f", arguments: "{}" } }],
                  tokens: 10,
                });
                cm.addMessage({ role: "tool", tool_call_id: id, content: "r", tokens: o.tokens });
              } else {
                cm.addMessage({ role: n++ % 2 ? "assistant" : "user", content: "x", tokens: o.tokens });
              }
            } else if (o.kind === "system") {
              cm.setSystemPrompt(o.text);
            } else if (o.kind === "truncate") {
              cm.truncate(Math.floor(1500 * o.share));
            } else {
              const request = cm.getContextForRequest() as object[];
              if (previous !== undefined) expected += sharedPrefix(previous, request);
              total += cm.tokenUsage;
              previous = request;
            }
          }
          const stats = cm.getStats().cache;
          expect(stats.sharedPrefixTokens).toBe(expected);
          expect(stats.promptTokens).toBe(total);
          expect(stats.cacheableShare).toBe(total === 0 ? 0 : expected / total);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("compaction edits end the shared prefix where they start", async () => {
    const counter = new TiktokenCounter({ model: "gpt-4o" });
    const cm = new MessageContextManager<Msg>({
      model: "gpt-4o",
      counter,
      limits: limits(6000),
      logger: quiet,
      compaction: { autoTruncate: false, keepToolResults: 1, clearAtLeast: 0 },
    });
    cm.addMessage({ role: "user", content: "Read the files." });
    for (let i = 0; i < 8; i++) {
      cm.addMessage({
        role: "assistant",
        content: null,
        tool_calls: [{ id: `c${i}`, type: "function", function: { name: "read_file", arguments: `{"path":"f${i}.ts"}` } }],
      });
      cm.addMessage({ role: "tool", tool_call_id: `c${i}`, content: `line ${i}\n`.repeat(200) });
    }
    const before = cm.getContextForRequest() as object[];
    const report = await cm.compactIfNeeded({ threshold: 0.5 });
    expect(report.levels.find((l) => l.level === 2)?.applied).toBe(true);
    const after = cm.getContextForRequest() as object[];
    // The first cleared result (messages[2], the result of c0) ends the prefix.
    const expected = counter.countEachMessage(after.slice(0, sharedPrefixCount(before, after)) as MessageLike[]).reduce((a, b) => a + b, 0);
    expect(sharedPrefixCount(before, after)).toBe(2);
    expect(cm.getStats().cache.sharedPrefixTokens).toBe(expected);
  });
});

function sharedPrefixCount(a: readonly object[], b: readonly object[]): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

function toolHistory(units: number, resultLines: number): Msg[] {
  const out: Msg[] = [];
  for (let i = 0; i < units; i++) {
    out.push({ role: "user", content: `Check file ${i}` });
    out.push({
      role: "assistant",
      content: null,
      tool_calls: [{ id: `c${i}`, type: "function", function: { name: "read_file", arguments: `{"path":"src/f${i}.ts"}` } }],
    });
    out.push({ role: "tool", tool_call_id: `c${i}`, content: `line of src/f${i}.ts\n`.repeat(resultLines) } as Msg);
  }
  return out;
}

describe("the cacheable share and the system prompt", () => {
  it("a system prompt changed and changed back before the next request is still a shared prefix", () => {
    // fast-check's counterexample: the prompt the next request carries is what counts, not
    // whether it was set in between.
    const cm = new MessageContextManager({ model: "gpt-4o" });
    cm.setSystemPrompt("b");
    cm.getContextForRequest();
    cm.setSystemPrompt("a");
    cm.setSystemPrompt("b");
    cm.getContextForRequest();
    const systemTokens = cm.tokenUsage - cm.counter.countMessages([]);
    expect(systemTokens).toBeGreaterThan(0);
    expect(cm.getStats().cache.sharedPrefixTokens).toBe(systemTokens);
    cm.setSystemPrompt("a");
    cm.getContextForRequest();
    expect(cm.getStats().cache.sharedPrefixTokens).toBe(systemTokens);
  });
});

describe("level 2 clears at least clearAtLeast tokens at once", () => {
  const counter = new TiktokenCounter({ model: "gpt-4o" });
  const make = (extra: Partial<ConstructorParameters<typeof MessageContextManager<Msg>>[0]>) =>
    new MessageContextManager<Msg>({
      model: "gpt-4o",
      counter,
      limits: limits(20_000),
      logger: quiet,
      ...extra,
      compaction: { autoTruncate: false, keepToolResults: 2, maxToolResultTokens: 5000, ...extra.compaction },
    });

  it("clears oldest first past the target until clearAtLeast is reached", async () => {
    const cm = make({ compaction: { clearAtLeast: 9000 } });
    cm.load(toolHistory(12, 140)); // 12 results of about 1,100 tokens: about 14,000 tokens
    const report = await cm.compactIfNeeded({ threshold: 0.6 });
    const level2 = report.levels.find((l) => l.level === 2)!;
    expect(level2.applied).toBe(true);
    expect(level2.tokensBefore - level2.tokensAfter).toBeGreaterThanOrEqual(9000);
    const tools = cm.getMessages().filter((m) => m.role === "tool");
    const cleared = tools.map((m) => isClearedToolResult(m.content));
    // Oldest first: the cleared ones form a prefix.
    expect(cleared.indexOf(false)).toBe(cleared.filter(Boolean).length);
  });

  it("clears nothing when all it could clear is less than clearAtLeast and would not reach the target, before a summary", async () => {
    const cm = make({
      mode: TruncationMode.SUMMARIZE,
      compaction: { clearAtLeast: 50_000, keepToolResults: 10, summarizer: extractiveSummarizer() },
    }); // 2 old results: about 2,200 tokens
    cm.load(toolHistory(12, 140));
    const report = await cm.compactIfNeeded({ threshold: 0.3 });
    const level2 = report.levels.find((l) => l.level === 2)!;
    expect(level2).toMatchObject({ applied: false, messagesChanged: 0 });
    expect(level2.skipped).toMatch(/less than clearAtLeast \(50000\)/);
    expect(report.levels.find((l) => l.level === 3)?.applied).toBe(true); // the summary did the work, from the results whole
  });

  it("clears all it can when only a trim follows, so that the trim drops fewer turns", async () => {
    const cm = make({ compaction: { clearAtLeast: 50_000, keepToolResults: 10 } });
    cm.load(toolHistory(12, 140));
    const report = await cm.compactIfNeeded({ threshold: 0.3 });
    expect(report.levels.find((l) => l.level === 2)).toMatchObject({ applied: true, messagesChanged: 2 });
    expect(report.levels.find((l) => l.level === 4)?.applied).toBe(true);
  });
});

describe("the circuit breaker", () => {
  afterEach(() => vi.useRealTimers());

  it("opens after 3 failed summaries in a row, stops calling the model, and closes after a successful trial", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-01-01T00:00:00Z"));
    let calls = 0;
    let failing = true;
    const llm = async () => {
      calls++;
      if (failing) throw new Error("overloaded");
      return "Earlier: the user asked for files to be read.";
    };
    const events: BreakerEvent[] = [];
    const cm = new MessageContextManager<Msg>({
      model: "m",
      counter: fixed,
      limits: limits(2000),
      mode: TruncationMode.SUMMARIZE,
      logger: quiet,
      compaction: { summarizer: llm, autoTruncate: false },
    });
    cm.on("breaker", (e) => events.push(e));
    const grow = () => {
      while (cm.tokenUsage <= 1800) cm.addMessage({ role: cm.getMessages().length % 2 ? "assistant" : "user", content: "x", tokens: 40 });
    };
    for (let i = 0; i < 3; i++) {
      grow();
      const report = await cm.compactIfNeeded({ threshold: 0.85 });
      expect(report.levels.find((l) => l.level === 3)).toMatchObject({ applied: true, error: "overloaded" });
      expect(report.levels.find((l) => l.level === 4)?.applied).toBe(true); // usage still comes down
    }
    expect(calls).toBe(3);
    expect(events.map((e) => e.transition)).toEqual(["opened"]);
    expect(cm.getStats().breaker).toMatchObject({ state: "open", consecutiveFailures: 3, lastError: "overloaded" });

    // Open: levels 0, 1, 2 and 4 run, the model is not called.
    grow();
    let report = await cm.compactIfNeeded({ threshold: 0.85 });
    expect(calls).toBe(3);
    expect(report.levels.find((l) => l.level === 3)).toMatchObject({ applied: false, skipped: "circuit breaker open" });
    expect(report.tokensAfter).toBeLessThanOrEqual(2000 * 0.6);

    // After breakerResetMs one trial call is allowed; its success closes the breaker.
    vi.setSystemTime(new Date("2026-01-01T00:05:00Z"));
    failing = false;
    grow();
    report = await cm.compactIfNeeded({ threshold: 0.85 });
    expect(calls).toBe(4);
    expect(report.summary?.content).toContain("Earlier: the user asked");
    expect(events.map((e) => e.transition)).toEqual(["opened", "trial", "closed"]);
    expect(cm.getStats().breaker).toEqual({ state: "closed", consecutiveFailures: 0 });
  });

  it("a failed trial opens it again for another breakerResetMs", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-01-01T00:00:00Z"));
    let calls = 0;
    const cm = new MessageContextManager<Msg>({
      model: "m",
      counter: fixed,
      limits: limits(2000),
      mode: TruncationMode.SUMMARIZE,
      logger: quiet,
      compaction: {
        autoTruncate: false,
        summarizer: async () => {
          calls++;
          throw new Error("down");
        },
        maxSummaryFailures: 1,
        breakerResetMs: 1000,
      },
    });
    const grow = () => {
      while (cm.tokenUsage <= 1800) cm.addMessage({ role: cm.getMessages().length % 2 ? "assistant" : "user", content: "x", tokens: 40 });
    };
    grow();
    await cm.compactIfNeeded({ threshold: 0.85 });
    expect(cm.getStats().breaker.state).toBe("open");
    vi.setSystemTime(new Date("2026-01-01T00:00:01Z"));
    grow();
    await cm.compactIfNeeded({ threshold: 0.85 });
    expect(calls).toBe(2);
    expect(cm.getStats().breaker).toMatchObject({ state: "open", openedAt: Date.parse("2026-01-01T00:00:01Z") });
    grow();
    await cm.compactIfNeeded({ threshold: 0.85 });
    expect(calls).toBe(2);
  });
});

describe("no loops", () => {
  it("a level that freed nothing is not run again on the same messages", async () => {
    const cm = new MessageContextManager<Msg>({
      model: "m",
      counter: fixed,
      limits: limits(1000),
      logger: quiet,
      compaction: { autoTruncate: false },
    });
    for (let i = 0; i < 10; i++)
      cm.addMessage({ role: i % 2 ? "assistant" : "user", content: "pinned", tokens: 95, _preserve: true } as Msg);
    const first = await cm.compactIfNeeded({ threshold: 0.8 });
    // It ran and had nothing to take (applied: false, not skipped).
    expect(first.levels.find((l) => l.level === 4)).toMatchObject({ applied: false, messagesChanged: 0 });
    expect(first.levels.find((l) => l.level === 4)?.skipped).toBeUndefined();
    const second = await cm.compactIfNeeded({ threshold: 0.8 });
    expect(second.levels.find((l) => l.level === 4)).toMatchObject({
      applied: false,
      skipped: "freed nothing last time for the same messages",
    });
    // New messages make it a different history: the level runs again.
    cm.addMessage({ role: "user", content: "new", tokens: 5 });
    const third = await cm.compactIfNeeded({ threshold: 0.8 });
    expect(third.levels.find((l) => l.level === 4)?.skipped).toBeUndefined();
  });
});

describe("never too late", () => {
  it("starts summarizing while the messages to summarize still fit the summarizer's input budget", async () => {
    const counter = new TiktokenCounter({ model: "gpt-4o" });
    const prompts: string[] = [];
    const cm = new MessageContextManager<Msg>({
      model: "gpt-4o",
      counter,
      limits: limits(100_000),
      mode: TruncationMode.SUMMARIZE,
      logger: quiet,
      compaction: {
        summarizer: async (prompt: string) => (prompts.push(prompt), "Summary: the user discussed topics."),
        summaryInputTokens: 3000,
        maxSummaryTokens: 200,
        preserveLast: 4,
        keepUserTokens: 0,
      },
    });
    const sent: Msg[] = [];
    for (let i = 0; i < 60 && prompts.length === 0; i++) {
      const m: Msg = { role: i % 2 ? "assistant" : "user", content: `Topic ${i}: ${"detail ".repeat(60)}` };
      sent.push(m);
      cm.addMessage(m);
      await cm.compactIfNeeded(); // joins the compaction addMessage started
    }
    expect(prompts).toHaveLength(1);
    // Far below trimAt of the window, and nothing had to be left out of the request.
    expect(cm.usagePercentage).toBeLessThan(10);
    expect(counter.count(prompts[0]!)).toBeLessThanOrEqual(3000);
    const summarized = sent.filter((m) => !cm.getMessages().includes(m));
    expect(summarized.length).toBeGreaterThan(0);
    for (const m of summarized) expect(prompts[0]).toContain(m.content as string);
  });
});

describe("the user's words beside the summary", () => {
  it("keeps the user's messages verbatim, newest first within keepUserTokens, in their order", async () => {
    const counter = new TiktokenCounter({ model: "gpt-4o" });
    const messages: Msg[] = [];
    for (let i = 0; i < 30; i++)
      messages.push({
        role: i % 2 ? "assistant" : "user",
        content: `${i % 2 ? "Answer" : "Request"} ${i}: ${"word ".repeat(i % 2 ? 100 : 20)}`,
      });
    const userTokens = counter.countEachMessage([messages[18]!])[0]!;
    const compactor = new ContextCompactor({ model: async () => "what happened", keepUserTokens: userTokens * 3 });
    const result = await compactor.compactWithDetails(messages, 500, counter, { preserveLast: 10 });
    // The three newest user messages of the summarized 20 stay, as the same objects, in order.
    expect(result.keptUserMessages).toEqual([messages[14], messages[16], messages[18]]);
    expect(result.messages.slice(0, 4)).toEqual([result.summary, messages[14], messages[16], messages[18]]);
    result.keptUserMessages!.forEach((m, i) => expect(m).toBe([messages[14], messages[16], messages[18]][i]));
    expect(result.summarized).toBe(17);
    expect(result.summary!.content).toMatch(/^Summary of the 17 earlier messages \([^\n]*\):/);
    expect(() => new ContextCompactor({ model: async () => "x", keepUserTokens: -1 })).toThrow(RangeError);
  });
});
