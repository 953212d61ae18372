// An agent loop on the AI SDK's generateText with tools, with SPEC-08 context management:
// between iterations, when `needsSummarization` says so, old iterations are summarized and their
// summaries go into the system prompt through `buildContextInjection`.
//
// Copy it as a starting point; `npm run demo` runs it offline (examples/demo.ts).
import { generateText, type LanguageModel, type ModelMessage, type ToolSet } from "ai";
import type { AgentEvent, AgentThread, ContextManager, SummaryModel } from "ctxwin";

export interface AgentLoopOptions {
  /** The agent's model. */
  model: LanguageModel;
  tools: ToolSet;
  /** The user's task: the first user message of every request. */
  task: string;
  /** Instructions that precede the summaries in the system prompt. */
  system?: string;
  contextManager: ContextManager;
  /** The model that writes summaries: the agent's own, a cheaper one, or extractiveSummarizer(). */
  summaryModel: SummaryModel;
  maxIterations?: number;
  thread?: AgentThread;
  /** Called after each iteration, after any summarization. */
  onIteration?: (report: IterationReport) => void;
}

export interface SummarizationReport {
  /** Iterations that got a new summary. */
  iterations: number[];
  removedEvents: number;
  tokensBefore: number;
  tokensAfter: number;
}

export interface IterationReport {
  iteration: number;
  toolCalls: string[];
  errors: string[];
  /** The thread's estimate after this iteration (and after any summarization). */
  tokens: number;
  events: number;
  summarized?: SummarizationReport;
  done: boolean;
}

export function newThread(id = `thread-${Date.now()}`): AgentThread {
  const now = Date.now();
  return { id, events: [], metadata: {}, createdAt: now, updatedAt: now };
}

export async function runAgentLoop(options: AgentLoopOptions): Promise<AgentThread> {
  const { contextManager: cm, maxIterations = 100 } = options;
  const thread = options.thread ?? newThread();
  const first = thread.events.reduce((max, e) => Math.max(max, e.iteration), 0) + 1;

  for (let iteration = first; iteration < first + maxIterations; iteration++) {
    const injection = cm.buildContextInjection(thread);
    const system = [options.system, injection].filter((part) => part).join("\n\n") || undefined;
    const result = await generateText({
      model: options.model,
      system,
      messages: [{ role: "user", content: options.task }, ...threadToMessages(thread)],
      tools: options.tools,
    });

    const report: IterationReport = { iteration, toolCalls: [], errors: [], tokens: 0, events: 0, done: false };
    const now = Date.now();
    for (const part of result.content) {
      if (part.type === "text" && part.text !== "" && result.toolCalls.length > 0) {
        thread.events.push({ type: "message", timestamp: now, iteration, role: "assistant", content: part.text });
      } else if (part.type === "tool-call") {
        report.toolCalls.push(part.toolName);
        thread.events.push({
          type: "tool_call",
          timestamp: now,
          iteration,
          toolName: part.toolName,
          toolCallId: part.toolCallId,
          args: (part.input ?? {}) as Record<string, unknown>,
        });
      } else if (part.type === "tool-result") {
        thread.events.push({ type: "tool_result", timestamp: now, iteration, toolCallId: part.toolCallId, result: part.output });
      } else if (part.type === "tool-error") {
        const error = part.error instanceof Error ? part.error.message : String(part.error);
        report.errors.push(error);
        thread.events.push({ type: "error", timestamp: now, iteration, toolCallId: part.toolCallId, error, recoverable: true });
      }
    }
    if (result.toolCalls.length === 0) {
      thread.events.push({ type: "completion", timestamp: now, iteration, result: result.text, verified: false });
      report.done = true;
    }
    thread.updatedAt = now;

    // Between iterations: keep the thread inside the budget.
    if (!report.done && cm.needsSummarization(thread)) {
      const tokensBefore = cm.estimateThreadTokens(thread);
      const before = new Set(thread.events);
      await cm.summarize(thread, options.summaryModel);
      const after = new Set(thread.events);
      report.summarized = {
        iterations: thread.events.filter((e) => !before.has(e)).map((e) => e.iteration),
        removedEvents: [...before].filter((e) => !after.has(e)).length,
        tokensBefore,
        tokensAfter: cm.estimateThreadTokens(thread),
      };
    }
    report.tokens = cm.estimateThreadTokens(thread);
    report.events = thread.events.length;
    options.onIteration?.(report);
    if (report.done) break;
  }
  return thread;
}

/**
 * The thread as AI SDK messages. Summaries are left out (they reach the model through the system
 * prompt); a tool call and its result always travel together, because summarize() removes whole
 * iterations.
 */
export function threadToMessages(thread: AgentThread): ModelMessage[] {
  const messages: ModelMessage[] = [];
  const toolNames = new Map<string, string>();
  const push = (message: ModelMessage) => {
    const last = messages[messages.length - 1];
    // Consecutive assistant parts, or consecutive tool results, form one message.
    if (
      last &&
      last.role === message.role &&
      (last.role === "assistant" || last.role === "tool") &&
      Array.isArray(last.content) &&
      Array.isArray(message.content)
    ) {
      (last.content as unknown[]).push(...(message.content as unknown[]));
    } else {
      messages.push(message);
    }
  };
  for (const event of thread.events as AgentEvent[]) {
    switch (event.type) {
      case "tool_call":
        toolNames.set(event.toolCallId, event.toolName);
        push({
          role: "assistant",
          content: [{ type: "tool-call", toolCallId: event.toolCallId, toolName: event.toolName, input: event.args }],
        });
        break;
      case "tool_result":
        push({
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: event.toolCallId,
              toolName: toolNames.get(event.toolCallId) ?? "unknown",
              output:
                typeof event.result === "string"
                  ? { type: "text", value: event.result }
                  : { type: "json", value: (event.result ?? null) as never },
            },
          ],
        });
        break;
      case "error":
        if (event.toolCallId !== undefined && toolNames.has(event.toolCallId)) {
          push({
            role: "tool",
            content: [
              {
                type: "tool-result",
                toolCallId: event.toolCallId,
                toolName: toolNames.get(event.toolCallId) as string,
                output: { type: "error-text", value: event.error },
              },
            ],
          });
        } else {
          push({ role: "user", content: `Error: ${event.error}` });
        }
        break;
      case "message":
        push(
          event.role === "assistant"
            ? { role: "assistant", content: [{ type: "text", text: event.content }] }
            : { role: event.role, content: event.content },
        );
        break;
      case "human_input_requested":
        push({ role: "assistant", content: [{ type: "text", text: event.question }] });
        break;
      case "human_input_received":
        push({ role: "user", content: event.response });
        break;
      case "completion":
        push({ role: "assistant", content: [{ type: "text", text: event.result }] });
        break;
      case "summary":
        break;
    }
  }
  return messages;
}
