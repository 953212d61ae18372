// MessageContextManager's request with the system prompt apart, as the AI SDK takes it:
// generateText({ system, messages }) gets the system prompt once, as `system`, and prints no
// "System messages in the prompt or messages fields can be a security risk" warning, which it
// prints for the request with the system prompt inside `messages`.
import { generateText, type ModelMessage } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MessageContextManager } from "ctxwin";

const SYSTEM = "You are a careful coding agent.";

function mockModel() {
  return new MockLanguageModelV3({
    doGenerate: async () => ({
      content: [{ type: "text", text: "Done." }],
      finishReason: { unified: "stop", raw: undefined },
      usage: {
        inputTokens: { total: 40, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: 2, text: 2, reasoning: undefined },
      },
      warnings: [],
    }),
  });
}

function manager(): MessageContextManager<ModelMessage> {
  const context = new MessageContextManager<ModelMessage>({ model: "gpt-4o" });
  context.setSystemPrompt(SYSTEM);
  context.addMessage({ role: "user", content: "Fix the date bug in src/util/dates.ts" });
  return context;
}

describe("getContextForRequest({ separateSystem: true })", () => {
  afterEach(() => vi.restoreAllMocks());

  it("hands the system prompt apart, and the AI SDK prints no system-message warning", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const context = manager();
    const model = mockModel();
    const { system, messages } = context.getContextForRequest({ separateSystem: true });
    expect(system).toBe(SYSTEM);
    expect(messages.map((m) => m.role)).toEqual(["user"]);
    const { response, usage } = await generateText({ model, system, messages });
    expect(warn.mock.calls.filter((c) => String(c[0]).includes("System messages"))).toEqual([]);
    expect(model.doGenerateCalls[0]?.prompt.filter((m) => m.role === "system")).toEqual([{ role: "system", content: SYSTEM }]);
    for (const m of response.messages) context.addMessage(m);
    expect(context.observeUsage(usage)).toBe(true); // the usage belongs to this request
  });

  it("the request with the system prompt inside messages makes the AI SDK warn (the control)", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    await generateText({ model: mockModel(), messages: manager().getContextForRequest() as ModelMessage[] });
    expect(warn.mock.calls.filter((c) => String(c[0]).includes("System messages"))).toHaveLength(1);
  });

  it("gives system undefined without a system prompt, and rejects bad options with coded errors", () => {
    const context = new MessageContextManager<ModelMessage>({ model: "gpt-4o" });
    context.addMessage({ role: "user", content: "Hello" });
    expect(context.getContextForRequest({ separateSystem: true })).toEqual({
      system: undefined,
      messages: [{ role: "user", content: "Hello" }],
    });
    expect(() => context.getContextForRequest(42 as never)).toThrow(
      expect.objectContaining({ name: "TypeError", code: "ERR_CTXWIN_INVALID_ARGUMENT" }),
    );
    expect(() => context.getContextForRequest({ separateSystem: "yes" } as never)).toThrow(/options.separateSystem must be a boolean/);
  });
});
