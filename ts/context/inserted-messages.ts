// The messages the manager writes itself (the omission marker and the summaries in what it gives
// back) in the history's own shape: a history of LangChain messages gets a SystemMessage /
// HumanMessage / AIMessage of the caller's @langchain/core, not a plain `{ role, content }` that
// LangChain's chat models refuse (issue 36); `createMessage` builds them for any other shape.
// Only what the manager hands out is shaped: what it keeps, exports and logs stays the plain form.
import { isLangChainMessage } from "../messages/langchain-shape.js";
import type { InsertedRole } from "../messages/roles.js";
import type { MessageLike } from "../messages/types.js";
import { describe, typeError } from "../runtime/errors.js";
import { optionalFramework } from "../runtime/framework-modules.js";

/** A message the manager writes: its role and its text. */
export interface InsertedMessage {
  role: InsertedRole;
  content: string;
}

/** Builds a message the manager writes in the history's own shape (options.createMessage). */
export type MessageFactory<M> = (message: InsertedMessage) => M;

type LangChainClass = new (fields: { content: string }) => unknown;
type LangChainMessages = Record<"SystemMessage" | "HumanMessage" | "AIMessage", LangChainClass>;
const LANGCHAIN_CLASS = { system: "SystemMessage", user: "HumanMessage", assistant: "AIMessage" } as const;

/** Checks options.createMessage. */
export function checkFactory<M>(value: unknown): MessageFactory<M> | undefined {
  if (value !== undefined && typeof value !== "function")
    throw typeError(`options.createMessage must be a function ({ role, content }) => message, got ${describe(value)}`);
  return value as MessageFactory<M> | undefined;
}

/**
 * How to write inserted messages into a history holding `messages`: `factory` when given; for
 * LangChain messages, LangChain's classes (where they load); otherwise the plain form.
 */
export function insertedShape<M extends MessageLike>(
  factory: MessageFactory<M> | undefined,
  messages: readonly M[],
): ((message: InsertedMessage) => M | InsertedMessage) | undefined {
  if (factory !== undefined) return factory;
  // The oldest message may be a summary the manager wrote: the newest says as much.
  if (!isLangChainMessage(messages[0]) && !isLangChainMessage(messages[messages.length - 1])) return undefined;
  const core = optionalFramework<LangChainMessages>("@langchain/core/messages");
  if (core === undefined) return undefined;
  return ({ role, content }) => new core[LANGCHAIN_CLASS[role]]({ content }) as M;
}
