// ctxwin inside the OpenAI Agents SDK: a Runner with contextInputFilter runs an agent through 60
// tool-calling turns on a model with an 8,000-token window, then three more runs share a
// ContextSession whose history stays within the window.
//
// Runs offline: the model is a small Agents SDK `Model` implementation scripted to read a file per
// turn and answer at the end. With OpenAI, give the agent `model: "gpt-4.1"` and keep the filter.
//
//   node --import tsx examples/frameworks/openai-agents.ts
import { Agent, Runner, Usage, setTracingDisabled, tool, type Model, type ModelRequest, type ModelResponse } from "@openai/agents";
import { z } from "zod";
import { getCounter } from "ctxwin";
import { ContextSession, contextInputFilter, toMessageLikes } from "ctxwin/openai-agents";
import { ANSWER, STEPS, SYSTEM, TASK, fileContents } from "./tools.js";

setTracingDisabled(true);
const counter = getCounter("gpt-4o");
let largest = 0;

/** Reads a file per turn, `turns` turns per run, then answers. */
class ScriptedModel implements Model {
  private turn = 0;
  private step = 0;
  constructor(private readonly turns: number) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const input = typeof request.input === "string" ? [{ role: "user" as const, content: request.input }] : request.input;
    const tokens = counter.countMessages([{ role: "system", content: request.systemInstructions ?? "" }, ...toMessageLikes(input)]);
    largest = Math.max(largest, tokens);
    const usage = new Usage({ requests: 1, inputTokens: tokens, outputTokens: 20, totalTokens: tokens + 20 });
    if (this.turn === this.turns) {
      this.turn = 0;
      return {
        usage,
        output: [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: ANSWER }] }],
      };
    }
    this.turn++;
    const step = ++this.step;
    return {
      usage,
      output: [
        {
          type: "function_call",
          callId: `call_${step}`,
          name: "read_file",
          arguments: JSON.stringify({ path: `src/module${step}.ts`, step }),
          status: "completed",
        },
      ],
    };
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("this example does not stream");
  }
}

const readFile = tool({
  name: "read_file",
  description: "Read a file of the repository",
  parameters: z.object({ path: z.string(), step: z.number() }),
  execute: async ({ step }) => fileContents(step),
});

const limits = { maxTokens: 8000, maxOutputTokens: 1000 };
let compacted = 0;
const filter = contextInputFilter({ model: "gpt-4o", limits, onCompact: () => compacted++ });
const runner = new Runner({ callModelInputFilter: filter });
filter.attach(runner); // each response's reported usage calibrates later counts

const agent = new Agent({
  name: "coder",
  instructions: SYSTEM,
  tools: [readFile],
  model: new ScriptedModel(STEPS),
  modelSettings: { maxTokens: 1000 },
});
const result = await runner.run(agent, TASK, { maxTurns: STEPS + 5 });
console.log(`one run of ${STEPS} tool turns: ${result.finalOutput}`);
console.log(`largest prompt the model saw: ${largest} tokens (window 8,000, 1,000 reserved for output); calls fitted: ${compacted}`);

// A conversation over several runs: the session keeps every item and hands each run a history
// within the window.
const session = new ContextSession({ model: "gpt-4o", limits, instructions: SYSTEM, agent });
const chat = new Agent({
  name: "coder",
  instructions: SYSTEM,
  tools: [readFile],
  model: new ScriptedModel(8),
  modelSettings: { maxTokens: 1000 },
});
for (const question of ["Where is the CSV exporter?", "Which function parses the due date?", "Fix it."]) {
  const answer = await runner.run(chat, question, { session, maxTurns: 20 });
  console.log(`${question} -> ${answer.finalOutput}`);
}
console.log(`session items handed to the last run: ${(await session.getItems()).length}`);
