// Offline stand-ins for a real model and real tools: a recorded agent session replayed through
// the AI SDK's LanguageModel interface, so the agent loop runs unchanged without a network.
import { readFileSync } from "node:fs";
import { jsonSchema, tool, type ToolSet } from "ai";

export interface RecordedCall {
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
  result?: unknown;
  error?: string;
}

export interface RecordedSession {
  task: string;
  finalAnswer: string;
  iterations: Array<{ iteration: number; thought: string; calls: RecordedCall[] }>;
}

export function loadSession(path = new URL("./data/session.json", import.meta.url)): RecordedSession {
  return JSON.parse(readFileSync(path, "utf8")) as RecordedSession;
}

const usage = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
});

/** An AI SDK LanguageModel (v3) that answers each call with the next recorded iteration. */
export class ReplayModel {
  readonly specificationVersion = "v3" as const;
  readonly provider = "replay";
  readonly modelId = "recorded-session";
  readonly supportedUrls: Record<string, RegExp[]> = {};
  /** Characters of the prompt of each call: shows the request staying bounded. */
  readonly promptChars: number[] = [];
  private next = 0;

  constructor(private readonly session: RecordedSession) {}

  async doGenerate(options: { prompt: Array<{ role: string; content: unknown }> }) {
    const chars = JSON.stringify(options.prompt).length;
    this.promptChars.push(chars);
    const step = this.session.iterations[this.next++];
    if (step === undefined) {
      return {
        content: [{ type: "text" as const, text: this.session.finalAnswer }],
        finishReason: { unified: "stop" as const, raw: undefined },
        usage: usage(Math.ceil(chars / 4), 40),
        warnings: [],
      };
    }
    return {
      content: [
        { type: "text" as const, text: step.thought },
        ...step.calls.map((call) => ({
          type: "tool-call" as const,
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          input: JSON.stringify(call.args),
        })),
      ],
      finishReason: { unified: "tool-calls" as const, raw: undefined },
      usage: usage(Math.ceil(chars / 4), 20),
      warnings: [],
    };
  }

  async doStream(): Promise<never> {
    throw new Error("ReplayModel does not stream");
  }
}

/** Tools that return what the recorded session's tools returned, and fail where they failed. */
export function replayTools(session: RecordedSession): ToolSet {
  const byId = new Map<string, RecordedCall>();
  const names = new Set<string>();
  for (const step of session.iterations) {
    for (const call of step.calls) {
      byId.set(call.toolCallId, call);
      names.add(call.toolName);
    }
  }
  const tools: ToolSet = {};
  for (const name of names) {
    tools[name] = tool({
      description: `${name} (replayed from a recorded session)`,
      inputSchema: jsonSchema<Record<string, unknown>>({ type: "object", additionalProperties: true }),
      execute: async (_input, { toolCallId }) => {
        const call = byId.get(toolCallId);
        if (call === undefined) throw new Error(`no recorded result for ${toolCallId}`);
        if (call.error !== undefined) throw new Error(call.error);
        return call.result;
      },
    });
  }
  return tools;
}
