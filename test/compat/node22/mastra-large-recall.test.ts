// Large results in a Mastra agent's tool loop with ctxwin's processor (@mastra/core 1, Node 22.13
// or later; the script is test/ts/recall/large-results.ts): each of 25 reports of 20 KB and more
// is cut on arrival and later cleared, then recalled by id and paged through by lines with the
// recall tool, and comes back byte for byte; every request is checked on the way.
import { Agent } from "@mastra/core/agent";
import { createTool } from "@mastra/core/tools";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Recall, getCounter } from "ctxwin";
import { contextProcessor, recallTool } from "ctxwin/mastra";
import { definitions, type CallOptions } from "../../ts/adapters/ai-sdk-suite.js";
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
} from "../../ts/recall/large-results.js";

const usage = {
  inputTokens: { total: 100, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 20, text: 20, reasoning: undefined },
};

describe("large results in a Mastra agent loop", () => {
  it("recalls each of 25 results of 20 KB and more byte for byte, by id and by paging lines", { timeout: 600_000 }, async () => {
    const recall = new Recall({ counter: getCounter(MODEL), maxTokens: RECALL_TOKENS });
    const processor = contextProcessor({
      model: MODEL,
      limits: LIMITS,
      onCompact: recall.onCompact,
      compaction: { maxToolResultTokens: MAX_RESULT_TOKENS },
    });
    const script = new LargeRecallScript();
    const model = new MockLanguageModelV3({
      modelId: MODEL,
      doGenerate: async (options) =>
        providerResult(script.next(providerView(options.prompt, definitions(options as unknown as CallOptions))), usage),
    });
    // A JSON report is returned as the object, the others as text.
    const fetchReport = createTool({
      id: FETCH_TOOL,
      description: "Fetch a report",
      inputSchema: z.object({ k: z.number() }),
      execute: async ({ k }) => report(k).value,
    });
    const agent = new Agent({
      id: "ops",
      name: "ops",
      instructions: SYSTEM,
      model,
      tools: { [FETCH_TOOL]: fetchReport, recall: await recallTool(recall) },
      inputProcessors: [processor],
    });
    const result = await agent.generate(TASK, { maxSteps: MAX_STEPS, modelSettings: { maxOutputTokens: RESERVED_OUTPUT } });
    expect(result.text).toBe(FINAL);
    // The agent's own record holds each recall's result as the tool returned it.
    const outputs = new Map(result.steps.flatMap((s) => s.toolResults).map((r) => [r.payload.toolCallId, r.payload.result] as const));
    expectEveryReportBack(script, (callId) => outputs.get(callId));
  });
});
