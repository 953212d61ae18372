// Cache-aware compaction timing through the public API: where a trim pays for each provider's
// prices, and a manager that times its trims so, checked at every request of a long tool loop:
// never over the window, billed exactly, and never dearer than trimming at trimAt.
import { describe, expect, it } from "vitest";
import { ContextLimits, MessageContextManager, TruncationMode, type MessageLike, type TokenCounter } from "ctxwin";
import { CompactionTiming } from "ctxwin/cost";

type Msg = MessageLike & { tool_calls?: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }> };

const size = (m: MessageLike) =>
  (typeof m.content === "string" ? m.content.length : 0) + JSON.stringify((m as Msg).tool_calls ?? "").length;
const chars: TokenCounter = {
  count: (text) => text.length,
  countMessages: (messages) => messages.reduce((sum, m) => sum + size(m), 0),
  countEachMessage: (messages: readonly MessageLike[]) => Uint32Array.from(messages, size),
} as TokenCounter;

const SONNET = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
const GPT4O = { input: 2.5, output: 10, cacheRead: 1.25, cacheWrite: 2.5 };

describe("CompactionTiming", () => {
  it("waits to the window's edge on Anthropic's prices, trims a little past trimAt on OpenAI's, keeps trimAt without a cache", () => {
    const anthropic = new CompactionTiming("anthropic", SONNET);
    const openai = new CompactionTiming("openai", GPT4O);
    const none = new CompactionTiming("none", GPT4O);
    // No request yet: no growth known, trimAt stands.
    expect(anthropic.trimLine(48_000, 28_800, 38_400)).toBe(38_400);
    for (const t of [anthropic, openai, none]) t.observe(1000, 30_000, false);
    expect(anthropic.trimLine(48_000, 28_800, 38_400)).toBe(47_000);
    const h = 28_800 + Math.sqrt((2 * 28_800 * 2.5 * 1000) / 1.25);
    expect(openai.trimLine(48_000, 28_800, 38_400)).toBeCloseTo(h, 6);
    expect(h).toBeGreaterThan(38_400);
    expect(none.trimLine(48_000, 28_800, 38_400)).toBe(38_400);
    // A trim that left 5,000 tokens: rewriting that little pays back sooner, but the line stays
    // above the target (a trim there would remove nothing).
    anthropic.observe(25_000, 5000, true);
    expect(anthropic.growth).toBe(1000);
    const small = 5000 + Math.sqrt((2 * 5000 * 3.75 * 1000) / 0.3);
    expect(anthropic.trimLine(48_000, 28_800, 38_400)).toBe(Math.max(28_800 + 1000, small));
  });
});

function run(prices: typeof SONNET, provider: "anthropic" | "openai", timing: "threshold" | "cache-aware") {
  const cm = new MessageContextManager<Msg>({
    model: "claude-sonnet-4-5",
    counter: chars,
    mode: TruncationMode.SMART,
    limits: new ContextLimits({ model: "claude-sonnet-4-5", maxTokens: 30_000, maxOutputTokens: 0, reservedTokens: 0 }),
    cost: { provider, prices, now: () => 0 },
    logger: { warn: () => {} },
    compaction: { timing: timing },
  });
  cm.setSystemPrompt("You are a careful coding agent. ".repeat(50));
  for (let i = 0; i < 200; i++) {
    cm.addMessage({ role: "user", content: `Turn ${i}: look at module ${i % 17}.` });
    cm.getContextForRequest();
    cm.addMessage({
      role: "assistant",
      content: null,
      tool_calls: [{ id: `c${i}`, type: "function", function: { name: "read_file", arguments: `{"path":"m${i}.ts"}` } }],
    });
    cm.addMessage({ role: "tool", tool_call_id: `c${i}`, content: `line ${i}\n`.repeat(40 + ((i * 37) % 90)) });
    cm.getContextForRequest();
    const cost = cm.getStats().cost;
    expect(cm.tokenUsage).toBeLessThanOrEqual(cm.limits.effectiveLimit);
    expect(cost).toBeDefined();
    const last = cost?.requests.at(-1);
    expect((last?.cachedTokens ?? 0) + (last?.writtenTokens ?? 0) + (last?.uncachedTokens ?? 0)).toBe(cm.tokenUsage);
    cm.addMessage({ role: "assistant", content: `Done with turn ${i}.` });
  }
  return cm.getStats().cost?.session;
}

describe("a manager with cache-aware timing", () => {
  for (const [name, prices, provider] of [
    ["Claude Sonnet", SONNET, "anthropic"],
    ["GPT-4o", GPT4O, "openai"],
  ] as const) {
    it(`stays in the window at every request and costs no more than trimming at trimAt (${name} prices)`, () => {
      const threshold = run(prices, provider, "threshold");
      const aware = run(prices, provider, "cache-aware");
      expect(threshold && aware).toBeTruthy();
      expect(aware?.dollars).toBeLessThanOrEqual(threshold?.dollars ?? 0);
    });
  }

  it("bills the session on its own and refuses a bad timing with a coded error", () => {
    const cm = new MessageContextManager({ model: "claude-sonnet-4-5", counter: chars, compaction: { timing: "cache-aware" } });
    cm.addMessage({ role: "user", content: "hi" });
    cm.getContextForRequest();
    expect(cm.getStats().cost?.session.requests).toBe(1);
    expect(() => new MessageContextManager({ model: "gpt-4o", counter: chars, compaction: { timing: "lazy" as never } })).toThrow(
      expect.objectContaining({ code: "ERR_CTXWIN_OUT_OF_RANGE" }),
    );
    expect(() => new MessageContextManager({ model: "gpt-4o", counter: chars, compaction: { timing: 1 as never } })).toThrow(
      expect.objectContaining({ code: "ERR_CTXWIN_INVALID_ARGUMENT" }),
    );
  });
});
