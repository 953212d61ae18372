// The agent-tools loop (agent-loop.ts) in a LangChain v1 createAgent loop with ctxwin's middleware
// and contextTools: 60 steps, context_status at 10 and 45, compact_context at 20.
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { getCounter } from "ctxwin";
import { contextMiddleware, contextTools, toMessageLikes } from "ctxwin/langchain";
import { MODEL, SYSTEM, TASK, toolOutput } from "../support/tool-loop.js";
import { COMPACTION, LIMITS, NOTICES, STEPS, Script } from "./agent-loop.js";

const counter = getCounter(MODEL);
const text = (m: BaseMessage): string => (typeof m.content === "string" ? m.content : JSON.stringify(m.content));

describe("context_status and compact_context in a LangChain agent loop", () => {
  it("runs 60 steps: the asked compaction happens at the next request, keeps what keep named, and each notice reaches the model once", async () => {
    const script = new Script();
    const middleware = contextMiddleware({
      model: MODEL,
      limits: LIMITS,
      compaction: COMPACTION,
      notices: NOTICES,
      onNotice: script.onNotice,
    });
    const readFile = tool(async ({ step }) => toolOutput(step), {
      name: "read_file",
      description: "Read a file of the repository",
      schema: z.object({ path: z.string(), step: z.number() }),
    });
    const model = fakeModel();
    for (let k = 0; k < STEPS; k++) {
      model.respond((messages: BaseMessage[]) => {
        const results = new Map<string, string>();
        for (const m of messages) if (ToolMessage.isInstance(m)) results.set(m.tool_call_id, text(m));
        const tokens = counter.countMessages(toMessageLikes(messages));
        const move = script.next({ tokens, texts: messages.map(text), results });
        if (move.kind === "final") return new AIMessage({ content: move.text });
        const [name, args] =
          move.kind === "read"
            ? ["read_file", { path: `src/module${move.step}.ts`, step: move.step }]
            : move.kind === "status"
              ? ["context_status", {}]
              : ["compact_context", move.input];
        return new AIMessage({ content: "", tool_calls: [{ id: move.callId, name, args, type: "tool_call" }] });
      });
    }
    const agent = createAgent({ model, tools: [readFile, ...contextTools(middleware)], systemPrompt: SYSTEM, middleware: [middleware] });
    await agent.invoke({ messages: [{ role: "user", content: TASK }] }, { recursionLimit: 300 });
    script.finish();
    expect(() => contextTools({})).toThrow(expect.objectContaining({ name: "TypeError", code: "ERR_CTXWIN_INVALID_ARGUMENT" }));
  }, 120_000);
});
