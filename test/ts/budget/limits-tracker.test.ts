// Seeds 001 / 003 / 004: context limits, budgets and the tracker.
import { describe, expect, it, vi } from "vitest";
import { ContextLimits, TiktokenCounter, type MessageLike, type TokenCounter } from "ctxwin";
import { ContextBudget, ContextTracker } from "ctxwin/budget";
import { ModelRegistry } from "ctxwin/models";

/** A counter whose messages carry their own token counts, for exact scenario numbers. */
const fixed: TokenCounter = {
  count: (text) => text.length,
  countMessages: (messages) => messages.reduce((sum, m) => sum + ((m as MessageLike & { tokens?: number }).tokens ?? 0), 0),
};
const msg = (tokens: number): MessageLike => ({ role: "user", content: "x", tokens }) as MessageLike;

describe("ContextLimits", () => {
  it("knows claude-3-opus: 200000 tokens, 4096 output", () => {
    const limits = ContextLimits.forModel("claude-3-opus");
    expect(limits.maxTokens).toBe(200000);
    expect(limits.maxOutputTokens).toBe(4096);
    expect(limits.known).toBe(true);
  });

  it("gives defaults and one warning for an unknown model", () => {
    const warn = vi.fn();
    const limits = ContextLimits.forModel("custom-model", {}, { logger: { warn } });
    expect(limits.known).toBe(false);
    expect(limits.maxTokens).toBe(128000);
    expect(limits.maxOutputTokens).toBe(25600); // 20% reserved for the response
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[0]).toMatch(/unknown model "custom-model"/);
  });

  it("computes the effective limit: 100000 - 4096 - 1000 = 94904", () => {
    expect(new ContextLimits({ model: "m", maxTokens: 100000, maxOutputTokens: 4096, reservedTokens: 1000 }).effectiveLimit).toBe(94904);
  });

  it("matches dated ids and provider prefixes", () => {
    for (const [id, window] of [
      ["gpt-4o-2024-08-06", 128000],
      ["openai/gpt-4o", 128000],
      ["anthropic/claude-3-opus", 200000],
      ["anthropic/claude-3.5-sonnet", 200000],
      ["gpt-4", 8192],
      ["gemini-2.5-pro", 1048576],
      ["meta-llama/llama-3.3-70b-instruct", 128000],
      ["deepseek-chat", 128000],
      ["qwen-max", 32768],
      ["gpt-5-mini", 400000],
      ["o3-mini", 200000],
    ] as const) {
      expect(ContextLimits.forModel(id).maxTokens).toBe(window);
    }
  });

  it("clamps maxTokens to the model's hard limit and reads other tools' config shapes", () => {
    expect(ContextLimits.forModel("gpt-4", { maxTokens: 1_000_000 }).maxTokens).toBe(8192);
    expect(ContextLimits.forModel("gpt-4o", { maxTokens: 50000 }).maxTokens).toBe(50000);
    const openrouter = ContextLimits.forModel(
      "acme/llm-7",
      { context_length: 32768, max_completion_tokens: 2048 },
      { logger: { warn: () => {} } },
    );
    expect([openrouter.maxTokens, openrouter.maxOutputTokens, openrouter.known]).toEqual([32768, 2048, true]);
    const aiSdk = ContextLimits.forModel("acme/llm-8", { contextLength: 16000, maxOutputTokens: 1000 });
    expect([aiSdk.maxTokens, aiSdk.maxOutputTokens]).toEqual([16000, 1000]);
    // No published output limit: 20% for the response.
    const registry = new ModelRegistry();
    registry.register("acme-no-output", { contextLength: 131072 });
    expect(ContextLimits.forModel("acme-no-output", {}, { registry }).maxOutputTokens).toBe(Math.floor(131072 * 0.2));
  });

  it("keeps the model's own output limit beside the share it reserves", () => {
    // Claude Opus 4.7: 128,000 output in a 1,000,000 window, reserved as given.
    const opus = ContextLimits.forModel("us.anthropic.claude-opus-4-7-v1:0");
    expect([opus.maxTokens, opus.maxOutputTokens, opus.modelMaxOutput, opus.effectiveLimit]).toEqual([
      1_000_000, 128_000, 128_000, 871_000,
    ]);
    expect(opus.resolved?.id).toBe("claude-opus-4-7");
    // Llama 2 may write its whole 4,096-token window: ctxwin reserves 20% and says the model's limit.
    const llama2 = ContextLimits.forModel("llama2");
    expect([llama2.maxTokens, llama2.maxOutputTokens, llama2.modelMaxOutput]).toEqual([4096, 819, 4096]);
    // A cap below twice the output limit: 20% of the cap, the model's limit kept.
    const capped = ContextLimits.forModel("gpt-4o", { maxTokens: 3000 });
    expect([capped.maxOutputTokens, capped.modelMaxOutput]).toEqual([600, 16384]);
  });

  it("lists the catalog, registered models first, each resolving to its own limits", () => {
    const registry = new ModelRegistry();
    const builtin = registry.list();
    expect(builtin.length).toBeGreaterThan(600);
    expect(builtin[0]).toMatchObject({
      provider: "anthropic",
      id: "claude-3-opus",
      contextWindow: 200000,
      maxOutput: 4096,
      source: "compatibility",
    });
    for (const row of builtin) {
      const limits = ContextLimits.forModel(`${row.provider}/${row.id}`, {}, { registry });
      expect(limits.known).toBe(true);
    }
    registry.register("gpt-4o", { contextLength: 64000 });
    const listed = registry.list();
    expect(listed[0]).toMatchObject({ provider: "custom", id: "gpt-4o", contextWindow: 64000, maxOutput: 0, source: "registered" });
    expect(listed).toHaveLength(builtin.length + 1);
    expect(ContextLimits.forModel("gpt-4o", {}, { registry }).maxTokens).toBe(64000);
    expect(ContextLimits.forModel("gpt-4o").maxTokens).toBe(128000); // the default registry is untouched
  });

  it("lets users register their own models", () => {
    const registry = new ModelRegistry();
    registry.register("Acme/Corp-LLM", { context_length: 65536, max_output_tokens: 8192 });
    const limits = ContextLimits.forModel(
      "corp-llm",
      {},
      {
        registry,
        logger: {
          warn: () => {
            throw new Error("no warning expected");
          },
        },
      },
    );
    expect([limits.maxTokens, limits.maxOutputTokens]).toEqual([65536, 8192]);
    expect(() => registry.register("x", {})).toThrow(TypeError);
    expect(() => registry.register("x", { contextLength: 100, maxOutputTokens: 100 })).toThrow(RangeError);
  });

  it("rejects bad values", () => {
    expect(() => ContextLimits.forModel(42 as never)).toThrow(TypeError);
    expect(() => ContextLimits.forModel("gpt-4", { maxTokens: -5 })).toThrow(RangeError);
    expect(() => ContextLimits.forModel("gpt-4", { maxTokens: Number.NaN })).toThrow(RangeError);
    expect(() => new ContextLimits({ model: "m", maxTokens: 10, maxOutputTokens: 1.5 })).toThrow(RangeError);
  });
});

describe("ContextBudget", () => {
  it("has 89000 available of 100000 after system 2000, tools 5000, response 4000", () => {
    const budget = new ContextBudget(100000).update({ systemPrompt: 2000, tools: 5000, responseReserve: 4000 });
    expect(budget.available).toBe(89000);
    expect(budget.conversationBudget).toBe(89000);
    budget.update({ conversation: 9000 });
    expect(budget.remaining).toBe(80000);
    expect(() => budget.update({ tools: -1 })).toThrow(RangeError);
  });
});

describe("ContextTracker", () => {
  it("forModel('gpt-4') has the model's limits and a counter", () => {
    const tracker = ContextTracker.forModel("gpt-4");
    expect(tracker.limits.maxTokens).toBe(8192);
    expect(tracker.counter.count("hello")).toBe(1);
  });

  it("setSystemPrompt returns its tokens and updates the budget", () => {
    const tracker = ContextTracker.forModel("gpt-4o");
    const tokens = tracker.setSystemPrompt("You are a helpful assistant.");
    const counter = new TiktokenCounter({ model: "gpt-4o" });
    expect(tokens).toBe(3 + counter.count("system") + counter.count("You are a helpful assistant."));
    expect(tracker.budget.systemPrompt).toBe(tokens);
  });

  it("update(messages) reflects 10 messages totaling 5000 tokens; addMessage adds incrementally", () => {
    const tracker = new ContextTracker({
      limits: new ContextLimits({ model: "m", maxTokens: 20000, maxOutputTokens: 0, reservedTokens: 0 }),
      counter: fixed,
    });
    tracker.update(Array.from({ length: 10 }, () => msg(500)));
    expect(tracker.currentTokens()).toBe(5000);
    expect(tracker.budget.conversation).toBe(5000);
    expect(tracker.addMessage(msg(250))).toBe(250);
    expect(tracker.currentTokens()).toBe(5250);
  });

  it("detects overflow: limit 10000, usage 12000 -> exceeds, overflow 2000", () => {
    const tracker = new ContextTracker({
      limits: new ContextLimits({ model: "m", maxTokens: 10000, maxOutputTokens: 0, reservedTokens: 0 }),
      counter: fixed,
    });
    tracker.update([msg(12000)]);
    expect(tracker.exceedsLimit()).toBe(true);
    expect(tracker.overflowAmount()).toBe(2000);
    expect(tracker.availableTokens()).toBe(0);
  });

  it("reports usage: 75000 of 100000 is 75.0%", () => {
    const tracker = new ContextTracker({
      limits: new ContextLimits({ model: "m", maxTokens: 100000, maxOutputTokens: 0, reservedTokens: 0 }),
      counter: fixed,
    });
    tracker.update([msg(75000)]);
    expect(tracker.usagePercentage()).toBe(75);
    expect(tracker.availableTokens()).toBe(25000);
    tracker.reset();
    expect(tracker.currentTokens()).toBe(0);
  });
});

describe("ContextLimits with a capped window", () => {
  it("reserves 20% when the model's output limit would take over half of the cap", () => {
    const limits = ContextLimits.forModel("gpt-4o", { maxTokens: 3000 });
    expect(limits.maxTokens).toBe(3000);
    expect(limits.maxOutputTokens).toBe(600);
    expect(limits.effectiveLimit).toBe(1400);
    expect(ContextLimits.forModel("gpt-4").maxOutputTokens).toBe(4096); // exactly half: the published limit
  });
});
