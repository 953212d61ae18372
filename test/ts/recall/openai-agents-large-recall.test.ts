// Large results in an OpenAI Agents SDK run with ctxwin's input filter (large-results.ts): each
// of 25 reports of 20 KB and more is cut on arrival and later cleared, then recalled by id and
// paged through by lines with the recall tool, and comes back byte for byte. The main suite runs
// it with @openai/agents 0.14 on Node 20; test/compat/node22/ runs this file again with 0.20.
import { Agent, Runner, Usage, tool, type Model, type ModelRequest, type ModelResponse } from "@openai/agents";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Recall, getCounter, type ToolDefinition } from "ctxwin";
import { contextInputFilter, recallTool, toMessageLikes } from "ctxwin/openai-agents";
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
  WINDOW,
  LargeRecallScript,
  expectEveryReportBack,
  report,
} from "./large-results.js";

type Item = Record<string, unknown>;
const counter = getCounter(MODEL);

/** The text of a function_call_result's output (a string, or an output_text / text part). */
function outputText(output: unknown): string {
  if (typeof output === "string") return output;
  const part = output as { text?: unknown };
  return typeof part?.text === "string" ? part.text : JSON.stringify(output);
}

class ScriptedModel implements Model {
  readonly script = new LargeRecallScript();
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const input = (typeof request.input === "string" ? [{ role: "user", content: request.input }] : request.input) as unknown as Item[];
    const tools: ToolDefinition[] = request.tools.map((t) =>
      t.type === "function"
        ? {
            type: "function",
            function: { name: t.name, description: t.description, parameters: t.parameters as ToolDefinition["parameters"] },
          }
        : { name: t.name },
    );
    expect(
      counter.countMessages([{ role: "system", content: SYSTEM }, ...toMessageLikes(input as never)], { tools }) + RESERVED_OUTPUT,
    ).toBeLessThanOrEqual(WINDOW);
    const results = new Map<string, string>();
    const callIds: string[] = [];
    for (const item of input) {
      if (item.type === "function_call") callIds.push(item.callId as string);
      if (item.type === "function_call_result") results.set(item.callId as string, outputText(item.output));
    }
    const move = this.script.next({ results, callIds });
    const usage = new Usage({ requests: 1, inputTokens: 100, outputTokens: 20, totalTokens: 120 });
    if (move.kind === "final")
      return {
        usage,
        output: [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: move.text }] }],
      };
    const [name, args] = move.kind === "fetch" ? [FETCH_TOOL, { k: move.k }] : ["recall", move.input];
    return { usage, output: [{ type: "function_call", callId: move.callId, name, arguments: JSON.stringify(args), status: "completed" }] };
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("not used");
  }
}

describe("large results in an OpenAI Agents run", () => {
  it("recalls each of 25 results of 20 KB and more byte for byte, by id and by paging lines", { timeout: 600_000 }, async () => {
    const recall = new Recall({ counter, maxTokens: RECALL_TOKENS });
    const filter = contextInputFilter({
      model: MODEL,
      limits: LIMITS,
      onCompact: recall.onCompact,
      compaction: { maxToolResultTokens: MAX_RESULT_TOKENS },
    });
    const fetchReport = tool({
      name: FETCH_TOOL,
      description: "Fetch a report",
      parameters: z.object({ k: z.number() }),
      execute: async ({ k }) => report(k).text,
    });
    const model = new ScriptedModel();
    const agent = new Agent({ name: "ops", instructions: SYSTEM, model, tools: [fetchReport, await recallTool(recall)] });
    const runner = new Runner({ callModelInputFilter: filter, tracingDisabled: true });
    const result = await runner.run(agent, TASK, { maxTurns: MAX_STEPS });
    expect(result.finalOutput).toBe(FINAL);
    const outputs = new Map(
      (result.history as unknown as Item[])
        .filter((item) => item.type === "function_call_result")
        .map((item) => [item.callId as string, outputText(item.output)] as const),
    );
    expectEveryReportBack(model.script, (callId) => outputs.get(callId));
  });
});
