// A LangChain v1 createAgent loop with ctxwin's middleware: the model needs the first file again
// after it was cleared, calls the recall tool, and gets it back byte for byte.
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Recall, getCounter } from "ctxwin";
import { contextMiddleware, recallTool } from "ctxwin/langchain";
import { LIMITS, MODEL, SYSTEM, TASK, toolOutput } from "../support/tool-loop.js";
import { READS, nextMove } from "./recall-loop.js";

describe("recall in a LangChain agent loop", () => {
  it("reads a cleared result back, byte for byte, checking every request", async () => {
    const recall = new Recall({ counter: getCounter(MODEL), maxTokens: 4000 });
    const middleware = contextMiddleware({
      model: MODEL,
      limits: LIMITS,
      onCompact: recall.onCompact,
      compaction: { maxToolResultTokens: 4000, keepToolResults: 1 },
    });
    const readFile = tool(async ({ step }) => toolOutput(step), {
      name: "read_file",
      description: "Read a file of the repository",
      schema: z.object({ path: z.string(), step: z.number() }),
    });
    const model = fakeModel();
    let call = 0;
    for (let k = 0; k < READS + 2; k++) {
      model.respond((messages: BaseMessage[]) => {
        call++;
        const results = new Map<string, string>();
        const callIds: string[] = [];
        for (const m of messages) {
          if (AIMessage.isInstance(m)) for (const c of m.tool_calls ?? []) callIds.push(c.id as string);
          if (ToolMessage.isInstance(m)) results.set(m.tool_call_id, typeof m.content === "string" ? m.content : JSON.stringify(m.content));
        }
        const move = nextMove(call, results, callIds);
        if (move.kind === "final") return new AIMessage({ content: move.text });
        const args = move.kind === "read" ? { path: `src/module${move.step}.ts`, step: move.step } : { id: move.id };
        return new AIMessage({
          content: "",
          tool_calls: [{ id: move.callId, name: move.kind === "read" ? "read_file" : "recall", args, type: "tool_call" }],
        });
      });
    }
    const agent = createAgent({ model, tools: [readFile, recallTool(recall)], systemPrompt: SYSTEM, middleware: [middleware] });
    const state = await agent.invoke({ messages: [{ role: "user", content: TASK }] }, { recursionLimit: 100 });
    expect(call).toBe(READS + 2);
    const recalled = state.messages.find((m: BaseMessage) => ToolMessage.isInstance(m) && m.tool_call_id === "recall_1");
    expect(recalled?.content).toBe(toolOutput(1));
  });
});
