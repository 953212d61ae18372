// The example agent loop (examples/agent-loop.ts) on AI SDK generateText with tools, driven by
// ai/test mock models: summarization runs between iterations when needsSummarization says so.
import { jsonSchema, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { ContextManager, type SummaryEvent } from "ctxwin";
import { SUMMARY_PROMPT } from "../../../ts/agent-threads/context-manager.js";
import { runAgentLoop, threadToMessages, type IterationReport } from "../../../examples/agent-loop.js";
import { ReplayModel, loadSession, replayTools } from "../../../examples/replay.js";

type CallOptions = Parameters<MockLanguageModelV3["doGenerate"]>[0];
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

/** An agent model that calls `read_file` for `steps` iterations, then answers. */
function scriptedAgent(steps: number) {
  const calls: CallOptions[] = [];
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      calls.push(options);
      const n = calls.length;
      if (n > steps) {
        return { content: [{ type: "text", text: "All done." }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] };
      }
      return {
        content: [
          { type: "tool-call", toolCallId: `call_${n}`, toolName: "read_file", input: JSON.stringify({ path: `src/file${n}.ts` }) },
        ],
        finishReason: { unified: "tool-calls", raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
  return { model, calls };
}

const tools = {
  read_file: tool({
    description: "Read a file",
    inputSchema: jsonSchema<{ path: string }>({ type: "object", properties: { path: { type: "string" } }, required: ["path"] }),
    execute: async ({ path }) => {
      if (path === "src/file4.ts") throw new Error(`ENOENT: ${path}`);
      return `// ${path}\n${"const x = 1;\n".repeat(60)}`;
    },
  }),
};

function systemOf(options: CallOptions): string {
  return options.prompt
    .filter((m) => m.role === "system")
    .map((m) => m.content as string)
    .join("\n");
}

describe("agent loop with the thread manager's context management", () => {
  it("summarizes between iterations when needsSummarization says so", async () => {
    const agent = scriptedAgent(12);
    const summaryPrompts: string[] = [];
    const summarizer = new MockLanguageModelV3({
      doGenerate: async (options) => {
        const user = options.prompt.find((m) => m.role === "user");
        summaryPrompts.push(user && Array.isArray(user.content) ? user.content.map((p) => (p.type === "text" ? p.text : "")).join("") : "");
        return {
          content: [{ type: "text", text: `Summary #${summaryPrompts.length}.` }],
          finishReason: { unified: "stop", raw: undefined },
          usage,
          warnings: [],
        };
      },
    });
    const cm = new ContextManager({ maxContextTokens: 900, keepRecentIterations: 2 });
    const reports: IterationReport[] = [];
    const thread = await runAgentLoop({
      model: agent.model,
      tools,
      task: "Read the files.",
      contextManager: cm,
      summaryModel: summarizer,
      onIteration: (r) => reports.push(r),
    });

    // It ran to the end and recorded the error of iteration 4.
    expect(reports.at(-1)?.done).toBe(true);
    expect(reports[3]?.errors).toEqual(["ENOENT: src/file4.ts"]);
    expect(thread.events.at(-1)).toMatchObject({ type: "completion", result: "All done." });

    // Summarization ran between iterations, only when over budget, and brought the thread back.
    const summarized = reports.filter((r) => r.summarized);
    expect(summarized.length).toBeGreaterThan(0);
    for (const r of reports) {
      if (r.summarized) expect(r.summarized.tokensBefore).toBeGreaterThan(900);
      if (!r.done) expect(r.tokens).toBeLessThanOrEqual(900 + 600);
    }
    expect(summaryPrompts.length).toBeGreaterThan(0);
    expect(summaryPrompts.every((p) => p.startsWith(SUMMARY_PROMPT))).toBe(true);

    // Summaries come first and the model sees them in its system prompt from then on.
    const summaries = thread.events.filter((e): e is SummaryEvent => e.type === "summary");
    expect(thread.events.slice(0, summaries.length)).toEqual(summaries);
    const firstSummarizedAt = summarized[0]!.iteration;
    expect(systemOf(agent.calls[firstSummarizedAt]!)).toContain("## Previous Iteration Summaries");
    expect(systemOf(agent.calls[0]!)).toBe("");

    // Every request is a valid conversation: each tool result follows its call.
    for (const call of agent.calls) {
      const seen = new Set<string>();
      for (const message of call.prompt) {
        if (!Array.isArray(message.content)) continue;
        for (const part of message.content) {
          if (part.type === "tool-call") seen.add(part.toolCallId);
          if (part.type === "tool-result") expect(seen.has(part.toolCallId)).toBe(true);
        }
      }
    }
  });

  it("replays the bundled 42-iteration session offline (the demo), staying under budget", async () => {
    const session = loadSession();
    expect(session.iterations.length).toBeGreaterThanOrEqual(40);
    const cm = new ContextManager({ maxContextTokens: 8000, keepRecentIterations: 3 });
    const reports: IterationReport[] = [];
    const { extractiveSummarizer } = await import("ctxwin");
    const thread = await runAgentLoop({
      model: new ReplayModel(session),
      tools: replayTools(session),
      task: session.task,
      contextManager: cm,
      summaryModel: extractiveSummarizer(),
      onIteration: (r) => reports.push(r),
    });
    expect(reports).toHaveLength(session.iterations.length + 1);
    expect(reports.filter((r) => r.summarized).length).toBeGreaterThan(3);
    expect(reports.every((r) => r.tokens <= 8000)).toBe(true);
    expect(thread.events.at(-1)).toMatchObject({ type: "completion", result: session.finalAnswer });
    expect(cm.buildContextInjection(thread)).toContain("ENOENT: no such file or directory, open 'src/util/date.ts'");
  });

  it("turns a thread into AI SDK messages with each result after its call", () => {
    const messages = threadToMessages({
      id: "t",
      metadata: {},
      createdAt: 0,
      updatedAt: 0,
      events: [
        { type: "summary", timestamp: 0, iteration: 1, summarizedIterations: [1], summary: "s" },
        { type: "tool_call", timestamp: 0, iteration: 2, toolName: "a", toolCallId: "c1", args: {} },
        { type: "tool_call", timestamp: 0, iteration: 2, toolName: "b", toolCallId: "c2", args: { x: 1 } },
        { type: "tool_result", timestamp: 0, iteration: 2, toolCallId: "c1", result: "ok" },
        { type: "error", timestamp: 0, iteration: 2, toolCallId: "c2", error: "boom", recoverable: true },
      ],
    });
    expect(messages).toEqual([
      {
        role: "assistant",
        content: [
          { type: "tool-call", toolCallId: "c1", toolName: "a", input: {} },
          { type: "tool-call", toolCallId: "c2", toolName: "b", input: { x: 1 } },
        ],
      },
      {
        role: "tool",
        content: [
          { type: "tool-result", toolCallId: "c1", toolName: "a", output: { type: "text", value: "ok" } },
          { type: "tool-result", toolCallId: "c2", toolName: "b", output: { type: "error-text", value: "boom" } },
        ],
      },
    ]);
  });
});
