// An AI SDK generateText tool loop with ctxwin's middleware: the model needs the first file again
// after it was cleared, calls the recall tool, and gets it back byte for byte. The same suite runs
// with `ai` 6 (ai-sdk-recall.test.ts) and with `ai` 7 (test/compat/node22/, on Node 22 or later),
// each with its major's mock model.
import { describe, expect, it } from "vitest";
import { Recall, getCounter } from "ctxwin";
import { contextMiddleware, recallTool } from "ctxwin/ai-sdk";
import { definitions, type AiSdk, type CallOptions } from "../adapters/ai-sdk-suite.js";
import { LIMITS, MODEL, RESERVED_OUTPUT, SYSTEM, TASK, toolOutput } from "../support/tool-loop.js";
import { READS, nextMove, providerResult, readProviderPrompt } from "./recall-loop.js";

type Step = { toolResults: Array<{ output?: unknown }> };

export function runAiSdkRecallSuite(sdk: AiSdk): void {
  describe(`recall in an AI SDK ${sdk.major} tool loop`, () => {
    it("reads a cleared result back, byte for byte, checking every request", async () => {
      const recall = new Recall({ counter: getCounter(MODEL), maxTokens: 4000 });
      const middleware = contextMiddleware({
        model: MODEL,
        limits: LIMITS,
        onCompact: recall.onCompact,
        compaction: { maxToolResultTokens: 4000, keepToolResults: 1 },
      });
      let call = 0;
      const model = new sdk.MockLanguageModel({
        modelId: MODEL,
        doGenerate: async (options: CallOptions) => {
          call++;
          const { results, callIds } = readProviderPrompt(options.prompt, definitions(options));
          const move = nextMove(call, results, callIds);
          const usage = {
            inputTokens: { total: 100, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
            outputTokens: { total: 20, text: 20, reasoning: undefined },
          };
          return providerResult(move, usage);
        },
      });
      const tools = {
        read_file: sdk.tool({
          description: "Read a file of the repository",
          inputSchema: sdk.jsonSchema({
            type: "object",
            properties: { path: { type: "string" }, step: { type: "number" } },
            required: ["path", "step"],
          }),
          execute: async ({ step }: { step: number }) => toolOutput(step),
        }),
        recall: recallTool(recall),
      };
      const result = await sdk.generateText({
        model: sdk.wrapLanguageModel({ model: model as never, middleware: middleware as never }),
        system: SYSTEM,
        prompt: TASK,
        tools,
        stopWhen: sdk.stepCountIs(READS + 5),
        maxOutputTokens: RESERVED_OUTPUT,
      });
      expect(call).toBe(READS + 2);
      expect((result.steps.at(-2) as Step | undefined)?.toolResults[0]?.output).toBe(toolOutput(1));
      expect(() => recallTool({} as Recall)).toThrow(expect.objectContaining({ name: "TypeError", code: "ERR_CTXWIN_INVALID_ARGUMENT" }));
    });
  });
}
