// The ways a request is made from a trajectory's messages, each replayed request by request:
// ctxwin's MessageContextManager in each TruncationMode (through the public API, as an agent loop
// calls it: addMessage for each message, then `await compactIfNeeded()` and
// `getContextForRequest()` before each assistant turn, a Recall following its compactions), and
// two baselines at the same window and counter: dropping the oldest whole turns with the system
// messages and the task pinned, and LangChain's trimMessages (strategy "last", system kept).
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, trimMessages, type BaseMessage } from "@langchain/core/messages";
import { ContextLimits, MessageContextManager, Recall, TruncationMode, extractiveSummarizer, type TiktokenCounter } from "ctxwin";
import type { ChatMessage } from "./convert.js";

/** A request as a method made it, and how to read back an id it names (ctxwin's Recall). */
export interface RequestView {
  messages: readonly unknown[];
  /** The original a recall of `id` returns, or undefined when recall has none. */
  recall?: (id: string) => Promise<string | undefined>;
}

export interface Replayer {
  add(message: ChatMessage): void;
  request(): Promise<RequestView>;
}

export interface Method {
  name: string;
  /** ctxwin's (recall applies) or a baseline. */
  ctxwin: boolean;
  start(window: number, counter: TiktokenCounter): Replayer;
}

/** The summary bound every ctxwin method runs with (the default). */
export const MAX_SUMMARY_TOKENS = 500;

const quiet = { warn: () => {} };

/** What the prompt may use at `window` tokens for gpt-4o (the window less the response reserve and reserved tokens). */
export function effectiveLimit(window: number): number {
  return ContextLimits.forModel("gpt-4o", { maxTokens: window }).effectiveLimit;
}

function ctxwinMethod(name: string, mode: TruncationMode | undefined): Method {
  return {
    name,
    ctxwin: true,
    start(window, counter) {
      // onOverflow "send": a request over the window is measured, not refused.
      const manager = new MessageContextManager<ChatMessage>({
        model: "gpt-4o",
        counter,
        limits: { maxTokens: window },
        ...(mode === undefined ? {} : { mode }),
        logger: quiet,
        compaction: {
          summarizer: mode === TruncationMode.SUMMARIZE ? extractiveSummarizer() : undefined,
          maxSummaryTokens: MAX_SUMMARY_TOKENS,
        },
        warnings: { onOverflow: "send" },
      });
      const recall = new Recall({ context: manager, maxBytes: 1 << 30, maxTokens: 1 << 30 });
      const originals = new Map<string, string>();
      let systemSet = false;
      return {
        add(message) {
          if (message.role === "system" && !systemSet) {
            manager.setSystemPrompt(message.content);
            systemSet = true;
          } else manager.addMessage(message);
        },
        async request() {
          await manager.compactIfNeeded();
          return {
            messages: manager.getContextForRequest(),
            // Only what was read is remembered: an id a request names before anything took its
            // message (a summary's problem names a result still in the history) reads later.
            recall: async (id) => {
              if (!originals.has(id)) {
                const answer = await recall.read(id);
                if (!answer.ok) return undefined;
                originals.set(id, answer.text);
              }
              return originals.get(id);
            },
          };
        },
      };
    },
  };
}

/** Each message's tokens (structure included) and the request's own overhead, counted once. */
class Counted {
  readonly messages: ChatMessage[] = [];
  readonly tokens: number[] = [];
  constructor(
    private readonly counter: TiktokenCounter,
    readonly overhead = counter.countMessages([]),
  ) {}
  add(message: ChatMessage): number {
    this.messages.push(message);
    const tokens = this.counter.countEachMessage([message])[0] as number;
    this.tokens.push(tokens);
    return this.messages.length - 1;
  }
}

/**
 * The oldest whole turns dropped until the request fits: system messages and the task (the first
 * user message) pinned; an assistant message and the tool results that answer it are one unit;
 * the newest units kept, as many as fit, contiguous.
 */
export const dropOldest: Method = {
  name: "drop oldest turns",
  ctxwin: false,
  start(window, counter) {
    const limit = effectiveLimit(window);
    const counted = new Counted(counter);
    return {
      add(message) {
        counted.add(message);
      },
      async request() {
        const { messages, tokens } = counted;
        const taskIndex = messages.findIndex((m) => m.role === "user");
        const pinned = messages.map((m, i) => m.role === "system" || i === taskIndex);
        let budget = limit - counted.overhead - tokens.reduce((sum, t, i) => sum + (pinned[i] ? t : 0), 0);
        const kept = new Set<number>();
        let end = messages.length;
        while (end > 0) {
          // The unit that ends at `end`: tool results and the assistant message that called them.
          let start = end - 1;
          while (start > 0 && messages[start]?.role === "tool") start--;
          const unit = [];
          for (let i = start; i < end; i++) if (!pinned[i]) unit.push(i);
          const cost = unit.reduce((sum, i) => sum + (tokens[i] as number), 0);
          if (cost > budget) break;
          budget -= cost;
          for (const i of unit) kept.add(i);
          end = start;
        }
        return { messages: messages.filter((_, i) => pinned[i] || kept.has(i)) };
      },
    };
  },
};

function toLangChain(message: ChatMessage, id: string): BaseMessage {
  switch (message.role) {
    case "system":
      return new SystemMessage({ content: message.content, id });
    case "user":
      return new HumanMessage({ content: message.content, id });
    case "tool":
      return new ToolMessage({ content: message.content, tool_call_id: message.tool_call_id, id });
    case "assistant":
      return new AIMessage({
        content: message.content ?? "",
        id,
        tool_calls: (message.tool_calls ?? []).map((c) => ({
          id: c.id,
          name: c.function.name,
          args: JSON.parse(c.function.arguments) as Record<string, unknown>,
        })),
      });
  }
}

/** LangChain's trimMessages: strategy "last", the system message kept, counted with the same counter (each message once). */
export const langchainTrim: Method = {
  name: "LangChain trimMessages",
  ctxwin: false,
  start(window, counter) {
    const limit = effectiveLimit(window);
    const counted = new Counted(counter);
    const history: BaseMessage[] = [];
    const tokenCounter = (ms: BaseMessage[]) => ms.reduce((sum, m) => sum + (counted.tokens[Number(m.id)] ?? 0), 0);
    return {
      add(message) {
        history.push(toLangChain(message, String(counted.add(message))));
      },
      async request() {
        const trimmed = await trimMessages(history, {
          maxTokens: limit - counted.overhead,
          strategy: "last",
          includeSystem: true,
          tokenCounter,
        });
        return { messages: trimmed.map((m) => counted.messages[Number(m.id)] as ChatMessage) };
      },
    };
  },
};

/** Every method, ctxwin's modes first (the default mode first of them). */
export const METHODS: readonly Method[] = [
  ctxwinMethod("default mode (smart)", undefined),
  ctxwinMethod("summarize + extractiveSummarizer()", TruncationMode.SUMMARIZE),
  ctxwinMethod("sliding_window", TruncationMode.SLIDING_WINDOW),
  ctxwinMethod("token_budget", TruncationMode.TOKEN_BUDGET),
  dropOldest,
  langchainTrim,
];
