// The message-history manager through its public API.
import { describe, expect, it, vi } from "vitest";
import {
  ContextLimits,
  MessageContextManager,
  TruncationMode,
  extractiveSummarizer,
  type MessageLike,
  type TokenCounter,
  type TrimEvent,
} from "ctxwin";
import { CachingCounter } from "ctxwin/tokens";
import {
  CompositeStrategy,
  SlidingWindowStrategy,
  SmartTruncationStrategy,
  TokenBudgetStrategy,
  type TruncationPlan,
  type TruncationStrategy,
} from "ctxwin/truncation";
import { WARNING_80, WARNING_90 } from "../../../ts/context/usage-warnings.js";

type Msg = MessageLike & { tokens?: number };
/** Every message costs its `tokens` (default 10); an empty request costs nothing. */
const fixed: TokenCounter = {
  count: (text) => text.length,
  countMessages: (messages) => messages.reduce((sum, m) => sum + ((m as Msg).tokens ?? 10), 0),
};
const limits = (effective: number) => new ContextLimits({ model: "test", maxTokens: effective, maxOutputTokens: 0, reservedTokens: 0 });
const turn = (i: number, tokens = 10): Msg => ({ role: i % 2 ? "assistant" : "user", content: `turn ${i}`, tokens });

describe("MessageContextManager", () => {
  it("for claude-3-opus in SMART mode has a counter and a SmartTruncationStrategy", () => {
    const cm = new MessageContextManager({ model: "claude-3-opus", mode: TruncationMode.SMART });
    expect(cm.counter).toBeInstanceOf(CachingCounter);
    expect(cm.strategy).toBeInstanceOf(SmartTruncationStrategy);
    expect(cm.limits.maxTokens).toBe(200000);
  });

  it("selects the strategy by mode; SUMMARIZE needs llm", () => {
    expect(new MessageContextManager({ model: "gpt-4o", mode: TruncationMode.SLIDING_WINDOW }).strategy).toBeInstanceOf(
      SlidingWindowStrategy,
    );
    expect(new MessageContextManager({ model: "gpt-4o", mode: TruncationMode.TOKEN_BUDGET }).strategy).toBeInstanceOf(TokenBudgetStrategy);
    const summarize = new MessageContextManager({
      model: "gpt-4o",
      mode: TruncationMode.SUMMARIZE,
      compaction: { summarizer: extractiveSummarizer() },
    });
    expect(summarize.strategy).toBeInstanceOf(CompositeStrategy);
    expect(summarize.summarizer).toBeDefined();
    // Without a model, SUMMARIZE mode summarizes offline (the extractive digest).
    expect(new MessageContextManager({ model: "gpt-4o", mode: TruncationMode.SUMMARIZE }).compactor).toBeDefined();
    expect(() => new MessageContextManager({ model: "gpt-4o", mode: "fancy" as never })).toThrow(RangeError);
  });

  it("stores and counts the system prompt, and puts it first in the request", () => {
    const cm = new MessageContextManager({ model: "gpt-4o" });
    const tokens = cm.setSystemPrompt("You are helpful");
    expect(tokens).toBeGreaterThan(0);
    cm.addMessage({ role: "user", content: "Hi" });
    cm.addMessage({ role: "assistant", content: "Hello!" });
    const request = cm.getContextForRequest();
    expect(request[0]).toEqual({ role: "system", content: "You are helpful" });
    expect(request.slice(1)).toEqual(cm.getMessages());
    expect(cm.tokenUsage).toBe(new CachingCounter(cm.counter).countMessages(request));
  });

  it("counts only the new message on addMessage (running total)", () => {
    const counter = { ...fixed, countMessages: vi.fn(fixed.countMessages) };
    const cm = new MessageContextManager<Msg>({ model: "m", counter, limits: limits(1_000_000) });
    for (let i = 0; i < 50; i++) cm.addMessage(turn(i));
    counter.countMessages.mockClear();
    cm.addMessage(turn(50, 7));
    const counted = counter.countMessages.mock.calls.reduce((n, [messages]) => n + messages.length, 0);
    expect(counted).toBe(1);
    expect(cm.tokenUsage).toBe(50 * 10 + 7);
  });

  it("trims automatically at 80% and the result fits within the limits", () => {
    const trims: TrimEvent<Msg>[] = [];
    const cm = new MessageContextManager<Msg>({ model: "m", counter: fixed, limits: limits(1000), mode: TruncationMode.SMART });
    cm.on("trimmed", (e) => trims.push(e));
    for (let i = 0; i < 20; i++) cm.addMessage(turn(i, 40)); // 800 tokens: at 80%, not over it
    expect(trims).toHaveLength(0);
    cm.addMessage(turn(20, 150)); // a large message crosses 80%
    expect(trims).toHaveLength(1);
    expect(cm.tokenUsage).toBeLessThanOrEqual(800);
    expect(trims[0]!.message).toBe("Context trimmed. Kept first 2 and last 10 turns.");
    expect(trims[0]!.removed.length).toBe(21 - 12);
    // The marker names each omitted message by the id a recall reads it back by, with its first words.
    const request = cm.getContextForRequest();
    const named = Array.from({ length: 9 }, (_, k) => `: ${k % 2 ? "assistant" : "user"}: turn ${k + 2}`).join("\n");
    expect(request[2]).toEqual({ role: "system", content: expect.stringMatching(/^\[9 messages omitted; recall by id:\n/) });
    expect((request[2] as { content: string }).content.replace(/recall\("m[0-9a-f]{8}"\)/g, "")).toBe(
      `[9 messages omitted; recall by id:\n${named}]`,
    );
  });

  it("warns once per crossing at 80% and 90%, with the chat's words, without blocking", () => {
    const warnings: string[] = [];
    const cm = new MessageContextManager<Msg>({ model: "m", counter: fixed, limits: limits(1000), compaction: { trimAt: 0.95 } });
    cm.on("warning", (w) => warnings.push(w.message));
    cm.addMessage(turn(0, 790));
    expect(warnings).toEqual([]);
    cm.addMessage(turn(1, 20)); // 81%
    cm.addMessage(turn(2, 5));
    expect(warnings).toEqual([WARNING_80]);
    cm.addMessage(turn(3, 100)); // 91.5%
    expect(warnings).toEqual([WARNING_80, WARNING_90]);
    expect(warnings).toEqual(["Context at 80% capacity. Consider /clear or /save.", "Context at 90% capacity. Auto-trimming soon."]);
    cm.clear();
    cm.addMessage(turn(0, 850));
    expect(warnings).toHaveLength(3); // re-armed after falling below 80%
  });

  it("is near the limit at 85%, and reports its stats", () => {
    const cm = new MessageContextManager<Msg>({ model: "m", counter: fixed, limits: limits(1000), compaction: { autoTruncate: false } });
    cm.setSystemPrompt("rules");
    cm.addMessage({ role: "user", content: "a", tokens: 400 });
    cm.addMessage({ role: "assistant", content: "b", tokens: 440 });
    expect(cm.usagePercentage).toBe(85);
    expect(cm.isNearLimit).toBe(true);
    expect(cm.getStats()).toEqual({
      model: "m",
      mode: "smart",
      limits: { window: 1000, responseReserve: 0, modelMaxOutput: 0, reservedTokens: 0, effectiveLimit: 1000 },
      messageCount: 2,
      byRole: { system: 1, user: 1, assistant: 1, tool: 0 },
      tokenUsage: 850,
      availableTokens: 150,
      usagePercentage: 85,
      countedTokens: 850,
      anchored: false,
      calibration: {},
      cache: { requests: 0, promptTokens: 0, sharedPrefixTokens: 0, cacheableShare: 0 },
      breaker: { state: "closed", consecutiveFailures: 0 },
    });
  });

  it("canAdd pre-checks a message without adding it", () => {
    const cm = new MessageContextManager<Msg>({ model: "m", counter: fixed, limits: limits(100), compaction: { autoTruncate: false } });
    cm.addMessage(turn(0, 60));
    expect(cm.canAdd(turn(1, 40))).toBe(true);
    expect(cm.canAdd(turn(1, 41))).toBe(false);
    expect(cm.getMessages()).toHaveLength(1);
  });

  it("clear() drops the turns and keeps session metadata; reset() drops everything", () => {
    const cm = new MessageContextManager<Msg>({ model: "m", counter: fixed, limits: limits(1000) });
    cm.metadata.sessionId = "s-1";
    cm.setSystemPrompt("rules");
    for (let i = 0; i < 5; i++) cm.addMessage(turn(i));
    cm.clear();
    expect(cm.getMessages()).toEqual([]);
    expect(cm.metadata).toEqual({ sessionId: "s-1" });
    expect(cm.getContextForRequest()).toHaveLength(1);
    cm.reset();
    expect(cm.tokenUsage).toBe(0);
    expect(cm.metadata).toEqual({});
    expect(cm.getContextForRequest()).toEqual([]);
  });

  it("loads a session's history with exact counts and tells the session what each trim removed", () => {
    const session: Msg[] = Array.from({ length: 30 }, (_, i) => turn(i, 30));
    const store = session.slice();
    const cm = new MessageContextManager<Msg>({
      model: "m",
      counter: fixed,
      limits: limits(1000),
      mode: TruncationMode.TOKEN_BUDGET,
      compaction: {
        onTrim: (e) => e.removed.forEach((m) => store.splice(store.indexOf(m), 1)),
      },
    });
    cm.load(session.slice(0, 20)); // 600 tokens: no trim
    expect(cm.tokenUsage).toBe(600);
    for (const m of session.slice(20)) cm.addMessage(m); // crosses 800
    expect(store).toEqual(cm.getMessages()); // the store and the manager agree
    expect(cm.tokenUsage).toBeLessThanOrEqual(800);
  });

  it("keeps tool calls with their results through trims", () => {
    const cm = new MessageContextManager<Msg>({ model: "m", counter: fixed, limits: limits(300), mode: TruncationMode.TOKEN_BUDGET });
    for (let i = 0; i < 10; i++) {
      cm.addMessage({ role: "user", content: `q${i}`, tokens: 10 });
      cm.addMessage({
        role: "assistant",
        content: null,
        tool_calls: [{ id: `c${i}`, type: "function", function: { name: "f", arguments: "{}" } }],
        tokens: 10,
      } as Msg);
      cm.addMessage({ role: "tool", tool_call_id: `c${i}`, content: "r", tokens: 30 });
    }
    const kept = cm.getMessages();
    const ids = new Set(kept.flatMap((m) => ((m as { tool_calls?: Array<{ id: string }> }).tool_calls ?? []).map((c) => c.id)));
    for (const m of kept) if (m.role === "tool") expect(ids.has(m.tool_call_id as string)).toBe(true);
  });

  it("rejects bad input and leaves its state unchanged", () => {
    const cm = new MessageContextManager<Msg>({ model: "m", counter: fixed, limits: limits(1000) });
    cm.addMessage(turn(0));
    const before = { messages: cm.getMessages(), usage: cm.tokenUsage };
    expect(() => cm.addMessage({ content: "no role" } as never)).toThrow(/messages\[1\]\.role must be one of/);
    expect(() => cm.addMessage({ role: "wizard", content: "x" })).toThrow(TypeError);
    expect(() => cm.addMessage({ role: "user", content: 5 } as never)).toThrow(/content must be/);
    expect(() => cm.addMessage({ role: "tool", tool_call_id: "ghost", content: "r" })).toThrow(/whose call is not in the messages/);
    expect(() => cm.truncate(-1)).toThrow(RangeError);
    expect(() => cm.load([{ role: "user" }, { nope: 1 }] as never)).toThrow(TypeError);
    expect({ messages: cm.getMessages(), usage: cm.tokenUsage }).toEqual(before);
    expect(() => new MessageContextManager({ model: "gpt-4o", compaction: { trimAt: 0 } })).toThrow(RangeError);
    expect(() => new MessageContextManager({ model: "gpt-4o", compaction: { trimAt: Number.NaN } })).toThrow(RangeError);
    expect(() => new MessageContextManager({ model: "gpt-4o", compaction: { trimTo: 0.9 } })).toThrow(
      /options\.compaction\.trimTo must be a number in \(0, trimAt = 0\.8\], got number 0\.9/,
    );
    expect(() => new MessageContextManager({ model: "gpt-4o", compaction: { clearAtLeast: -1 } })).toThrow(
      /options\.compaction\.clearAtLeast must be an integer >= 0/,
    );
    expect(() => new MessageContextManager({ model: "gpt-4o", compaction: { maxSummaryFailures: 0 } })).toThrow(
      /options\.compaction\.maxSummaryFailures must be an integer >= 1/,
    );
    expect(() => new MessageContextManager({ model: "gpt-4o", compaction: { breakerResetMs: 1.5 } })).toThrow(RangeError);
    expect(() => new MessageContextManager({ model: "gpt-4o", compaction: { keepReasoningTurns: "1" as never } })).toThrow(TypeError);
    expect(() => new MessageContextManager({ model: "gpt-4o", compaction: { maxSummaryTokens: 0 } })).toThrow(
      /options\.compaction\.maxSummaryTokens must be an integer >= 1/,
    );
  });
});

describe("MessageContextManager with a strategy of the caller's", () => {
  it("rejects kept indices that are not ascending indices of the messages, and changes nothing", () => {
    const keeping = (keptIndices: number[]): TruncationStrategy => ({
      name: "mine",
      plan: <M extends MessageLike>(m: readonly M[]): TruncationPlan<M> => ({
        kept: keptIndices.map((i) => m[i] as M),
        removed: [],
        keptIndices,
        removedIndices: [],
        keptTokens: 0,
        fits: true,
      }),
      truncate: <M extends MessageLike>(m: readonly M[]) => keptIndices.map((i) => m[i] as M),
    });
    for (const [indices, error] of [
      [[3, 1], /mine\.plan\(\) returned keptIndices\[1\] = number 1: kept indices must be indices of the 4 messages, ascending, each once/],
      [[1, 1], /keptIndices\[1\] = number 1/],
      [[2, 4], /keptIndices\[1\] = number 4/],
      [[0.5], /keptIndices\[0\] = number 0\.5/],
    ] as const) {
      const cm = new MessageContextManager<Msg>({
        model: "m",
        counter: fixed,
        limits: limits(100_000),
        compaction: { strategy: keeping([...indices]), autoTruncate: false },
      });
      for (let i = 0; i < 4; i++) cm.addMessage(turn(i));
      const before = { messages: cm.getMessages(), usage: cm.tokenUsage };
      expect(() => cm.truncate(1)).toThrow(
        expect.objectContaining({ name: "RangeError", code: "ERR_CTXWIN_OUT_OF_RANGE", message: expect.stringMatching(error) }),
      );
      expect({ messages: cm.getMessages(), usage: cm.tokenUsage }).toEqual(before);
    }
    // Kept in order, the same plan is applied.
    const cm = new MessageContextManager<Msg>({
      model: "m",
      counter: fixed,
      limits: limits(100_000),
      compaction: { strategy: keeping([1, 3]), autoTruncate: false },
    });
    for (let i = 0; i < 4; i++) cm.addMessage(turn(i));
    const messages = cm.getMessages();
    cm.truncate(1);
    expect(cm.getMessages()).toEqual([messages[1], messages[3]]);
  });
});

describe("MessageContextManager with orphanToolResults: 'drop'", () => {
  it("leaves a tool result without its call out of the history, with a warning", () => {
    const warn = vi.fn();
    const cm = new MessageContextManager<Msg>({
      model: "m",
      counter: fixed,
      limits: limits(1000),
      logger: { warn },
      warnings: { orphanToolResults: "drop" },
    });
    cm.addMessage({ role: "user", content: "q" });
    cm.addMessage({ role: "tool", tool_call_id: "ghost", content: "r" });
    expect(cm.getMessages()).toEqual([{ role: "user", content: "q" }]);
    cm.load([
      { role: "tool", tool_call_id: "ghost", content: "r" },
      { role: "user", content: "q2" },
    ]);
    expect(cm.getMessages()).toEqual([{ role: "user", content: "q2" }]);
    expect(warn).toHaveBeenCalledTimes(2);
  });
});
