// ctxwin/ai-sdk's cache hints in the AI SDK's real tool loop (`ai` 6, MockLanguageModelV3):
// composed after contextMiddleware, every call of a 60-step loop reaches the provider with at most
// 4 Anthropic breakpoints, on the last tool, the system prompt, the compaction boundary when
// there is one, and the newest message; OpenAI calls carry one promptCacheKey for the session.
import { describe, expect, it } from "vitest";
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { cacheHintsMiddleware, contextMiddleware, withAnthropicCacheControl } from "ctxwin/ai-sdk";
import { openAIPromptCacheKey } from "ctxwin/cost";
import { FINAL, LIMITS, MODEL, RESERVED_OUTPUT, STEPS, SYSTEM, TASK, toolOutput } from "../support/tool-loop.js";

type Marked = { providerOptions?: { anthropic?: { cacheControl?: unknown }; openai?: { promptCacheKey?: unknown } } };
type Call = {
  prompt: Array<{ role: string; content: unknown } & Marked>;
  tools?: Array<{ name: string } & Marked>;
  providerOptions?: Marked["providerOptions"];
};

const usage = {
  inputTokens: { total: 100, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 20, text: 20, reasoning: undefined },
};
const tools = {
  read_file: tool({
    description: "Read a file of the repository",
    inputSchema: jsonSchema<{ path: string; step: number }>({
      type: "object",
      properties: { path: { type: "string" }, step: { type: "number" } },
      required: ["path", "step"],
    }),
    execute: async ({ step }: { step: number }) => toolOutput(step),
  }),
};

function loopModel() {
  let step = 0;
  return new MockLanguageModelV3({
    modelId: MODEL,
    doGenerate: async () => {
      step++;
      if (step > STEPS)
        return { content: [{ type: "text", text: FINAL }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] };
      return {
        content: [
          {
            type: "tool-call",
            toolCallId: `call_${step}`,
            toolName: "read_file",
            input: JSON.stringify({ path: `src/module${step}.ts`, step }),
          },
        ],
        finishReason: { unified: "tool-calls", raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
}

const isMarked = (item: Marked | undefined) => item?.providerOptions?.anthropic?.cacheControl !== undefined;

describe("ctxwin/ai-sdk cache hints", () => {
  it("marks every call of a tool loop: last tool, system prompt, compaction boundary, newest message, at most 4", async () => {
    const model = loopModel();
    const wrapped = wrapLanguageModel({
      model,
      middleware: [contextMiddleware({ model: MODEL, limits: LIMITS }), cacheHintsMiddleware({ provider: "anthropic", ttl: "1h" })],
    });
    const result = await generateText({
      model: wrapped,
      system: SYSTEM,
      prompt: TASK,
      tools,
      stopWhen: stepCountIs(STEPS + 5),
      maxOutputTokens: RESERVED_OUTPUT,
    });
    expect(result.text).toBe(FINAL);
    const calls = model.doGenerateCalls as unknown as Call[];
    expect(calls).toHaveLength(STEPS + 1);
    let boundaries = 0;
    for (const call of calls) {
      const { prompt } = call;
      const count = prompt.filter(isMarked).length + (call.tools ?? []).filter(isMarked).length;
      expect(count).toBeLessThanOrEqual(4);
      expect(prompt[prompt.length - 1]?.providerOptions?.anthropic?.cacheControl).toEqual({ type: "ephemeral", ttl: "1h" });
      expect(prompt[0]?.role).toBe("system");
      expect(isMarked(prompt[0])).toBe(true);
      expect(isMarked(call.tools?.[call.tools.length - 1])).toBe(true);
      // The last message compaction wrote (an omission marker, a summary, a cleared result).
      const marker = prompt.findLastIndex((m) =>
        /\[\d+ messages omitted\]|Summary of the \d+ earlier|\[tool result cleared: /.test(JSON.stringify(m.content)),
      );
      if (marker > 0) {
        boundaries++;
        expect(isMarked(prompt[marker])).toBe(true);
      }
    }
    // The fitted loop trims: some calls carry the omission marker, and it is a breakpoint there.
    expect(boundaries).toBeGreaterThan(0);
  });

  it("gives every OpenAI call of a session the same promptCacheKey", async () => {
    const model = loopModel();
    const wrapped = wrapLanguageModel({
      model,
      middleware: [contextMiddleware({ model: MODEL, limits: LIMITS }), cacheHintsMiddleware({ provider: "openai", sessionId: "run-7" })],
    });
    await generateText({
      model: wrapped,
      system: SYSTEM,
      prompt: TASK,
      tools,
      stopWhen: stepCountIs(STEPS + 5),
      maxOutputTokens: RESERVED_OUTPUT,
    });
    const calls = model.doGenerateCalls as unknown as Call[];
    for (const call of calls) expect(call.providerOptions?.openai?.promptCacheKey).toBe(openAIPromptCacheKey("run-7"));
  });

  it("keeps the caller's messages and refuses bad options with coded errors", () => {
    const messages = [
      { role: "system", content: "s" },
      { role: "user", content: "u", providerOptions: { anthropic: { cacheControl: { type: "ephemeral" } } } },
      { role: "assistant", content: "a" },
    ];
    const copy = structuredClone(messages);
    const { messages: out } = withAnthropicCacheControl(messages);
    expect(messages).toEqual(copy);
    expect(out.filter(isMarked)).toHaveLength(3);
    expect(() => withAnthropicCacheControl("x" as never)).toThrow(expect.objectContaining({ code: "ERR_CTXWIN_INVALID_ARGUMENT" }));
    expect(() => withAnthropicCacheControl(messages, { ttl: "2h" as never })).toThrow(RangeError);
    expect(() => cacheHintsMiddleware({ provider: "gemini" as never })).toThrow(
      expect.objectContaining({ code: "ERR_CTXWIN_OUT_OF_RANGE" }),
    );
    expect(() => cacheHintsMiddleware({ provider: "openai" })).toThrow(TypeError);
  });
});
