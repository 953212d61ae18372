// Large results in an AI SDK generateText tool loop with ctxwin's middleware (large-results.ts):
// each of 25 reports of 20 KB and more is cut on arrival and later cleared, then recalled by id
// and paged through by lines with the recall tool, and comes back byte for byte. The same suite
// runs with `ai` 6 (ai-sdk-large-recall.test.ts) and `ai` 7 (test/compat/node22/).
import { describe, expect, it } from "vitest";
import { Recall, getCounter } from "ctxwin";
import { contextMiddleware, recallTool } from "ctxwin/ai-sdk";
import { definitions, type AiSdk, type CallOptions } from "../adapters/ai-sdk-suite.js";
import {
  FETCH_TOOL,
  FINAL,
  LIMITS,
  MAX_RESULT_TOKENS,
  MAX_STEPS,
  MODEL,
  RECALL_TOKENS,
  RESERVED_OUTPUT,
  SYSTEM,
  TASK,
  LargeRecallScript,
  expectEveryReportBack,
  providerResult,
  providerView,
  report,
} from "./large-results.js";

type Step = { toolResults: Array<{ toolCallId: string; output?: unknown }> };

export function runAiSdkLargeRecallSuite(sdk: AiSdk): void {
  describe(`large results in an AI SDK ${sdk.major} tool loop`, () => {
    it("recalls each of 25 results of 20 KB and more byte for byte, by id and by paging lines", { timeout: 600_000 }, async () => {
      const recall = new Recall({ counter: getCounter(MODEL), maxTokens: RECALL_TOKENS });
      const middleware = contextMiddleware({
        model: MODEL,
        limits: LIMITS,
        onCompact: recall.onCompact,
        compaction: { maxToolResultTokens: MAX_RESULT_TOKENS },
      });
      const script = new LargeRecallScript();
      const model = new sdk.MockLanguageModel({
        modelId: MODEL,
        doGenerate: async (options: CallOptions) => {
          const move = script.next(providerView(options.prompt, definitions(options)));
          const usage = {
            inputTokens: { total: 100, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
            outputTokens: { total: 20, text: 20, reasoning: undefined },
          };
          return providerResult(move, usage);
        },
      });
      const tools = {
        // A JSON report is returned as the object (the AI SDK sends it as a json output), the others as text.
        [FETCH_TOOL]: sdk.tool({
          description: "Fetch a report",
          inputSchema: sdk.jsonSchema({ type: "object", properties: { k: { type: "number" } }, required: ["k"] }),
          execute: async ({ k }: { k: number }) => report(k).value,
        }),
        recall: recallTool(recall),
      };
      const result = await sdk.generateText({
        model: sdk.wrapLanguageModel({ model: model as never, middleware: middleware as never }),
        system: SYSTEM,
        prompt: TASK,
        tools,
        stopWhen: sdk.stepCountIs(MAX_STEPS),
        maxOutputTokens: RESERVED_OUTPUT,
      });
      expect(result.text).toBe(FINAL);
      const outputs = new Map((result.steps as Step[]).flatMap((s) => s.toolResults.map((r) => [r.toolCallId, r.output] as const)));
      expectEveryReportBack(script, (callId) => outputs.get(callId));
    });
  });
}
