// ctxwin/mastra in a Mastra agent's real tool loop (@mastra/core 1, Node 22.13 or later): an Agent
// with a createTool tool and a mock model (the AI SDK's MockLanguageModelV3) that checks every
// request it receives, over 60 steps, an 8,000-token window and tool results of 1,000 to 3,000
// tokens; and the three things Mastra's own TokenLimiter gets wrong, each as a named test.
import { Agent } from "@mastra/core/agent";
import { ToolCallFilter } from "@mastra/core/processors";
import { createTool } from "@mastra/core/tools";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { getCounter } from "ctxwin";
import { contextProcessor, ContextProcessor } from "ctxwin/mastra";
import { checkRequest, definitions, type CallOptions } from "../../ts/adapters/ai-sdk-suite.js";
import {
  FINAL,
  LIMITS,
  MODEL,
  RESERVED_OUTPUT,
  STEPS,
  SYSTEM,
  TASK,
  WINDOW,
  toolOutput,
  toolOutputTokens,
} from "../../ts/support/tool-loop.js";

const counter = getCounter(MODEL);
const usageOf = (tokens: number) => ({
  inputTokens: { total: tokens, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 20, text: 20, reasoning: undefined },
});

const readFileWith = (output: (step: number) => string) =>
  createTool({
    id: "read_file",
    description: "Read a file of the repository",
    inputSchema: z.object({ path: z.string().describe("Path of the file"), step: z.number() }),
    execute: async ({ step }) => output(step),
  });

/** A model that calls read_file for `steps` steps, then answers; every request is checked (model call n holds the steps so far). */
function agentModel(steps = STEPS, inflate = 1) {
  const seen: Array<{ tokens: number; messages: number }> = [];
  let step = 0;
  const model = new MockLanguageModelV3({
    modelId: MODEL,
    doGenerate: async (options) => {
      const tokens = checkRequest(options.prompt as never, definitions(options as unknown as CallOptions), step + 1);
      seen.push({ tokens, messages: options.prompt.length });
      step++;
      const usage = usageOf(Math.ceil(tokens * inflate));
      if (step > steps)
        return { content: [{ type: "text", text: FINAL }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] };
      return {
        content: [
          {
            type: "tool-call",
            toolCallId: `call_${step}`,
            toolName: "read_file",
            input: JSON.stringify({ path: `src/module${step}.ts`, step }),
          },
        ],
        finishReason: { unified: "tool-calls", raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
  return { model, seen };
}

function agentWith(model: MockLanguageModelV3, processors: unknown[], output: (step: number) => string = toolOutput) {
  return new Agent({
    id: "coder",
    name: "coder",
    instructions: SYSTEM,
    model,
    tools: { read_file: readFileWith(output) },
    inputProcessors: processors as never,
  });
}

const generateOptions = { maxSteps: STEPS + 5, modelSettings: { maxOutputTokens: RESERVED_OUTPUT } };

describe("ctxwin/mastra contextProcessor", () => {
  it("keeps every request of a 60-step agent loop within an 8,000-token window, each holding the steps so far", async () => {
    const { model, seen } = agentModel();
    const compactions: number[] = [];
    const processor = contextProcessor({ model: MODEL, limits: LIMITS, onCompact: (e) => compactions.push(e.tokensBefore) });
    const result = await agentWith(model, [processor]).generate(TASK, generateOptions);
    expect(result.text).toBe(FINAL);
    expect(seen).toHaveLength(STEPS + 1);
    let raw = 0;
    for (let s = 1; s <= STEPS; s++) raw += toolOutputTokens(s);
    expect(raw).toBeGreaterThan(10 * WINDOW); // without ctxwin the last prompt would hold all of it
    expect(compactions.length).toBeGreaterThan(STEPS / 2);
    // The reported usage of every step reaches the calibration.
    expect(processor.fitter.calibration.get(MODEL)).toMatchObject({ ratio: 1, observations: STEPS + 1 });
  });

  it("learns from reported usage: a model that counts 20% more never overflows after its first response", async () => {
    const { model, seen } = agentModel(STEPS, 1.2);
    const processor = new ContextProcessor({ model: MODEL, limits: LIMITS });
    const result = await agentWith(model, [processor]).generate(TASK, generateOptions);
    expect(result.text).toBe(FINAL);
    for (const { tokens } of seen.slice(1)) expect(Math.ceil(tokens * 1.2) + RESERVED_OUTPUT).toBeLessThanOrEqual(WINDOW);
    expect(processor.fitter.calibration.get(MODEL)?.scale).toBeCloseTo(1.2, 2);
  });

  // mastra#24110: the limiter removed the message holding the tool call and result the run had
  // just produced, so the model called the tool again without ever seeing the data.
  it("never evicts the current step's tool call or result, even one result most of the window (mastra#24110)", async () => {
    const big = (step: number) => `${toolOutput(step)}\n${toolOutput(step + 100)}`;
    const { model, seen } = agentModel(8);
    const processor = contextProcessor({ model: MODEL, limits: LIMITS, compaction: { maxToolResultTokens: 5000, trimTo: 0.4 } });
    const result = await agentWith(model, [processor], big).generate(TASK, generateOptions);
    expect(result.text).toBe(FINAL);
    expect(seen).toHaveLength(9); // each call checked: the previous step's call and result are in it
    expect(Math.max(...seen.map((s) => s.tokens))).toBeGreaterThan(0.5 * (WINDOW - RESERVED_OUTPUT));
    // The agent's own record keeps every result whole: only what each call sends is fitted.
    const results = result.steps.flatMap((s) => s.toolResults);
    expect(results).toHaveLength(8);
    expect(JSON.stringify(results)).toContain(JSON.stringify(big(8)).slice(1, 200));
  });

  // mastra#24111: the limiter counted, at processInputStep, earlier turns' tool results that
  // ToolCallFilter removes later (at processLLMRequest), and dropped whole messages to make room.
  it("counts the prompt after ToolCallFilter removed old tool results, so nothing else is dropped (mastra#24111)", async () => {
    const history: unknown[] = [];
    for (let turn = 1; turn <= 8; turn++) {
      history.push({ role: "user", content: `Question ${turn}: what does src/module${turn}.ts export?` });
      history.push({
        role: "assistant",
        content: [
          { type: "tool-call", toolCallId: `old_${turn}`, toolName: "read_file", input: { path: `src/module${turn}.ts`, step: turn } },
        ],
      });
      history.push({
        role: "tool",
        content: [
          { type: "tool-result", toolCallId: `old_${turn}`, toolName: "read_file", output: { type: "text", value: toolOutput(turn) } },
        ],
      });
      history.push({ role: "assistant", content: `Answer ${turn}: it exports parseIsoDate${turn}.` });
    }
    let unfiltered = 0;
    for (let turn = 1; turn <= 8; turn++) unfiltered += toolOutputTokens(turn);
    expect(unfiltered).toBeGreaterThan(WINDOW); // counted before the filter, the history would not fit
    const prompts: Array<CallOptions["prompt"]> = [];
    const model = new MockLanguageModelV3({
      modelId: MODEL,
      doGenerate: async (options) => {
        prompts.push(options.prompt as never);
        return {
          content: [{ type: "text", text: FINAL }],
          finishReason: { unified: "stop", raw: undefined },
          usage: usageOf(100),
          warnings: [],
        };
      },
    });
    const compactions: number[] = [];
    const processor = contextProcessor({ model: MODEL, limits: LIMITS, onCompact: (e) => compactions.push(e.tokensBefore) });
    const agent = agentWith(model, [new ToolCallFilter(), processor]);
    const result = await agent.generate([...history, { role: "user", content: TASK }] as never, generateOptions);
    expect(result.text).toBe(FINAL);
    expect(compactions).toEqual([]);
    const sent = JSON.stringify(prompts[0]);
    expect(sent).not.toContain("old_1"); // the filter ran: its removals are what ctxwin counted
    for (let turn = 1; turn <= 8; turn++) {
      expect(sent).toContain(`Question ${turn}:`);
      expect(sent).toContain(`Answer ${turn}:`);
    }
    expect(counter.countMessages(prompts[0] as never) + RESERVED_OUTPUT).toBeLessThanOrEqual(WINDOW);
  });

  // mastra#5490: the limiter ran once, before the loop, so the loop's own growth overflowed.
  it("fits at every step of the loop, not once before it (mastra#5490)", async () => {
    const { model, seen } = agentModel(20);
    const steps: number[] = [];
    const processor = contextProcessor({ model: MODEL, limits: LIMITS });
    const probe = { id: "probe", processLLMRequest: ({ stepNumber }: { stepNumber: number }) => void steps.push(stepNumber) };
    const result = await agentWith(model, [probe, processor]).generate(TASK, generateOptions);
    expect(result.text).toBe(FINAL);
    expect(steps).toEqual(Array.from({ length: 21 }, (_, i) => i));
    expect(seen).toHaveLength(21); // each checked to fit, the last ones far past the window unfitted
    let raw = 0;
    for (let s = 1; s <= 20; s++) raw += toolOutputTokens(s);
    expect(raw).toBeGreaterThan(3 * WINDOW);
  });

  it("rejects bad options with coded errors", () => {
    expect(() => contextProcessor(undefined as never)).toThrow(expect.objectContaining({ code: "ERR_CTXWIN_INVALID_ARGUMENT" }));
    expect(() => contextProcessor({ model: 42 } as never)).toThrow(/options.model must be a string/);
    expect(() => contextProcessor({ model: MODEL, compaction: { trimTo: 0 } })).toThrow(
      expect.objectContaining({ name: "RangeError", code: "ERR_CTXWIN_OUT_OF_RANGE" }),
    );
  });
});
