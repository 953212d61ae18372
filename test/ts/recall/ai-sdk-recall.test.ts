// An AI SDK 6 generateText tool loop with ctxwin's middleware: the model needs the first file
// again after it was cleared, calls the recall tool, and gets it back byte for byte.
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { Recall, getCounter } from "ctxwin";
import { contextMiddleware, recallTool } from "ctxwin/ai-sdk";
import { LIMITS, MODEL, RESERVED_OUTPUT, SYSTEM, TASK, toolOutput } from "../support/tool-loop.js";
import { READS, nextMove } from "./recall-loop.js";

type Part = { type: string; toolCallId?: string; output?: { type: string; value: unknown } };

describe("recall in an AI SDK tool loop", () => {
  it("reads a cleared result back, byte for byte, checking every request", async () => {
    const recall = new Recall({ counter: getCounter(MODEL), maxTokens: 4000 });
    const middleware = contextMiddleware({ model: MODEL, limits: LIMITS, maxToolResultTokens: 4000, keepToolResults: 1, onCompact: recall.onCompact });
    let call = 0;
    const model = new MockLanguageModelV3({
      modelId: MODEL,
      doGenerate: async (options: { prompt: Array<{ content: unknown }> }) => {
        call++;
        const results = new Map<string, string>();
        const callIds: string[] = [];
        for (const message of options.prompt) {
          for (const part of (Array.isArray(message.content) ? message.content : []) as Part[]) {
            if (part.type === "tool-call") callIds.push(part.toolCallId as string);
            if (part.type === "tool-result") results.set(part.toolCallId as string, String(part.output?.value));
          }
        }
        const move = nextMove(call, results, callIds);
        const usage = { inputTokens: { total: 100, noCache: undefined, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 20, text: 20, reasoning: undefined } };
        if (move.kind === "final") return { content: [{ type: "text", text: move.text }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] };
        const input = move.kind === "read" ? { path: `src/module${move.step}.ts`, step: move.step } : { id: move.id };
        return {
          content: [{ type: "tool-call", toolCallId: move.callId, toolName: move.kind === "read" ? "read_file" : "recall", input: JSON.stringify(input) }],
          finishReason: { unified: "tool-calls", raw: undefined },
          usage,
          warnings: [],
        };
      },
    } as never);
    const tools = {
      read_file: tool({
        description: "Read a file of the repository",
        inputSchema: jsonSchema<{ path: string; step: number }>({ type: "object", properties: { path: { type: "string" }, step: { type: "number" } }, required: ["path", "step"] }),
        execute: async ({ step }) => toolOutput(step),
      }),
      recall: recallTool(recall),
    };
    const result = await generateText({ model: wrapLanguageModel({ model, middleware }), system: SYSTEM, prompt: TASK, tools, stopWhen: stepCountIs(READS + 5), maxOutputTokens: RESERVED_OUTPUT });
    expect(call).toBe(READS + 2);
    expect(result.steps.at(-2)?.toolResults[0]?.output).toBe(toolOutput(1));
    expect(() => recallTool({} as Recall)).toThrow(expect.objectContaining({ name: "TypeError", code: "ERR_CTXWIN_INVALID_ARGUMENT" }));
  });
});
