// ctxwin inside a LangChain v1 agent: createAgent runs 60 tool-calling steps on a model with an
// 8,000-token window, and the ctxwin middleware fits every model call while the agent's state
// keeps the whole history.
//
// Runs offline: the model is LangChain's fake chat model (`fakeModel()` from @langchain/core/testing),
// scripted to read a file per step and answer at the end. With a real chat model, pass it as
// `model` and keep the middleware.
//
//   node --import tsx examples/frameworks/langchain.ts
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { createAgent } from "langchain";
import { z } from "zod";
import { getCounter } from "ctxwin";
import { contextMiddleware, toMessageLikes } from "ctxwin/langchain";
import { ANSWER, STEPS, SYSTEM, TASK, fileContents } from "./tools.js";

const counter = getCounter("gpt-4o");
let largest = 0;
const model = fakeModel();
for (let step = 1; step <= STEPS + 1; step++) {
  model.respond((messages: BaseMessage[]) => {
    const input = counter.countMessages(toMessageLikes(messages));
    largest = Math.max(largest, input);
    const usage_metadata = { input_tokens: input, output_tokens: 20, total_tokens: input + 20 };
    if (step > STEPS) return new AIMessage({ content: ANSWER, usage_metadata });
    return new AIMessage({
      content: "",
      tool_calls: [{ id: `call_${step}`, name: "read_file", args: { path: `src/module${step}.ts`, step }, type: "tool_call" }],
      usage_metadata,
    });
  });
}

const readFile = tool(async ({ step }) => fileContents(step), {
  name: "read_file",
  description: "Read a file of the repository",
  schema: z.object({ path: z.string(), step: z.number() }),
});

let compacted = 0;
const agent = createAgent({
  model,
  tools: [readFile],
  systemPrompt: SYSTEM,
  middleware: [contextMiddleware({ model: "gpt-4o", limits: { maxTokens: 8000, maxOutputTokens: 1000 }, onCompact: () => compacted++ })],
});

const state = await agent.invoke({ messages: [{ role: "user", content: TASK }] }, { recursionLimit: 4 * STEPS });
console.log(`messages in the agent's state: ${state.messages.length}; answer: ${state.messages[state.messages.length - 1]?.text}`);
console.log(`largest prompt the model saw: ${largest} tokens (window 8,000, 1,000 reserved for output)`);
console.log(`model calls brought within the window: ${compacted}`);
