// The agent steering its own context in an AI SDK tool loop: besides read_file it has
// context_status and compact_context (ctxwin/ai-sdk contextTools), and ctxwin tells it once after
// each compaction what went (notices). The scripted model reads a file per step, asks for its
// context's state at step 5, and at step 30, its first phase over, asks for a compaction that
// keeps call_3 verbatim and a finding as text; the compaction runs before its next call.
//
// Runs offline (the AI SDK's MockLanguageModelV3). With a real provider, replace `model` and keep
// the middleware and the tools as they are.
//
//   node --import tsx examples/frameworks/agent-tools.ts
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { getCounter } from "ctxwin";
import { contextMiddleware, contextTools } from "ctxwin/ai-sdk";
import { ANSWER, STEPS, SYSTEM, TASK, fileContents } from "./tools.js";

const counter = getCounter("gpt-4o");
let step = 0;
let largest = 0;
const usage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 20, text: 20, reasoning: undefined },
};

/** What the model does at each step: the context tools at steps 5 and 30, a file read otherwise. */
function callAt(n: number): { toolName: string; input: object } {
  if (n === 5) return { toolName: "context_status", input: {} };
  if (n === 30)
    return {
      toolName: "compact_context",
      input: { reason: "reading done, fixing now", keep: ["call_3", "the bug: parseIsoDate drops the offset"] },
    };
  return { toolName: "read_file", input: { path: `src/module${n}.ts`, step: n } };
}

const model = new MockLanguageModelV3({
  modelId: "gpt-4o",
  doGenerate: async ({ prompt }) => {
    largest = Math.max(largest, counter.countMessages(prompt as never));
    step++;
    // What the context tools answered, as the model reads it in its next prompt.
    for (const message of prompt)
      for (const part of Array.isArray(message.content) ? message.content : [])
        if (
          part.type === "tool-result" &&
          (part.toolCallId === "call_5" || part.toolCallId === "call_30") &&
          step === Number(part.toolCallId.slice(5)) + 1
        )
          console.log(`${part.toolCallId} answered:\n${String((part.output as { value?: unknown }).value)}\n`);
    if (step > STEPS)
      return { content: [{ type: "text", text: ANSWER }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] };
    const { toolName, input } = callAt(step);
    const call = { type: "tool-call" as const, toolCallId: `call_${step}`, toolName, input: JSON.stringify(input) };
    return { content: [call], finishReason: { unified: "tool-calls", raw: undefined }, usage, warnings: [] };
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

const middleware = contextMiddleware({
  model: "gpt-4o",
  limits: { maxTokens: 8000, maxOutputTokens: 1000 },
  compaction: { keepToolResults: 3, maxToolResultTokens: 3000 },
  notices: { afterCompaction: true },
  onNotice: (notice) => {
    if (step === 30) console.log(`notice at step ${step + 1}: ${notice.text}\n`);
  },
});

const result = await generateText({
  model: wrapLanguageModel({ model, middleware }),
  system: SYSTEM,
  prompt: TASK,
  tools: { read_file: readFile, ...contextTools(middleware) },
  stopWhen: stepCountIs(STEPS + 5),
  maxOutputTokens: 1000,
});

console.log(`steps: ${result.steps.length}; answer: ${result.text}`);
console.log(`compactions: ${middleware.fitter.status().compactions.total}; largest prompt the model saw: ${largest} tokens`);
