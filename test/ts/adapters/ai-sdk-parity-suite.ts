// One prepareStep on every AI SDK major: the same scripted tool loop through ctxwin/ai-sdk's two
// hooks, run with `ai` 6 (ai-sdk.test.ts) and `ai` 7 (test/compat/node22/ai-sdk.test.ts).
//
// The middleware is the reference. The SDK hands it, at every model call, the prompt built from
// the whole history (what it returns goes to the provider, never back into the loop), on both
// majors. contextPrepareStep is handed the step's messages instead, and AI SDK 7 (unlike 6) keeps
// what prepareStep returned as the next step's messages; the adapter puts the whole history back,
// so its requests must be the middleware's, request for request, and the history its fitter is
// handed must only grow.
import { describe, expect, it } from "vitest";
import { extractiveSummarizer } from "ctxwin";
import { contextMiddleware, contextPrepareStep, type ContextOptions, type FitEvent } from "ctxwin/ai-sdk";
import { FINAL, LIMITS, MODEL, RESERVED_OUTPUT, STEPS, SYSTEM, TASK, toolOutput } from "../support/tool-loop.js";
import { checkRequest, definitions, type AiSdk, type CallOptions } from "./ai-sdk-suite.js";

export type Hook = "middleware" | "prepareStep";

export interface LoopRun {
  /** Per model request: its exact token count (tools included), its number of messages, whether the adapter fitted it (onCompact). */
  requests: Array<{ tokens: number; messages: number; fitted: boolean }>;
  /** Every fit the adapter reported, in order. */
  fits: FitEvent[];
  /** The provider prompts, as the mock model received them. */
  prompts: Array<CallOptions["prompt"]>;
  text: string;
}

export interface LoopOptions {
  /** streamText rather than generateText. */
  stream?: boolean;
  /** How many read_file steps before the answer (default 60). */
  steps?: number;
  /** read_file's output at step s (default toolOutput: 1,000 to 3,000 tokens). */
  output?: (step: number) => string;
  /** The factor by which the model's reported usage of request r (1-based) exceeds the exact count (default 1). */
  inflate?: (request: number) => number;
  /** The adapters' compaction options (default: none). */
  compaction?: ContextOptions["compaction"];
}

/** A scripted read_file loop through `hook`, no network; every request is checked (checkRequest) and recorded. */
export async function runLoop(sdk: AiSdk, hook: Hook, options: LoopOptions = {}): Promise<LoopRun> {
  const steps = options.steps ?? STEPS;
  const output = options.output ?? toolOutput;
  const tools = {
    read_file: sdk.tool({
      description: "Read a file of the repository",
      inputSchema: sdk.jsonSchema({
        type: "object",
        properties: { path: { type: "string", description: "Path of the file" }, step: { type: "number" } },
        required: ["path", "step"],
      }),
      execute: async ({ step }: { step: number }) => output(step),
    }),
  };
  const run: LoopRun = { requests: [], fits: [], prompts: [], text: "" };
  let fitsSeen = 0;
  /** Records request `n` (1-based) and answers it: a read_file call until `steps`, then the final text. */
  const answer = (call: CallOptions) => {
    const n = run.requests.length + 1;
    const tokens = checkRequest(call.prompt, definitions(call), n);
    run.requests.push({ tokens, messages: call.prompt.length, fitted: run.fits.length > fitsSeen });
    fitsSeen = run.fits.length;
    run.prompts.push(call.prompt);
    const usage = {
      inputTokens: {
        total: Math.ceil(tokens * (options.inflate?.(n) ?? 1)),
        noCache: undefined,
        cacheRead: undefined,
        cacheWrite: undefined,
      },
      outputTokens: { total: 20, text: 20, reasoning: undefined },
    };
    const done = n > steps;
    const finishReason = { unified: done ? "stop" : "tool-calls", raw: undefined };
    const call_ = {
      type: "tool-call",
      toolCallId: `call_${n}`,
      toolName: "read_file",
      input: JSON.stringify({ path: `src/module${n}.ts`, step: n }),
    };
    return { n, usage, done, finishReason, call: call_ };
  };
  const model = new sdk.MockLanguageModel({
    modelId: MODEL,
    doGenerate: async (call) => {
      const a = answer(call);
      const content = a.done
        ? [{ type: "text", text: FINAL }]
        : [{ type: "reasoning", text: `Step ${a.n}: the next file to read is src/module${a.n}.ts.` }, a.call];
      return { content, finishReason: a.finishReason, usage: a.usage, warnings: [] };
    },
    doStream: async (call) => {
      const a = answer(call);
      const parts = a.done
        ? [
            { type: "text-start", id: "t" },
            { type: "text-delta", id: "t", delta: FINAL },
            { type: "text-end", id: "t" },
          ]
        : [a.call];
      return { stream: sdk.convertArrayToReadableStream([...parts, { type: "finish", finishReason: a.finishReason, usage: a.usage }]) };
    },
  });
  const adapter = {
    model: MODEL,
    limits: LIMITS,
    compaction: options.compaction,
    onCompact: (event: FitEvent) => void run.fits.push(event),
  };
  const hooked =
    hook === "middleware"
      ? { model: sdk.wrapLanguageModel({ model: model as never, middleware: contextMiddleware(adapter) as never }) }
      : { model, prepareStep: contextPrepareStep({ ...adapter, system: SYSTEM, tools: tools as never, maxOutputTokens: RESERVED_OUTPUT }) };
  const settings = {
    system: SYSTEM,
    prompt: TASK,
    tools,
    stopWhen: sdk.stepCountIs(steps + 5),
    maxOutputTokens: RESERVED_OUTPUT,
    ...hooked,
  };
  run.text = options.stream ? await sdk.streamText(settings).text : (await sdk.generateText(settings)).text;
  return run;
}

/** The same loop through both hooks: the requests, and the fits that made them, are the middleware's. */
async function expectSameAsMiddleware(sdk: AiSdk, options: LoopOptions): Promise<{ reference: LoopRun; run: LoopRun }> {
  const reference = await runLoop(sdk, "middleware", options);
  const run = await runLoop(sdk, "prepareStep", options);
  for (const r of [reference, run]) {
    expect(r.text).toBe(FINAL);
    expect(r.requests).toHaveLength((options.steps ?? STEPS) + 1);
  }
  expect(run.requests).toEqual(reference.requests);
  expect(run.prompts).toEqual(reference.prompts);
  // The fitter was handed the same whole history (tokensBefore counts it) and ran its levels as often.
  expect(run.fits.map((f) => f.tokensBefore)).toEqual(reference.fits.map((f) => f.tokensBefore));
  expect(run.fits.filter((f) => f.report !== undefined)).toHaveLength(reference.fits.filter((f) => f.report !== undefined).length);
  return { reference, run };
}

/**
 * A loop that overflows the window many times over: most requests are fitted, the levels run only
 * when the last fitted prompt plus the new step no longer fits, and the history each fit is
 * handed (the whole history) only grows.
 */
function expectWholeHistory(run: LoopRun): void {
  const levels = run.fits.filter((f) => f.report !== undefined).length;
  expect(run.requests.filter((r) => r.fitted).length).toBeGreaterThan(STEPS / 2);
  expect(levels).toBeGreaterThan(1);
  expect(levels).toBeLessThan(STEPS / 2);
  run.fits.forEach((f, i) => {
    if (i > 0) expect(f.tokensBefore).toBeGreaterThan((run.fits[i - 1] as FitEvent).tokensBefore);
  });
}

export function runAiSdkParitySuite(sdk: AiSdk): void {
  describe(`ctxwin/ai-sdk: contextPrepareStep sends what contextMiddleware sends (ai ${sdk.major})`, () => {
    for (const stream of [false, true]) {
      it(`${stream ? "streamText" : "generateText"}: 60 steps, request for request, from the whole history at every step`, async () => {
        const { run } = await expectSameAsMiddleware(sdk, { stream });
        expectWholeHistory(run);
      });
    }

    it("with a summarizer too: the same requests, summaries and all", async () => {
      const { run } = await expectSameAsMiddleware(sdk, {
        compaction: { summarizer: extractiveSummarizer(), keepToolResults: 2, trimTo: 0.4 },
      });
      expectWholeHistory(run);
      expect(run.prompts.at(-1)?.some((m) => JSON.stringify(m.content).includes("Summary of the"))).toBe(true);
    });

    it("sends the whole history again when it fits again after a fitted request (the model's reported usage fell back)", async () => {
      // Outputs of about 900 tokens; the model reports 2.5 times the count for request 3 only: request
      // 4's budget shrinks and it is fitted, request 5's budget is whole again and the history fits.
      const output = (step: number) => toolOutput(step).split("\n").slice(0, 30).join("\n");
      const { run } = await expectSameAsMiddleware(sdk, { steps: 8, output, inflate: (n) => (n === 3 ? 2.5 : 1) });
      expect(run.requests.map((r) => r.fitted).slice(0, 5)).toEqual([false, false, false, true, false]);
      expect(run.requests[4]?.messages).toBe(1 + 1 + 2 * 4); // system, task, and four whole steps
    });
  });
}
