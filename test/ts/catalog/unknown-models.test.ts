// A model id nothing resolves: ContextLimits.forModel keeps the default limits with a warning; what
// manages a window for the caller (MessageContextManager and the three framework adapters) fails
// at once with a coded error naming the closest known ids, unless the caller gave the window or
// asked for the defaults.
import { ContextLimits, MessageContextManager } from "ctxwin";
import { ModelRegistry } from "ctxwin/models";
import { contextMiddleware as aiSdkMiddleware, contextPrepareStep } from "ctxwin/ai-sdk";
import { contextMiddleware as langchainMiddleware } from "ctxwin/langchain";
import { ContextSession, contextInputFilter } from "ctxwin/openai-agents";
import { describe, expect, it, vi } from "vitest";

const unknown = (closest: string) =>
  expect.objectContaining({
    name: "RangeError",
    code: "ERR_CTXWIN_UNKNOWN_MODEL",
    message: expect.stringContaining(`(closest known: ${closest}`),
  });
const quiet = { warn: () => {} };

describe("an unknown model id", () => {
  it("gets ContextLimits.forModel's default limits and one warning naming the closest known ids", () => {
    const warn = vi.fn();
    const limits = ContextLimits.forModel("claude-opus-4-9", {}, { logger: { warn } });
    expect([limits.known, limits.maxTokens]).toEqual([false, 128000]);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[0]).toMatch(
      /unknown model "claude-opus-4-9" \(closest known: claude-opus-4-8, claude-opus-4-7, claude-opus-4-6\)/,
    );
    expect(() => ContextLimits.forModel("claude-opus-4-9", {}, { unknownModel: "error" })).toThrow(unknown("claude-opus-4-8"));
    expect(() => ContextLimits.forModel("gpt-4o", {}, { unknownModel: "never" as never })).toThrow(
      expect.objectContaining({ name: "RangeError", code: "ERR_CTXWIN_OUT_OF_RANGE" }),
    );
  });

  it("stops a MessageContextManager unless the window is given or the defaults asked for", () => {
    expect(() => new MessageContextManager({ model: "gpt-5.6" })).toThrow(unknown("gpt-5.5"));
    expect(() => new MessageContextManager({ model: "gpt-5.6" })).toThrow(
      /options\.model: unknown model "gpt-5\.6".*register it \(registerModel, registerCatalog\), give its window \(contextLength\), or pass unknownModel: "warn"/,
    );
    expect(
      new MessageContextManager({ model: "gpt-5.6", limits: { contextLength: 400_000, maxOutputTokens: 128_000 } }).limits.maxTokens,
    ).toBe(400_000);
    expect(new MessageContextManager({ model: "gpt-5.6", limits: { maxTokens: 8000 }, logger: quiet }).limits.maxTokens).toBe(8000);
    const warn = vi.fn();
    const lenient = new MessageContextManager({ model: "gpt-5.6", unknownModel: "warn", logger: { warn } });
    expect(lenient.limits.maxTokens).toBe(128000);
    expect(warn.mock.calls.some(([message]) => /unknown model "gpt-5\.6"/.test(message as string))).toBe(true);
    expect(() => new MessageContextManager({ model: "gpt-4o", unknownModel: "ignore" as never })).toThrow(
      expect.objectContaining({ name: "RangeError", code: "ERR_CTXWIN_OUT_OF_RANGE" }),
    );
    // A registered model is known.
    const registry = new ModelRegistry();
    registry.register("gpt-5.6", { contextLength: 500_000 });
    expect(
      new MessageContextManager({ model: "gpt-5.6", limits: ContextLimits.forModel("gpt-5.6", {}, { registry }) }).limits.maxTokens,
    ).toBe(500_000);
  });

  it("stops each framework adapter when it is made", () => {
    for (const make of [
      () => aiSdkMiddleware({ model: "llama-5-70b" }),
      () => contextPrepareStep({ model: "llama-5-70b" }),
      () => langchainMiddleware({ model: "llama-5-70b" }),
      () => contextInputFilter({ model: "llama-5-70b" }),
      () => new ContextSession({ model: "llama-5-70b" }),
    ]) {
      expect(make).toThrow(
        expect.objectContaining({
          code: "ERR_CTXWIN_UNKNOWN_MODEL",
          message: expect.stringMatching(/^options\.model: unknown model "llama-5-70b"/),
        }),
      );
    }
    expect(aiSdkMiddleware({ model: "llama-5-70b", unknownModel: "warn", logger: quiet }).fitter.limits.maxTokens).toBe(128000);
    expect(aiSdkMiddleware({ model: "llama-5-70b", limits: { contextLength: 131072 } }).fitter.limits.maxTokens).toBe(131072);
    // The case: Ollama's llama2 keeps a 4,096-token window, not the 128,000 default.
    expect(aiSdkMiddleware({ model: "llama2" }).fitter.limits.maxTokens).toBe(4096);
  });
});

describe("the stats of a manager", () => {
  it("say when the response gets less than the model may write", () => {
    const llama2 = new MessageContextManager({ model: "llama2" }).getStats().limits;
    expect(llama2).toMatchObject({ window: 4096, responseReserve: 819, modelMaxOutput: 4096, reservedTokens: 1000, effectiveLimit: 2277 });
    expect(llama2.responseReserveNote).toMatch(/^819 tokens are reserved for the response, less than the 4,096 llama2 may write/);
    const opus = new MessageContextManager({ model: "us.anthropic.claude-opus-4-7-v1:0" }).getStats().limits;
    expect(opus).toEqual({
      window: 1_000_000,
      responseReserve: 128_000,
      modelMaxOutput: 128_000,
      reservedTokens: 1000,
      effectiveLimit: 871_000,
    });
  });
});
