// Issue 11 item 4: reported usage anchors the running total and calibrates later counts, in
// MessageContextManager and ContextTracker, through the public API.
import { describe, expect, it, vi } from "vitest";
import fc from "fast-check";
import { ContextLimits, MessageContextManager, getCounter, type MessageLike, type TokenCounter } from "ctxwin";
import { ContextTracker, UsageCalibration } from "ctxwin/budget";
import { reportedInputTokens } from "../../../ts/budget/usage-calibration.js";

type Msg = MessageLike & { tokens?: number };
/** Every message costs its `tokens` (default 10); an empty request costs nothing. */
const fixed: TokenCounter = {
  count: (text) => text.length,
  countMessages: (messages) => messages.reduce((sum, m) => sum + ((m as Msg).tokens ?? 10), 0),
};
const limits = (effective: number) => new ContextLimits({ model: "test", maxTokens: effective, maxOutputTokens: 0, reservedTokens: 0 });
const turn = (i: number, tokens = 10): Msg => ({ role: i % 2 ? "assistant" : "user", content: `turn ${i}`, tokens });
const quiet = () => ({ warn: vi.fn() });

describe("reportedInputTokens reads every SDK's usage shape", () => {
  it("AI SDK (result and provider level), OpenAI chat and responses, Anthropic, LangChain, OpenAI Agents", () => {
    expect(
      reportedInputTokens({
        inputTokens: 1200,
        inputTokenDetails: { noCacheTokens: 200, cacheReadTokens: 1000, cacheWriteTokens: 0 },
        outputTokens: 5,
      }),
    ).toBe(1200);
    expect(reportedInputTokens({ inputTokens: { total: 900, noCache: 900, cacheRead: undefined, cacheWrite: undefined } })).toBe(900);
    expect(reportedInputTokens({ inputTokens: { total: undefined, noCache: 100, cacheRead: 50, cacheWrite: 7 } })).toBe(157);
    expect(reportedInputTokens({ prompt_tokens: 321, completion_tokens: 9, total_tokens: 330 })).toBe(321);
    expect(reportedInputTokens({ input_tokens: 400, input_tokens_details: { cached_tokens: 300 }, output_tokens: 2 })).toBe(400);
    // Anthropic: input_tokens is only the uncached part; the three add up to the prompt.
    expect(
      reportedInputTokens({ input_tokens: 12, cache_creation_input_tokens: 1000, cache_read_input_tokens: 3000, output_tokens: 50 }),
    ).toBe(4012);
    expect(reportedInputTokens({ input_tokens: 12, cache_creation_input_tokens: null, cache_read_input_tokens: 0 })).toBe(12);
    // LangChain usage_metadata: input_tokens is the whole prompt already.
    expect(
      reportedInputTokens({ input_tokens: 5000, output_tokens: 20, total_tokens: 5020, input_token_details: { cache_read: 4000 } }),
    ).toBe(5000);
    expect(reportedInputTokens({ requests: 1, inputTokens: 77, outputTokens: 3, totalTokens: 80 })).toBe(77);
  });

  it("gives undefined when the provider reported nothing", () => {
    expect(reportedInputTokens({ inputTokens: undefined, outputTokens: undefined })).toBeUndefined();
    expect(
      reportedInputTokens({ inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined } }),
    ).toBeUndefined();
  });

  it("rejects bad input with coded errors", () => {
    for (const bad of [null, 42, "1000", [1], {}, { outputTokens: 5 }]) {
      expect(() => reportedInputTokens(bad)).toThrow(expect.objectContaining({ name: "TypeError", code: "ERR_CTXWIN_INVALID_ARGUMENT" }));
    }
    expect(() => reportedInputTokens({ inputTokens: "12" })).toThrow(/usage.inputTokens must be a number/);
    expect(() => reportedInputTokens({ prompt_tokens: -1 })).toThrow(
      expect.objectContaining({ name: "RangeError", code: "ERR_CTXWIN_OUT_OF_RANGE" }),
    );
    expect(() => reportedInputTokens({ input_tokens: 1.5 })).toThrow(RangeError);
    expect(() => reportedInputTokens({ input_tokens: 10, cache_read_input_tokens: Number.NaN })).toThrow(/cache_read_input_tokens/);
  });
});

describe("MessageContextManager.observeUsage", () => {
  it("anchors tokenUsage on the reported figure plus what was added since", () => {
    const logger = quiet();
    const cm = new MessageContextManager<Msg>({ model: "m", counter: fixed, limits: limits(10_000), logger });
    cm.addMessage(turn(0, 100));
    cm.addMessage(turn(1, 100));
    cm.getContextForRequest();
    cm.addMessage(turn(2, 50)); // the response, added before its usage arrives
    expect(cm.observeUsage({ inputTokens: 260, inputTokenDetails: {} })).toBe(true);
    expect(cm.tokenUsage).toBe(260 + Math.ceil(50 * 1.3)); // 200 counted, 260 reported: ratio 1.3
    cm.addMessage(turn(3, 10));
    expect(cm.tokenUsage).toBe(260 + Math.ceil(60 * 1.3));
    expect(cm.getStats()).toMatchObject({
      anchored: true,
      countedTokens: 260,
      calibration: { m: { ratio: 1.3, scale: 1.3, observations: 1, reportedTokens: 260, countedTokens: 200 } },
    });
    expect(logger.warn).not.toHaveBeenCalled();
  });

  it("never scales a count down: a counter that overcounts stays the count of later messages", () => {
    const cm = new MessageContextManager<Msg>({ model: "m", counter: fixed, limits: limits(10_000), logger: quiet() });
    cm.addMessage(turn(0, 100));
    cm.getContextForRequest();
    expect(cm.observeUsage({ prompt_tokens: 80 })).toBe(true);
    expect(cm.tokenUsage).toBe(80); // the reported figure anchors the total
    cm.addMessage(turn(1, 40));
    expect(cm.tokenUsage).toBe(120); // ratio 0.8, scale 1: later counts are not scaled down
    expect(cm.getStats().calibration.m).toMatchObject({ ratio: 0.8, scale: 1 });
  });

  it("after a trim, counts stay scaled by the model's ratio and trims plan to the scaled target", () => {
    const trims: number[] = [];
    const cm = new MessageContextManager<Msg>({
      model: "m",
      counter: fixed,
      limits: limits(1000),
      logger: quiet(),
      compaction: { onTrim: (t) => trims.push(t.tokensAfter) },
    });
    for (let i = 0; i < 6; i++) cm.addMessage(turn(i, 100));
    cm.getContextForRequest();
    expect(cm.observeUsage({ input_tokens: 900 })).toBe(true); // 600 counted: ratio 1.5; 900 > 800 trims
    expect(trims).toHaveLength(1);
    expect(cm.getStats().anchored).toBe(false); // the trim replaced the history the usage described
    expect(cm.tokenUsage).toBe(Math.ceil(cm.getStats().countedTokens * 1.5));
    expect(cm.tokenUsage).toBeLessThanOrEqual(800);
    cm.addMessage(turn(6, 100));
    expect(cm.tokenUsage).toBeLessThanOrEqual(800); // every later trim plans on scaled counts
  });

  it("ignores, with a warning, a usage with no request or after the history changed", () => {
    const logger = quiet();
    const cm = new MessageContextManager<Msg>({
      model: "m",
      counter: fixed,
      limits: limits(10_000),
      logger,
      compaction: { autoTruncate: false },
    });
    cm.addMessage(turn(0, 100));
    expect(cm.observeUsage({ prompt_tokens: 500 })).toBe(false);
    expect(logger.warn).toHaveBeenLastCalledWith(expect.stringMatching(/no request was made/));
    cm.getContextForRequest();
    cm.addMessage(turn(1, 100));
    cm.addMessage(turn(2, 100));
    cm.truncate(150);
    const before = cm.tokenUsage;
    expect(cm.observeUsage({ prompt_tokens: 500 })).toBe(false);
    expect(logger.warn).toHaveBeenLastCalledWith(expect.stringMatching(/trimmed, compacted or replaced/));
    expect(cm.tokenUsage).toBe(before);
    expect(cm.getStats().calibration).toEqual({});
    for (const change of [() => cm.setSystemPrompt("new rules"), () => cm.load([turn(0, 5)]), () => cm.clear()]) {
      cm.getContextForRequest();
      change();
      expect(cm.observeUsage({ prompt_tokens: 500 })).toBe(false);
    }
    expect(cm.getStats().calibration).toEqual({});
    cm.addMessage(turn(0, 20));
    cm.getContextForRequest();
    expect(cm.observeUsage({ inputTokens: undefined })).toBe(false);
    expect(logger.warn).toHaveBeenLastCalledWith(expect.stringMatching(/reports no input tokens/));
  });

  it("rejects bad usage with a coded error and leaves the manager as it was", () => {
    const cm = new MessageContextManager<Msg>({ model: "m", counter: fixed, limits: limits(10_000), logger: quiet() });
    cm.addMessage(turn(0, 100));
    cm.getContextForRequest();
    for (const bad of [undefined, null, "100", { tokens: 5 }, { prompt_tokens: -5 }]) {
      expect(() => cm.observeUsage(bad as never)).toThrow(expect.objectContaining({ code: expect.stringMatching(/^ERR_CTXWIN_/) }));
    }
    expect(cm.getStats()).toMatchObject({ tokenUsage: 100, anchored: false, calibration: {} });
    expect(() => new MessageContextManager({ model: "gpt-4o", calibration: {} as UsageCalibration })).toThrow(
      expect.objectContaining({ code: "ERR_CTXWIN_INVALID_ARGUMENT" }),
    );
  });

  it("a shared calibration lets a new conversation of the same model start calibrated", () => {
    const calibration = new UsageCalibration();
    const a = new MessageContextManager<Msg>({ model: "m", counter: fixed, limits: limits(10_000), calibration, logger: quiet() });
    a.addMessage(turn(0, 100));
    a.getContextForRequest();
    a.observeUsage({ input_tokens: 120 });
    const b = new MessageContextManager<Msg>({ model: "m", counter: fixed, limits: limits(10_000), calibration, logger: quiet() });
    b.addMessage(turn(0, 100));
    expect(b.tokenUsage).toBe(120);
    expect(b.canAdd(turn(1, 8000))).toBe(true);
    expect(b.canAdd(turn(1, 8300))).toBe(false); // 120 + ceil(8300 * 1.2) > 10,000
  });

  it("a real counter that undercounts a model stops undercounting after its first response", () => {
    // gpt-4o's counter standing in for a model whose tokenizer gives 25% more tokens.
    const counter = getCounter("gpt-4o");
    const cm = new MessageContextManager({ model: "some-model", counter, limits: limits(100_000), logger: quiet() });
    const text = (i: number) => `Message ${i}: ${"the quick brown fox jumps over the lazy dog ".repeat(20)}`;
    cm.addMessage({ role: "user", content: text(0) });
    const request = cm.getContextForRequest();
    const truth = (messages: readonly MessageLike[]) => Math.ceil(counter.countMessages(messages) * 1.25);
    cm.observeUsage({ prompt_tokens: truth(request) });
    for (let i = 1; i < 20; i++) cm.addMessage({ role: i % 2 ? "assistant" : "user", content: text(i) });
    const real = truth(cm.getContextForRequest());
    expect(cm.tokenUsage).toBeGreaterThanOrEqual(real);
    expect(cm.tokenUsage / real).toBeLessThan(1.01);
  });

  it("property: anchored usage is the reported figure plus the scaled counts added since", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 500 }), { minLength: 1, maxLength: 20 }),
        fc.array(fc.integer({ min: 1, max: 500 }), { maxLength: 20 }),
        fc.integer({ min: 0, max: 50_000 }),
        (before, after, reported) => {
          const cm = new MessageContextManager<Msg>({
            model: "m",
            counter: fixed,
            limits: limits(1_000_000),
            logger: quiet(),
            compaction: { autoTruncate: false },
          });
          before.forEach((t, i) => cm.addMessage(turn(i, t)));
          cm.getContextForRequest();
          expect(cm.observeUsage({ prompt_tokens: reported })).toBe(true);
          after.forEach((t, i) => cm.addMessage(turn(before.length + i, t)));
          const counted = before.reduce((a, b) => a + b, 0);
          const added = after.reduce((a, b) => a + b, 0);
          const scale = Math.max(1, reported / counted);
          expect(cm.tokenUsage).toBe(reported + (scale === 1 ? added : Math.ceil(added * scale)));
          expect(cm.tokenUsage).toBeGreaterThanOrEqual(reported + added);
        },
      ),
    );
  });
});

describe("ContextTracker.observeUsage", () => {
  it("anchors currentTokens on the usage of the request recorded by update()", () => {
    const logger = quiet();
    const tracker = new ContextTracker({ limits: limits(10_000), counter: fixed, logger });
    tracker.update([turn(0, 300), turn(1, 100)]);
    tracker.addMessage(turn(2, 40));
    expect(tracker.observeUsage({ input_tokens: 100, cache_read_input_tokens: 400 })).toBe(true); // 500 for 400 counted
    expect(tracker.currentTokens()).toBe(500 + 50);
    expect(tracker.countedTokens()).toBe(440);
    expect(tracker.calibration.get("test")).toMatchObject({ ratio: 1.25, observations: 1 });
    tracker.setTools([{ type: "function", function: { name: "f" } }]);
    expect(tracker.currentTokens()).toBe(Math.ceil(tracker.countedTokens() * 1.25));
    expect(tracker.observeUsage({ input_tokens: 999 })).toBe(false);
    expect(logger.warn).toHaveBeenLastCalledWith(expect.stringMatching(/replaced since the request/));
  });

  it("ignores a usage before any update, and rejects bad usage with a coded error", () => {
    const logger = quiet();
    const tracker = ContextTracker.forModel("gpt-4o", { logger });
    tracker.addMessage({ role: "user", content: "hi" });
    expect(tracker.observeUsage({ prompt_tokens: 10 })).toBe(false);
    expect(logger.warn).toHaveBeenCalledWith(expect.stringMatching(/no request was recorded/));
    expect(() => tracker.observeUsage({ prompt_tokens: "10" } as never)).toThrow(
      expect.objectContaining({ name: "TypeError", code: "ERR_CTXWIN_INVALID_ARGUMENT" }),
    );
    tracker.update([{ role: "user", content: "hi" }]);
    tracker.reset();
    expect(tracker.observeUsage({ prompt_tokens: 10 })).toBe(false);
  });
});
