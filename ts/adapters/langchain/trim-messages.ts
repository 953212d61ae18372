// trimMessages with the options of @langchain/core's (maxTokens, tokenCounter, strategy, startOn,
// endOn, includeSystem, allowPartial, textSplitter), as a drop-in, that never separates a tool call
// from its results: LangChain's cuts wherever they fall, and its "last" strategy without startOn
// keeps results whose call it dropped, which providers reject. The rules are trim-plan.ts's; here
// the options are checked and the counter is read.
import { describe, rangeError, typeError } from "../../runtime/errors.js";
import { chatMessageOf, isLangChainMessage, langChainType } from "../../messages/langchain-shape.js";
import { isRecord } from "../../messages/message-shape.js";
import { messageTokens } from "../../tokens/message-tokens.js";
import type { TokenCounter } from "../../tokens/token-counter.js";
import type { MessageLike } from "../../messages/types.js";
import { planTrim, type ListCounter } from "./trim-plan.js";

/** A LangChain message type ("human", "ai", "system", "tool", ...), or a message class (HumanMessage). */
export type MessageTypeOrClass = string | (new (fields: never) => object);

/** A LangChain model's own counter (a chat model): LangChain sums getNumTokens(content) over the messages. */
export interface NumTokensCounter {
  getNumTokens(content: never): Promise<number>;
}

export interface TrimMessagesOptions<M extends object = object> {
  /** The most tokens the kept messages may count. */
  maxTokens: number;
  /** ctxwin's counter (getCounter(model)), a function of the messages, or a LangChain chat model. */
  tokenCounter: TokenCounter | ((messages: M[]) => number | Promise<number>) | NumTokensCounter;
  /** Keep the first messages or the last ones (default "last"). */
  strategy?: "first" | "last";
  /** Cut the message at the edge (its first or last content blocks, else lines of its text) when it does not fit whole. */
  allowPartial?: boolean;
  /** ("last" only) The kept messages start with a message of one of these types. */
  startOn?: MessageTypeOrClass | MessageTypeOrClass[];
  /** The kept messages end with a message of one of these types. */
  endOn?: MessageTypeOrClass | MessageTypeOrClass[];
  /** ("last" only) Keep a system message that comes first. */
  includeSystem?: boolean;
  /** How allowPartial splits text (default: after each newline, as LangChain's). */
  textSplitter?: ((text: string) => string[] | Promise<string[]>) | { splitText(text: string): Promise<string[]> };
}

const TYPE_OF_ROLE: Readonly<Record<string, string>> = {
  user: "human",
  assistant: "ai",
  system: "system",
  developer: "system",
  tool: "tool",
  function: "function",
};

/** A message's LangChain type: its own, or the one of its chat role. */
function typeOf(message: object): string | undefined {
  if (isLangChainMessage(message)) return langChainType(message as Record<string, unknown>);
  const role = (message as { role?: unknown }).role;
  return typeof role === "string" ? (TYPE_OF_ROLE[role] ?? role) : undefined;
}

function typeSet(value: MessageTypeOrClass | MessageTypeOrClass[], name: string): (message: object) => boolean {
  const list = Array.isArray(value) ? value : [value];
  const types = new Set(
    list.map((t, i) => {
      const at = Array.isArray(value) ? `${name}[${i}]` : name;
      if (typeof t === "string") return TYPE_OF_ROLE[t] ?? t;
      if (typeof t !== "function") throw typeError(`options.${at} must be a message type or a message class, got ${describe(t)}`);
      // LangChain reads a class's type from an instance of it, as here.
      const type = typeOf(new (t as new (fields: object) => object)({}));
      if (type === undefined) throw typeError(`options.${at} is not a LangChain message class`);
      return type;
    }),
  );
  return (message) => types.has(typeOf(message) ?? "");
}

function defaultSplitter(text: string): Promise<string[]> {
  const splits = text.split("\n");
  return Promise.resolve([...splits.slice(0, -1).map((s) => `${s}\n`), splits[splits.length - 1] ?? ""]);
}

function isTokenCounter(value: object): value is TokenCounter {
  return (
    typeof (value as Partial<TokenCounter>).countMessages === "function" && typeof (value as Partial<TokenCounter>).count === "function"
  );
}

function checkedCount(value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0)
    throw rangeError(`options.tokenCounter must count a number >= 0, got ${describe(value)}`);
  return value;
}

/** ctxwin's counter as a list counter: each message counted once (in one batch), a request being its messages plus its own frame. */
function additiveCounter(counter: TokenCounter, messages: readonly object[]): ListCounter {
  const empty = counter.countMessages([]);
  const each = messageTokens(counter, messages as MessageLike[]);
  const known = new Map<object, number>(messages.map((m, i) => [m, each[i] ?? 0]));
  const tokensOf = (m: object) => known.get(m) ?? Math.max(0, counter.countMessages([m as MessageLike]) - empty);
  return (list) => Promise.resolve(list.reduce((sum, m) => sum + tokensOf(m), empty));
}

function listCounter<M extends object>(
  tokenCounter: TrimMessagesOptions<M>["tokenCounter"],
  messages: readonly object[],
): { count: ListCounter; exact?: ListCounter } {
  if (typeof tokenCounter === "function") return { count: async (list) => checkedCount(await tokenCounter(list as M[])) };
  if (isRecord(tokenCounter) && isTokenCounter(tokenCounter)) {
    const exact: ListCounter = (list) => Promise.resolve(tokenCounter.countMessages(list as MessageLike[]));
    return { count: additiveCounter(tokenCounter, messages), exact };
  }
  if (isRecord(tokenCounter) && typeof (tokenCounter as Partial<NumTokensCounter>).getNumTokens === "function") {
    const model = tokenCounter as NumTokensCounter;
    return {
      count: async (list) => {
        const counts = await Promise.all(list.map((m) => model.getNumTokens((m as { content?: unknown }).content as never)));
        return counts.reduce((sum, c) => sum + checkedCount(c), 0);
      },
    };
  }
  throw typeError(
    `options.tokenCounter must be a ctxwin TokenCounter, a function of the messages or a model with getNumTokens, got ${describe(tokenCounter)}`,
  );
}

/**
 * The messages trimmed to `maxTokens` as @langchain/core's trimMessages trims them, except that a
 * tool call and its results are kept or dropped together. The kept messages are the caller's own
 * objects; a cut message (allowPartial) is a new one of the same class. Bad options are a coded
 * TypeError / RangeError naming the option; the messages are checked as everywhere in ctxwin.
 */
export async function trimMessageList<M extends object>(messages: readonly M[], options: TrimMessagesOptions<M>): Promise<M[]> {
  if (!Array.isArray(messages)) throw typeError(`messages must be an array, got ${describe(messages)}`);
  if (!isRecord(options)) throw typeError(`options must be an object, got ${describe(options)}`);
  const { maxTokens, strategy = "last", allowPartial = false, includeSystem = false, startOn, endOn, textSplitter } = options;
  if (typeof maxTokens !== "number" || Number.isNaN(maxTokens) || maxTokens < 0)
    throw rangeError(`options.maxTokens must be a number >= 0, got ${describe(maxTokens)}`);
  if (strategy !== "first" && strategy !== "last")
    throw rangeError(`options.strategy must be "first" or "last", got ${describe(strategy)}`);
  for (const [name, value] of [
    ["allowPartial", allowPartial],
    ["includeSystem", includeSystem],
  ] as const) {
    if (typeof value !== "boolean") throw typeError(`options.${name} must be a boolean, got ${describe(value)}`);
  }
  if (strategy === "first" && startOn !== undefined) throw rangeError(`options.startOn applies to strategy "last" only`);
  if (strategy === "first" && includeSystem) throw rangeError(`options.includeSystem applies to strategy "last" only`);
  let splitText = defaultSplitter;
  if (typeof textSplitter === "function") splitText = async (text) => textSplitter(text);
  else if (isRecord(textSplitter) && typeof textSplitter.splitText === "function") splitText = (text) => textSplitter.splitText(text);
  else if (textSplitter !== undefined)
    throw typeError(`options.textSplitter must be a function or have splitText, got ${describe(textSplitter)}`);
  messages.forEach((m, i) => chatMessageOf(m, `messages[${i}]`)); // a RemoveMessage and the like, named before anything is counted
  const counters = listCounter(options.tokenCounter, messages);
  const plan = (count: ListCounter) =>
    planTrim(messages, {
      maxTokens,
      count,
      strategy,
      allowPartial,
      includeSystem,
      isSystem: (m) => typeOf(m) === "system",
      splitText,
      ...(startOn !== undefined ? { startOn: typeSet(startOn, "startOn") } : {}),
      ...(endOn !== undefined ? { endOn: typeSet(endOn, "endOn") } : {}),
    }) as Promise<M[]>;
  const kept = await plan(counters.count);
  // A counter whose request is not the sum of its messages (a chat template): planned again with whole counts.
  if (counters.exact && kept.length > 0 && (await counters.exact(kept)) > maxTokens) return plan(counters.exact);
  return kept;
}
