// ctxwin/mastra's recall tool in a Mastra agent's real tool loop (@mastra/core 1, Node 22.13 or
// later): the processor clears old tool results, the scripted model (the script every framework's
// recall test plays, test/ts/recall/recall-loop.ts) needs the first file again after it was
// cleared, calls recall, and gets it back byte for byte; every request is checked (within the
// window, no orphaned result, each result whole, cut or a placeholder naming its id).
import { Agent } from "@mastra/core/agent";
import { createTool } from "@mastra/core/tools";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Recall, getCounter } from "ctxwin";
import { RECALL_TOOL, recallInputSchema } from "ctxwin/recall";
import { contextProcessor, recallTool } from "ctxwin/mastra";
import { definitions, type CallOptions } from "../../ts/adapters/ai-sdk-suite.js";
import { FINAL, READS, RECALL_CALL_ID, nextMove, providerResult, readProviderPrompt } from "../../ts/recall/recall-loop.js";
import { LIMITS, MODEL, RESERVED_OUTPUT, SYSTEM, TASK, toolOutput } from "../../ts/support/tool-loop.js";

const usage = {
  inputTokens: { total: 100, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 20, text: 20, reasoning: undefined },
};

const readFile = createTool({
  id: "read_file",
  description: "Read a file of the repository",
  inputSchema: z.object({ path: z.string(), step: z.number() }),
  execute: async ({ step }) => toolOutput(step),
});

describe("recall in a Mastra agent loop", () => {
  it("reads a cleared result back, byte for byte, checking every request", async () => {
    const recall = new Recall({ counter: getCounter(MODEL), maxTokens: 4000 });
    const processor = contextProcessor({
      model: MODEL,
      limits: LIMITS,
      onCompact: recall.onCompact,
      compaction: { maxToolResultTokens: 4000, keepToolResults: 1 },
    });
    let call = 0;
    const sentTools: CallOptions["tools"][] = [];
    const model = new MockLanguageModelV3({
      modelId: MODEL,
      doGenerate: async (options) => {
        call++;
        sentTools.push((options as unknown as CallOptions).tools);
        const { results, callIds } = readProviderPrompt(options.prompt, definitions(options as unknown as CallOptions));
        const move = nextMove(call, results, callIds);
        return providerResult(move, usage);
      },
    });
    const agent = new Agent({
      id: "coder",
      name: "coder",
      instructions: SYSTEM,
      model,
      tools: { read_file: readFile, recall: await recallTool(recall) },
      inputProcessors: [processor],
    });
    const result = await agent.generate(TASK, { maxSteps: READS + 5, modelSettings: { maxOutputTokens: RESERVED_OUTPUT } });
    expect(call).toBe(READS + 2);
    expect(result.text).toBe(FINAL);
    // The agent's own record holds the recall's result as the tool returned it: the original.
    const recalled = result.steps.flatMap((s) => s.toolResults).find((r) => JSON.stringify(r).includes(RECALL_CALL_ID));
    expect(recalled?.payload.result).toBe(toolOutput(1));
    // Every request offered the model the recall tool with the input schema every adapter declares.
    for (const tools of sentTools) {
      const sent = tools?.find((t) => t.name === RECALL_TOOL.name);
      expect(sent?.description).toBe(RECALL_TOOL.description);
      expect(sent?.inputSchema).toMatchObject({
        type: "object",
        required: ["id"],
        properties: { id: { type: "string" }, lines: { type: "array" }, pattern: { type: "string" }, maxTokens: { type: "integer" } },
      });
    }
  });

  it("answers what Recall.answer answers: the whole original, a range, the matching lines, a coded notice", async () => {
    const recall = new Recall({ counter: getCounter(MODEL), maxTokens: 4000 });
    const original = toolOutput(3);
    recall.remember({
      replaced: [
        {
          before: { role: "tool", tool_call_id: "call_3", content: original },
          after: { role: "tool", tool_call_id: "call_3", content: '[tool result cleared: 2.1 KB; recall("call_3")]' },
        },
      ],
      removed: [],
    });
    const tool = await recallTool(recall);
    expect(tool.id).toBe("recall");
    const inputs = [
      { id: "call_3" },
      { id: "call_3", lines: [2, 4] as [number, number] },
      { id: "call_3", pattern: "helper3_1\\d\\b" },
      { id: "call_3", maxTokens: 50 },
      { id: "call_404" },
      { id: "call_3", pattern: "(" },
    ];
    for (const input of inputs) {
      const answer = await tool.execute(input, {});
      expect(answer).toBe(await recall.answer(input));
    }
    expect(await tool.execute({ id: "call_3" }, {})).toBe(original);
    expect(await tool.execute({ id: "call_404" }, {})).toMatch(/^\[recall ERR_CTXWIN_RECALL_UNKNOWN_ID: /);
    // Arguments the schema rejects get Mastra's validation error, and recall is not called.
    for (const bad of [{ id: 42 }, { id: "call_3", lines: [0, 2] }, { id: "call_3", extra: true }, {}]) {
      expect(await tool.execute(bad as never, {})).toMatchObject({ error: true, message: expect.stringContaining("recall") });
    }
    // The input schema is ctxwin's own, and the adapters' shared object is left as it was.
    expect(JSON.parse(JSON.stringify(recallInputSchema))).toEqual(recallInputSchema);
  });

  it("checks its argument with the same coded TypeError as the other adapters", async () => {
    await expect(recallTool({} as Recall)).rejects.toMatchObject({ name: "TypeError", code: "ERR_CTXWIN_INVALID_ARGUMENT" });
    await expect(recallTool(undefined as never)).rejects.toMatchObject({ name: "TypeError", code: "ERR_CTXWIN_INVALID_ARGUMENT" });
  });
});
