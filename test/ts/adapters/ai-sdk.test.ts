// ctxwin/ai-sdk in the AI SDK's real tool loop: generateText with tools and stopWhen over 55
// steps, a MockLanguageModelV3 that checks every request it receives, an 8,000-token window and
// tool results of 1,000 to 3,000 tokens.
import { ToolLoopAgent, generateText, jsonSchema, stepCountIs, streamText, tool, wrapLanguageModel, type ToolSet } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream } from "ai/test";
import { describe, expect, it, vi } from "vitest";
import { extractiveSummarizer, getCounter, UsageCalibration, type ToolDefinition } from "ctxwin";
import { contextMiddleware, contextPrepareStep } from "ctxwin/ai-sdk";
import { FINAL, LIMITS, MODEL, RESERVED_OUTPUT, STEPS, SYSTEM, TASK, WINDOW, toolOutput, toolOutputTokens } from "../support/tool-loop.js";

type CallOptions = Parameters<MockLanguageModelV3["doGenerate"]>[0];
type Prompt = CallOptions["prompt"];

const counter = getCounter(MODEL);

const tools = {
  read_file: tool({
    description: "Read a file of the repository",
    inputSchema: jsonSchema<{ path: string; step: number }>({ type: "object", properties: { path: { type: "string", description: "Path of the file" }, step: { type: "number" } }, required: ["path", "step"] }),
    execute: async ({ step }) => toolOutput(step),
  }),
} satisfies ToolSet;

function definitions(options: CallOptions): ToolDefinition[] {
  return (options.tools ?? []).map((t) => (t.type === "function" ? { type: "function", function: { name: t.name, description: t.description, parameters: t.inputSchema as ToolDefinition["parameters"] } } : { name: t.name }));
}

/** Checks one request as a provider would receive it, and returns its exact count (tools included). */
function checkRequest(prompt: Prompt, tools: ToolDefinition[], options: { system?: string } = {}): number {
  const tokens = counter.countMessages(prompt as never, { tools });
  expect(tokens + RESERVED_OUTPUT).toBeLessThanOrEqual(WINDOW);
  expect(prompt[0]).toEqual({ role: "system", content: options.system ?? SYSTEM });
  const calls = new Set<string>();
  for (const message of prompt) {
    if (!Array.isArray(message.content)) continue;
    for (const part of message.content) {
      if (part.type === "tool-call") calls.add(part.toolCallId);
      if (part.type === "tool-result") expect(calls.has(part.toolCallId), `result ${part.toolCallId} without its call`).toBe(true);
    }
  }
  // Every call in the prompt has its result right after it (the unit is whole).
  prompt.forEach((message, i) => {
    if (message.role !== "assistant") return;
    const ids = message.content.flatMap((p) => (p.type === "tool-call" ? [p.toolCallId] : []));
    const next = prompt[i + 1];
    const answered = next?.role === "tool" ? next.content.flatMap((p) => (p.type === "tool-result" ? [p.toolCallId] : [])) : [];
    expect(answered).toEqual(ids.length > 0 ? ids : answered);
  });
  return tokens;
}

/** A model that calls read_file for STEPS steps, then answers; it reports `inflate` times the exact count as its usage. */
function agentModel(inflate = 1) {
  const seen: Array<{ tokens: number; messages: number }> = [];
  let step = 0;
  const model = new MockLanguageModelV3({
    modelId: MODEL,
    doGenerate: async (options) => {
      const tokens = checkRequest(options.prompt, definitions(options));
      seen.push({ tokens, messages: options.prompt.length });
      step++;
      const usage = { inputTokens: { total: Math.ceil(tokens * inflate), noCache: undefined, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 20, text: 20, reasoning: undefined } };
      if (step > STEPS) return { content: [{ type: "text", text: FINAL }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] };
      return {
        content: [
          { type: "reasoning", text: `Step ${step}: the next file to read is src/module${step}.ts.` },
          { type: "tool-call", toolCallId: `call_${step}`, toolName: "read_file", input: JSON.stringify({ path: `src/module${step}.ts`, step }) },
        ],
        finishReason: { unified: "tool-calls", raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
  return { model, seen };
}

describe("ctxwin/ai-sdk contextMiddleware", () => {
  it("keeps every step of a 55-step generateText tool loop within an 8,000-token window", async () => {
    const { model, seen } = agentModel();
    const compactions: number[] = [];
    const middleware = contextMiddleware({ model: MODEL, limits: LIMITS, onCompact: (e) => compactions.push(e.tokensBefore) });
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware }),
      system: SYSTEM,
      prompt: TASK,
      tools,
      stopWhen: stepCountIs(STEPS + 5),
      maxOutputTokens: RESERVED_OUTPUT,
    });
    expect(result.text).toBe(FINAL);
    expect(result.steps).toHaveLength(STEPS + 1);
    expect(seen).toHaveLength(STEPS + 1);
    // Without ctxwin the last prompt would hold every tool output: far over the window.
    let raw = 0;
    for (let s = 1; s <= STEPS; s++) raw += toolOutputTokens(s);
    expect(raw).toBeGreaterThan(10 * WINDOW);
    expect(compactions.length).toBeGreaterThan(STEPS / 2);
    // The task stays in every prompt.
    expect(model.doGenerateCalls.every((c) => c.prompt.some((m) => m.role === "user" && JSON.stringify(m.content).includes("Find and fix the bug")))).toBe(true);
    expect(middleware.fitter.calibration.get(MODEL)).toMatchObject({ ratio: 1, observations: STEPS + 1 });
    // Each request starts with the previous one (until a refit), so a provider's prompt cache
    // keeps working: the share of prompt tokens in a prefix the previous request had too.
    let shared = 0;
    let total = 0;
    model.doGenerateCalls.forEach((call, i) => {
      const tokens = counter.countMessages(call.prompt as never);
      total += tokens;
      const previous = model.doGenerateCalls[i - 1]?.prompt;
      if (!previous) return;
      let k = 0;
      while (k < previous.length && k < call.prompt.length && JSON.stringify(previous[k]) === JSON.stringify(call.prompt[k])) k++;
      shared += counter.countMessages(call.prompt.slice(0, k) as never) - counter.countMessages([]);
    });
    // Each step adds 1,000 to 3,000 new tokens to a prompt of 3,500 to 6,000, which no cache can
    // hold: about 75% is the bound here (61% measured; on larger windows the share is far higher).
    expect(shared / total).toBeGreaterThanOrEqual(0.55);
  });

  it("learns from reported usage: a model that counts 20% more than the local counter never overflows", async () => {
    const { model, seen } = agentModel(1.2);
    const middleware = contextMiddleware({ model: MODEL, limits: LIMITS });
    const result = await generateText({ model: wrapLanguageModel({ model, middleware }), system: SYSTEM, prompt: TASK, tools, stopWhen: stepCountIs(STEPS + 5), maxOutputTokens: RESERVED_OUTPUT });
    expect(result.text).toBe(FINAL);
    // Every request after the first, as the model counts it, fits with its output.
    for (const { tokens } of seen.slice(1)) expect(Math.ceil(tokens * 1.2) + RESERVED_OUTPUT).toBeLessThanOrEqual(WINDOW);
    expect(middleware.fitter.calibration.get(MODEL)?.scale).toBeCloseTo(1.2, 2);
  });

  it("summarizes old steps with a summarizer and reuses the summary at later steps", async () => {
    const { model } = agentModel();
    const summarize = vi.fn(async (prompt: string) => `Read ${prompt.split("called read_file").length - 1} files; src/module3.ts had nothing relevant.`);
    const middleware = contextMiddleware({ model: MODEL, limits: LIMITS, summarizer: summarize, keepToolResults: 2, trimTo: 0.4 });
    const result = await generateText({ model: wrapLanguageModel({ model, middleware }), system: SYSTEM, prompt: TASK, tools, stopWhen: stepCountIs(STEPS + 5), maxOutputTokens: RESERVED_OUTPUT });
    expect(result.text).toBe(FINAL);
    expect(summarize).toHaveBeenCalled();
    expect(summarize.mock.calls.length).toBeLessThan(STEPS / 2); // reused, not rewritten at every step
    const last = model.doGenerateCalls[model.doGenerateCalls.length - 1]?.prompt ?? [];
    // The summary is a user message after the task: system messages stay first.
    expect(last.some((m) => m.role === "user" && JSON.stringify(m.content).includes("Summary of the"))).toBe(true);
    expect(last.findIndex((m) => m.role !== "system")).toBe(last.filter((m) => m.role === "system").length);
  });

  it("works in streamText too, and passes the finish part's usage on", async () => {
    let step = 0;
    const model = new MockLanguageModelV3({
      modelId: MODEL,
      doStream: async (options) => {
        const tokens = checkRequest(options.prompt, definitions(options));
        step++;
        const usage = { inputTokens: { total: tokens, noCache: undefined, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 5, text: 5, reasoning: undefined } };
        const parts =
          step > STEPS
            ? [{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: FINAL }, { type: "text-end", id: "t" }]
            : [{ type: "tool-call", toolCallId: `call_${step}`, toolName: "read_file", input: JSON.stringify({ path: `src/module${step}.ts`, step }) }];
        return { stream: convertArrayToReadableStream([...parts, { type: "finish", finishReason: { unified: step > STEPS ? "stop" : "tool-calls", raw: undefined }, usage }] as never) };
      },
    });
    const middleware = contextMiddleware({ model: MODEL, limits: LIMITS });
    const result = streamText({ model: wrapLanguageModel({ model, middleware }), system: SYSTEM, prompt: TASK, tools, stopWhen: stepCountIs(STEPS + 5), maxOutputTokens: RESERVED_OUTPUT });
    expect(await result.text).toBe(FINAL);
    expect(middleware.fitter.calibration.get(MODEL)?.observations).toBe(STEPS + 1);
  });

  it("keeps a ToolLoopAgent's 55 steps within the window too", async () => {
    const { model, seen } = agentModel();
    const agent = new ToolLoopAgent({
      model: wrapLanguageModel({ model, middleware: contextMiddleware({ model: MODEL, limits: LIMITS }) }),
      instructions: SYSTEM,
      tools,
      stopWhen: stepCountIs(STEPS + 5),
      maxOutputTokens: RESERVED_OUTPUT,
    });
    const result = await agent.generate({ prompt: TASK });
    expect(result.text).toBe(FINAL);
    expect(seen).toHaveLength(STEPS + 1);
  });

  it("rejects bad options with coded errors", () => {
    expect(() => contextMiddleware(undefined as never)).toThrow(expect.objectContaining({ code: "ERR_CTXWIN_INVALID_ARGUMENT" }));
    expect(() => contextMiddleware({ model: 42 } as never)).toThrow(/options.model must be a string/);
    expect(() => contextMiddleware({ model: MODEL, trimTo: 1.5 })).toThrow(expect.objectContaining({ name: "RangeError", code: "ERR_CTXWIN_OUT_OF_RANGE" }));
    expect(() => contextMiddleware({ model: MODEL, keepToolResults: -1 })).toThrow(RangeError);
    expect(() => contextMiddleware({ model: MODEL, strategy: "newest" as never })).toThrow(/options.strategy must be/);
    expect(() => contextMiddleware({ model: MODEL, calibration: {} as never })).toThrow(/UsageCalibration/);
    expect(() => contextPrepareStep({ model: MODEL, system: 5 as never })).toThrow(/options.system must be a string/);
  });
});

describe("ctxwin/ai-sdk contextPrepareStep", () => {
  it("keeps a 55-step loop within the window through prepareStep, system prompt and tools counted", async () => {
    const { model, seen } = agentModel();
    const calibration = new UsageCalibration();
    const result = await generateText({
      model,
      system: SYSTEM,
      prompt: TASK,
      tools,
      stopWhen: stepCountIs(STEPS + 5),
      maxOutputTokens: RESERVED_OUTPUT,
      prepareStep: contextPrepareStep({ model: MODEL, limits: LIMITS, system: SYSTEM, tools, calibration, summarizer: extractiveSummarizer() }),
    });
    expect(result.text).toBe(FINAL);
    expect(seen).toHaveLength(STEPS + 1);
    expect(calibration.get(MODEL)?.observations).toBe(STEPS);
  });
});
