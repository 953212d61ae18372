// An OpenAI Agents SDK run with ctxwin's input filter: the model needs the first file again after
// it was cleared, calls the recall tool, and gets it back byte for byte. The main suite runs it
// with @openai/agents 0.14 on Node 20; test/compat/node22/ runs this file again with 0.20.
import { Agent, Runner, Usage, tool, type Model, type ModelRequest, type ModelResponse } from "@openai/agents";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Recall, getCounter, type ToolDefinition } from "ctxwin";
import { contextInputFilter, recallTool, toMessageLikes } from "ctxwin/openai-agents";
import { LIMITS, MODEL, RESERVED_OUTPUT, SYSTEM, TASK, WINDOW, toolOutput } from "../support/tool-loop.js";
import { READS, nextMove } from "./recall-loop.js";

type Item = Record<string, unknown>;

const counter = getCounter(MODEL);

/** A request as the model receives it: within the window (instructions and tools counted), every result after its call, every call answered by the next item. */
function checkRequest(request: ModelRequest, input: Item[]): void {
  expect(request.systemInstructions).toBe(SYSTEM);
  const tools: ToolDefinition[] = request.tools.map((t) =>
    t.type === "function"
      ? {
          type: "function",
          function: { name: t.name, description: t.description, parameters: t.parameters as ToolDefinition["parameters"] },
        }
      : { name: t.name },
  );
  const tokens = counter.countMessages([{ role: "system", content: SYSTEM }, ...toMessageLikes(input as never)], { tools });
  expect(tokens + RESERVED_OUTPUT).toBeLessThanOrEqual(WINDOW);
  const calls = new Set<string>();
  input.forEach((item, i) => {
    if (item.type === "function_call") {
      calls.add(item.callId as string);
      expect(input[i + 1]?.callId, `call ${String(item.callId)} not answered right after it`).toBe(item.callId);
    }
    if (item.type === "function_call_result")
      expect(calls.has(item.callId as string), `result ${String(item.callId)} without its call`).toBe(true);
  });
}

class ScriptedModel implements Model {
  call = 0;
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.call++;
    const input = (typeof request.input === "string" ? [{ role: "user", content: request.input }] : request.input) as unknown as Item[];
    checkRequest(request, input);
    const results = new Map<string, string>();
    const callIds: string[] = [];
    for (const item of input) {
      if (item.type === "function_call") callIds.push(item.callId as string);
      if (item.type === "function_call_result") {
        const output = item.output as string | { type: string; text?: string };
        results.set(item.callId as string, typeof output === "string" ? output : String(output.text));
      }
    }
    const move = nextMove(this.call, results, callIds);
    const usage = new Usage({ requests: 1, inputTokens: 100, outputTokens: 20, totalTokens: 120 });
    if (move.kind === "final")
      return {
        usage,
        output: [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: move.text }] }],
      };
    const args = move.kind === "read" ? { path: `src/module${move.step}.ts`, step: move.step } : { id: move.id };
    return {
      usage,
      output: [
        {
          type: "function_call",
          callId: move.callId,
          name: move.kind === "read" ? "read_file" : "recall",
          arguments: JSON.stringify(args),
          status: "completed",
        },
      ],
    };
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("not used");
  }
}

describe("recall in an OpenAI Agents run", () => {
  it("reads a cleared result back, byte for byte, checking every request", async () => {
    const recall = new Recall({ counter: getCounter(MODEL), maxTokens: 4000 });
    const filter = contextInputFilter({
      model: MODEL,
      limits: LIMITS,
      onCompact: recall.onCompact,
      compaction: { maxToolResultTokens: 4000, keepToolResults: 1 },
    });
    const readFile = tool({
      name: "read_file",
      description: "Read a file of the repository",
      parameters: z.object({ path: z.string(), step: z.number() }),
      execute: async ({ step }) => toolOutput(step),
    });
    const model = new ScriptedModel();
    const agent = new Agent({ name: "coder", instructions: SYSTEM, model, tools: [readFile, await recallTool(recall)] });
    const runner = new Runner({ callModelInputFilter: filter, tracingDisabled: true });
    const result = await runner.run(agent, TASK, { maxTurns: READS + 5 });
    expect(model.call).toBe(READS + 2);
    const recalled = (result.history as unknown as Item[]).find(
      (item) => item.type === "function_call_result" && item.callId === "recall_1",
    );
    const output = recalled?.output as string | { text?: string };
    expect(typeof output === "string" ? output : output?.text).toBe(toolOutput(1));
    await expect(recallTool({} as Recall)).rejects.toMatchObject({ name: "TypeError", code: "ERR_CTXWIN_INVALID_ARGUMENT" });
  });
});
