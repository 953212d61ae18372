// ctxwin inside an AI SDK tool loop: generateText with tools runs 60 steps on a model with an
// 8,000-token window, and contextMiddleware brings every step's prompt within it.
//
// Runs offline: the model is the AI SDK's own MockLanguageModelV3 (`ai/test`), scripted to read a
// file per step and answer at the end. With a real provider, replace `model` (e.g. openai("gpt-4o"))
// and keep the middleware as it is.
//
//   node --import tsx examples/frameworks/ai-sdk.ts
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { getCounter } from "ctxwin";
import { contextMiddleware } from "ctxwin/ai-sdk";
import { ANSWER, STEPS, SYSTEM, TASK, fileContents } from "./tools.js";

const counter = getCounter("gpt-4o");
let step = 0;
let largest = 0;
const usage = (input: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 20, text: 20, reasoning: 0 },
});

const model = new MockLanguageModelV3({
  modelId: "gpt-4o",
  doGenerate: async ({ prompt }) => {
    // A real provider would count this prompt itself and report it as usage; the mock counts it
    // with the same tokenizer.
    const input = counter.countMessages(prompt as never);
    largest = Math.max(largest, input);
    step++;
    if (step > STEPS)
      return {
        content: [{ type: "text", text: ANSWER }],
        finishReason: { unified: "stop", raw: undefined },
        usage: usage(input),
        warnings: [],
      };
    const call = {
      type: "tool-call" as const,
      toolCallId: `call_${step}`,
      toolName: "read_file",
      input: JSON.stringify({ path: `src/module${step}.ts`, step }),
    };
    return { content: [call], finishReason: { unified: "tool-calls", raw: undefined }, usage: usage(input), warnings: [] };
  },
});

const readFile = tool({
  description: "Read a file of the repository",
  inputSchema: jsonSchema<{ path: string; step: number }>({
    type: "object",
    properties: { path: { type: "string" }, step: { type: "number" } },
    required: ["path", "step"],
  }),
  execute: async ({ step }) => fileContents(step),
});

let compacted = 0;
const middleware = contextMiddleware({
  model: "gpt-4o",
  limits: { maxTokens: 8000, maxOutputTokens: 1000 },
  onCompact: () => compacted++,
  compaction: {
    // an 8,000-token window, 1,000 kept for the answer
    keepToolResults: 3,
  },
});

const result = await generateText({
  model: wrapLanguageModel({ model, middleware }),
  system: SYSTEM,
  prompt: TASK,
  tools: { read_file: readFile },
  stopWhen: stepCountIs(STEPS + 5),
  maxOutputTokens: 1000,
});

let unmanaged = 0;
for (let s = 1; s <= STEPS; s++) unmanaged += counter.count(fileContents(s));
console.log(`steps: ${result.steps.length}; answer: ${result.text}`);
console.log(`largest prompt the model saw: ${largest} tokens (window 8,000, 1,000 reserved for output)`);
console.log(`tool output over the run: ${unmanaged} tokens; prompts brought within the window: ${compacted}`);
