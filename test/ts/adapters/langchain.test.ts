// ctxwin/langchain in LangChain v1's real agent loop: createAgent with a tool and LangChain's fake
// chat model calling it for 60 steps; the model checks every request it receives, on an
// 8,000-token window with tool results of 1,000 to 3,000 tokens.
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { createAgent } from "langchain";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { getCounter, type ToolDefinition } from "ctxwin";
import { contextMiddleware, toMessageLikes } from "ctxwin/langchain";
import { FINAL, LIMITS, MODEL, RESERVED_OUTPUT, STEPS, SYSTEM, TASK, WINDOW, toolOutput, toolOutputTokens } from "../support/tool-loop.js";

const counter = getCounter(MODEL);

const readFile = tool(async ({ step }) => toolOutput(step), {
  name: "read_file",
  description: "Read a file of the repository",
  schema: z.object({ path: z.string().describe("Path of the file"), step: z.number() }),
});
const definitions = [convertToOpenAITool(readFile) as ToolDefinition];

/** Checks one request as the model receives it; returns its exact count (tools included). */
function checkRequest(messages: BaseMessage[]): number {
  const tokens = counter.countMessages(toMessageLikes(messages), { tools: definitions });
  expect(tokens + RESERVED_OUTPUT).toBeLessThanOrEqual(WINDOW);
  expect(messages[0]?.type).toBe("system");
  expect(messages[0]?.text).toBe(SYSTEM);
  const calls = new Set<string>();
  messages.forEach((m, i) => {
    if (AIMessage.isInstance(m)) {
      for (const c of m.tool_calls ?? []) calls.add(c.id as string);
      const ids = (m.tool_calls ?? []).map((c) => c.id);
      const answered = messages.slice(i + 1, i + 1 + ids.length).map((r) => (ToolMessage.isInstance(r) ? r.tool_call_id : undefined));
      expect(answered).toEqual(ids);
    }
    if (ToolMessage.isInstance(m)) expect(calls.has(m.tool_call_id), `result ${m.tool_call_id} without its call`).toBe(true);
  });
  expect(messages.some((m) => m.type === "human" && m.text === TASK)).toBe(true);
  return tokens;
}

/** LangChain's fake chat model: read_file for STEPS steps, then the answer; reports `inflate` times the exact count. */
function agentModel(inflate = 1) {
  const model = fakeModel();
  const seen: number[] = [];
  for (let step = 1; step <= STEPS + 1; step++) {
    model.respond((messages: BaseMessage[]) => {
      const tokens = checkRequest(messages);
      seen.push(tokens);
      const usage_metadata = {
        input_tokens: Math.ceil(tokens * inflate),
        output_tokens: 20,
        total_tokens: Math.ceil(tokens * inflate) + 20,
      };
      if (step > STEPS) return new AIMessage({ content: FINAL, usage_metadata });
      return new AIMessage({
        content: [{ type: "reasoning", reasoning: `Step ${step}: the next file to read is src/module${step}.ts.` }],
        tool_calls: [{ id: `call_${step}`, name: "read_file", args: { path: `src/module${step}.ts`, step }, type: "tool_call" }],
        usage_metadata,
      });
    });
  }
  return { model, seen };
}

describe("ctxwin/langchain contextMiddleware", () => {
  it("keeps every call of a 60-step createAgent loop within an 8,000-token window", async () => {
    const { model, seen } = agentModel();
    const compactions: number[] = [];
    const middleware = contextMiddleware({ model: MODEL, limits: LIMITS, onCompact: (e) => compactions.push(e.tokensBefore) });
    const agent = createAgent({ model, tools: [readFile], systemPrompt: SYSTEM, middleware: [middleware] });
    const state = await agent.invoke({ messages: [{ role: "user", content: TASK }] }, { recursionLimit: 500 });
    const last = state.messages[state.messages.length - 1];
    expect(last?.text).toBe(FINAL);
    expect(seen).toHaveLength(STEPS + 1);
    expect(model.callCount).toBe(STEPS + 1);
    // The agent's state keeps the whole history; only what each call sends was fitted.
    expect(state.messages.filter((m) => ToolMessage.isInstance(m))).toHaveLength(STEPS);
    let raw = 0;
    for (let s = 1; s <= STEPS; s++) raw += toolOutputTokens(s);
    expect(raw).toBeGreaterThan(10 * WINDOW);
    expect(compactions.length).toBeGreaterThan(STEPS / 2);
    expect(middleware.fitter.calibration.get(MODEL)).toMatchObject({ ratio: 1, observations: STEPS + 1 });
  });

  it("learns from usage_metadata: a model that counts 20% more never overflows after its first response", async () => {
    const { model, seen } = agentModel(1.2);
    const middleware = contextMiddleware({ model: MODEL, limits: LIMITS });
    const agent = createAgent({ model, tools: [readFile], systemPrompt: SYSTEM, middleware: [middleware] });
    const state = await agent.invoke({ messages: [{ role: "user", content: TASK }] }, { recursionLimit: 500 });
    expect(state.messages[state.messages.length - 1]?.text).toBe(FINAL);
    for (const tokens of seen.slice(1)) expect(Math.ceil(tokens * 1.2) + RESERVED_OUTPUT).toBeLessThanOrEqual(WINDOW);
  });

  it("summarizes old steps (as a user message by default) and reuses the summary", async () => {
    const { model } = agentModel();
    const summarize = vi.fn(async () => "Read many files; none had the bug yet.");
    const middleware = contextMiddleware({
      model: MODEL,
      limits: LIMITS,
      compaction: { summarizer: summarize, keepToolResults: 2, trimTo: 0.4 },
    });
    const agent = createAgent({ model, tools: [readFile], systemPrompt: SYSTEM, middleware: [middleware] });
    const state = await agent.invoke({ messages: [{ role: "user", content: TASK }] }, { recursionLimit: 500 });
    expect(state.messages[state.messages.length - 1]?.text).toBe(FINAL);
    expect(summarize).toHaveBeenCalled();
    expect(summarize.mock.calls.length).toBeLessThan(STEPS / 2);
    const lastCall = model.calls[model.calls.length - 1]?.messages ?? [];
    expect(lastCall.some((m) => m.type === "human" && m.text.startsWith("Summary of the"))).toBe(true);
  });

  it("rejects bad options with coded errors", () => {
    expect(() => contextMiddleware(null as never)).toThrow(expect.objectContaining({ code: "ERR_CTXWIN_INVALID_ARGUMENT" }));
    expect(() => contextMiddleware({ model: MODEL, compaction: { trimTo: 0 } })).toThrow(
      expect.objectContaining({ code: "ERR_CTXWIN_OUT_OF_RANGE" }),
    );
    expect(() => toMessageLikes([{ role: "user" } as never])).toThrow(/must be a LangChain message/);
  });
});
