// The agent-tools loop (agent-loop.ts) in an OpenAI Agents SDK run with ctxwin's input filter and
// contextTools: 60 steps, context_status at 10 and 45, compact_context at 20.
import { Agent, Runner, Usage, tool, type Model, type ModelRequest, type ModelResponse } from "@openai/agents";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { getCounter, type ToolDefinition } from "ctxwin";
import { contextInputFilter, contextTools, toMessageLikes } from "ctxwin/openai-agents";
import { MODEL, SYSTEM, TASK, toolOutput } from "../support/tool-loop.js";
import { COMPACTION, LIMITS, NOTICES, STEPS, Script } from "./agent-loop.js";

type Item = Record<string, unknown>;

const counter = getCounter(MODEL);

/** An item's text: a message's content (string or parts), a result's output. */
function textOf(item: Item): string {
  const value = item.type === "function_call_result" ? item.output : item.content;
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map((p: { text?: string }) => p.text ?? "").join("");
  if (value !== null && typeof value === "object" && typeof (value as { text?: unknown }).text === "string")
    return (value as { text: string }).text;
  return "";
}

class ScriptedModel implements Model {
  constructor(private readonly script: Script) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const input = (typeof request.input === "string" ? [{ role: "user", content: request.input }] : request.input) as unknown as Item[];
    const tools: ToolDefinition[] = request.tools.map((t) =>
      t.type === "function"
        ? {
            type: "function",
            function: { name: t.name, description: t.description, parameters: t.parameters as ToolDefinition["parameters"] },
          }
        : { name: t.name },
    );
    const tokens = counter.countMessages([{ role: "system", content: SYSTEM }, ...toMessageLikes(input as never)], { tools });
    const results = new Map<string, string>();
    for (const item of input) if (item.type === "function_call_result") results.set(item.callId as string, textOf(item));
    const move = this.script.next({ tokens, texts: input.map(textOf), results });
    const usage = new Usage({ requests: 1, inputTokens: 100, outputTokens: 20, totalTokens: 120 });
    if (move.kind === "final")
      return {
        usage,
        output: [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: move.text }] }],
      };
    const [name, args] =
      move.kind === "read"
        ? ["read_file", { path: `src/module${move.step}.ts`, step: move.step }]
        : move.kind === "status"
          ? ["context_status", {}]
          : ["compact_context", move.input];
    return { usage, output: [{ type: "function_call", callId: move.callId, name, arguments: JSON.stringify(args), status: "completed" }] };
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("not used");
  }
}

describe("context_status and compact_context in an OpenAI Agents run", () => {
  it("runs 60 steps: the asked compaction happens at the next request, keeps what keep named, and each notice reaches the model once", async () => {
    const script = new Script();
    const filter = contextInputFilter({
      model: MODEL,
      limits: LIMITS,
      compaction: COMPACTION,
      notices: NOTICES,
      onNotice: script.onNotice,
    });
    const readFile = tool({
      name: "read_file",
      description: "Read a file of the repository",
      parameters: z.object({ path: z.string(), step: z.number() }),
      execute: async ({ step }) => toolOutput(step),
    });
    const agent = new Agent({
      name: "coder",
      instructions: SYSTEM,
      model: new ScriptedModel(script),
      tools: [readFile, ...(await contextTools(filter))],
    });
    const runner = new Runner({ callModelInputFilter: filter, tracingDisabled: true });
    await runner.run(agent, TASK, { maxTurns: STEPS + 2 });
    script.finish();
    await expect(contextTools({})).rejects.toMatchObject({ name: "TypeError", code: "ERR_CTXWIN_INVALID_ARGUMENT" });
  }, 120_000);
});
