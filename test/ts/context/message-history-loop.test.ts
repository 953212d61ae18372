// The example chat agent (examples/message-history-loop.ts) on AI SDK generateText with a mock
// model: its history stays inside the window and every request is a valid conversation.
import { jsonSchema, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { createChatAgent } from "../../../examples/message-history-loop.js";

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
type Prompt = Parameters<MockLanguageModelV3["doGenerate"]>[0]["prompt"];

describe("chat agent with MessageContextManager", () => {
  it("trims old turns between requests, keeping tool calls with their results", async () => {
    const prompts: Prompt[] = [];
    let step = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async ({ prompt }) => {
        prompts.push(prompt);
        step++;
        const last = prompt[prompt.length - 1];
        if (last?.role === "user") {
          return {
            content: [{ type: "tool-call", toolCallId: `call_${step}`, toolName: "lookup", input: JSON.stringify({ q: step }) }],
            finishReason: { unified: "tool-calls", raw: undefined },
            usage,
            warnings: [],
          };
        }
        return {
          content: [{ type: "text", text: `Answer ${step}: ${"details ".repeat(40)}` }],
          finishReason: { unified: "stop", raw: undefined },
          usage,
          warnings: [],
        };
      },
    });
    const lookup = tool({
      description: "Look something up",
      inputSchema: jsonSchema<{ q: number }>({ type: "object", properties: { q: { type: "number" } }, required: ["q"] }),
      execute: async ({ q }) => `result ${q}: ${"data ".repeat(60)}`,
    });
    const trims: number[] = [];
    const agent = createChatAgent({
      model,
      modelId: "gpt-4o",
      system: "You are terse.",
      tools: { lookup },
      limits: { maxTokens: 3000 },
      onTrim: (e) => trims.push(e.removed.length),
    });
    for (let i = 0; i < 15; i++) expect(await agent.send(`Question ${i}`)).toMatch(/^Answer/);

    expect(trims.length).toBeGreaterThan(0);
    expect(agent.context.tokenUsage).toBeLessThanOrEqual(agent.context.limits.effectiveLimit);
    for (const prompt of prompts) {
      expect(prompt[0]).toMatchObject({ role: "system", content: "You are terse." });
      const calls = new Set<string>();
      for (const message of prompt) {
        if (!Array.isArray(message.content)) continue;
        for (const part of message.content) {
          if (part.type === "tool-call") calls.add(part.toolCallId);
          if (part.type === "tool-result") expect(calls.has(part.toolCallId)).toBe(true);
        }
      }
    }
  });
});
