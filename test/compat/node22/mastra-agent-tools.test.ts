// The agent-tools loop (test/ts/agent-tools/agent-loop.ts) in a Mastra agent's real tool loop
// (@mastra/core 1, Node 22.13 or later), with contextProcessor and contextTools: 60 steps,
// context_status at 10 and 45, compact_context at 20.
import { Agent } from "@mastra/core/agent";
import { createTool } from "@mastra/core/tools";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { getCounter } from "ctxwin";
import { contextProcessor, contextTools } from "ctxwin/mastra";
import { definitions, type CallOptions } from "../../ts/adapters/ai-sdk-suite.js";
import { MODEL, SYSTEM, TASK, toolOutput } from "../../ts/support/tool-loop.js";
import { COMPACTION, LIMITS, NOTICES, RESERVED_OUTPUT, STEPS, Script, type Move } from "../../ts/agent-tools/agent-loop.js";

type Part = { type: string; text?: string; toolCallId?: string; output?: { type: string; value: unknown } };

const counter = getCounter(MODEL);
const usage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 20, text: 20, reasoning: undefined },
};

function result(move: Move) {
  if (move.kind === "final")
    return {
      content: [{ type: "text" as const, text: move.text }],
      finishReason: { unified: "stop" as const, raw: undefined },
      usage,
      warnings: [],
    };
  const [toolName, input] =
    move.kind === "read"
      ? ["read_file", { path: `src/module${move.step}.ts`, step: move.step }]
      : move.kind === "status"
        ? ["context_status", {}]
        : ["compact_context", move.input];
  return {
    content: [{ type: "tool-call" as const, toolCallId: move.callId, toolName, input: JSON.stringify(input) }],
    finishReason: { unified: "tool-calls" as const, raw: undefined },
    usage,
    warnings: [],
  };
}

const readFile = createTool({
  id: "read_file",
  description: "Read a file of the repository",
  inputSchema: z.object({ path: z.string(), step: z.number() }),
  execute: async ({ step }) => toolOutput(step),
});

describe("context_status and compact_context in a Mastra agent loop", () => {
  it("runs 60 steps: the asked compaction happens at the next request, keeps what keep named, and each notice reaches the model once", async () => {
    const script = new Script();
    const processor = contextProcessor({
      model: MODEL,
      limits: LIMITS,
      compaction: COMPACTION,
      notices: NOTICES,
      onNotice: script.onNotice,
    });
    const model = new MockLanguageModelV3({
      modelId: MODEL,
      doGenerate: async (options) => {
        const prompt = options.prompt as Array<{ role: string; content: unknown }>;
        const texts: string[] = [];
        const results = new Map<string, string>();
        for (const message of prompt) {
          if (typeof message.content === "string") texts.push(message.content);
          for (const part of (Array.isArray(message.content) ? message.content : []) as Part[]) {
            if (part.type === "text") texts.push(part.text as string);
            if (part.type === "tool-result") {
              const value = String(part.output?.value);
              results.set(part.toolCallId as string, value);
              texts.push(value);
            }
          }
        }
        const tokens = counter.countMessages(prompt as never, { tools: definitions(options as unknown as CallOptions) });
        return result(script.next({ tokens, texts, results }));
      },
    });
    const agent = new Agent({
      id: "coder",
      name: "coder",
      instructions: SYSTEM,
      model,
      tools: { read_file: readFile, ...(await contextTools(processor)) },
      inputProcessors: [processor],
    });
    await agent.generate(TASK, { maxSteps: STEPS + 2, modelSettings: { maxOutputTokens: RESERVED_OUTPUT } });
    script.finish();
    await expect(contextTools({})).rejects.toMatchObject({ name: "TypeError", code: "ERR_CTXWIN_INVALID_ARGUMENT" });
  }, 120_000);
});
