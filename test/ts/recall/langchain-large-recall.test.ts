// Large results in a LangChain v1 createAgent loop with ctxwin's middleware (large-results.ts):
// each of 25 reports of 20 KB and more is cut on arrival and later cleared, then recalled by id
// and paged through by lines with the recall tool, and comes back byte for byte.
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Recall, getCounter } from "ctxwin";
import { contextMiddleware, recallTool, toMessageLikes } from "ctxwin/langchain";
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

const counter = getCounter(MODEL);

describe("large results in a LangChain agent loop", () => {
  it("recalls each of 25 results of 20 KB and more byte for byte, by id and by paging lines", { timeout: 600_000 }, async () => {
    const recall = new Recall({ counter, maxTokens: RECALL_TOKENS });
    const middleware = contextMiddleware({
      model: MODEL,
      limits: LIMITS,
      onCompact: recall.onCompact,
      compaction: { maxToolResultTokens: MAX_RESULT_TOKENS },
    });
    const fetchReport = tool(async ({ k }) => report(k).text, {
      name: FETCH_TOOL,
      description: "Fetch a report",
      schema: z.object({ k: z.number() }),
    });
    const recallReport = recallTool(recall);
    const script = new LargeRecallScript();
    const model = fakeModel();
    for (let k = 0; k < MAX_STEPS; k++) {
      model.respond((messages: BaseMessage[]) => {
        // What the model receives: within the window with the system prompt and both tools' definitions.
        const tools = [fetchReport, recallReport].map((t) => ({
          type: "function" as const,
          function: { name: t.name, description: t.description },
        }));
        expect(
          counter.countMessages([{ role: "system", content: SYSTEM }, ...toMessageLikes(messages)], { tools }) + RESERVED_OUTPUT,
        ).toBeLessThanOrEqual(WINDOW);
        const results = new Map<string, string>();
        const callIds: string[] = [];
        for (const m of messages) {
          if (AIMessage.isInstance(m)) for (const c of m.tool_calls ?? []) callIds.push(c.id as string);
          if (ToolMessage.isInstance(m)) results.set(m.tool_call_id, typeof m.content === "string" ? m.content : JSON.stringify(m.content));
        }
        const move = script.next({ results, callIds });
        if (move.kind === "final") return new AIMessage({ content: move.text });
        const [name, args] = move.kind === "fetch" ? [FETCH_TOOL, { k: move.k }] : ["recall", move.input];
        return new AIMessage({ content: "", tool_calls: [{ id: move.callId, name, args, type: "tool_call" }] });
      });
    }
    const agent = createAgent({ model, tools: [fetchReport, recallReport], systemPrompt: SYSTEM, middleware: [middleware] });
    const state = await agent.invoke({ messages: [{ role: "user", content: TASK }] }, { recursionLimit: 4 * MAX_STEPS });
    expect(state.messages.at(-1)?.content).toBe(FINAL);
    const outputs = new Map(
      (state.messages as BaseMessage[])
        .filter((m) => ToolMessage.isInstance(m))
        .map((m) => [(m as ToolMessage).tool_call_id, (m as ToolMessage).content] as const),
    );
    expectEveryReportBack(script, (callId) => outputs.get(callId));
  });
});
