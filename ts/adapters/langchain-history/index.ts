// `ctxwin/langchain-history`: LangChain's BaseListChatMessageHistory over any SessionStore.
//
// LangChain's chains and agents (RunnableWithMessageHistory and the like) keep their conversation
// here, in the same append-only log a MessageContextManager uses: each message is stored both in
// LangChain's own serialized form (read back exactly) and as a chat message a manager reads, so
// either can open a session the other wrote. clear() is a boundary, like /clear: nothing is erased.
// @langchain/core is an optional peer dependency, needed only by this subpath: loaded without it
// (by import or require), the subpath throws ERR_CTXWIN_LANGCHAIN_MISSING with the command that
// installs it.
import { randomBase64url } from "../../runtime/random-id.js";
import "../../runtime/node-loader.js"; // loads the core on Node before anything uses it
import type { BaseListChatMessageHistory } from "@langchain/core/chat_history";
import type { BaseMessage, StoredMessage } from "@langchain/core/messages";
import { LANGCHAIN_CORE_PEER } from "../../runtime/require-peer.js";
import { loadPeer } from "../../runtime/load-peer.js";
import { describe, typeError } from "../../runtime/errors.js";
import { checkLoggable } from "../../messages/log-safe.js";
import { checkToolLinks } from "../../messages/tool-links.js";
import type { MessageLike } from "../../messages/types.js";
import { replay, type ContextEntry, type MessageEntry } from "../../session/context-log.js";
import { checkSessionId, type SessionStore } from "../../session/store.js";

export interface SessionChatMessageHistoryOptions {
  store: SessionStore;
  /** The session's id in the store. */
  id: string;
}

const ROLE_OF: Record<string, string> = {
  human: "user",
  ai: "assistant",
  system: "system",
  developer: "system",
  tool: "tool",
  function: "function",
  generic: "user",
};
const TYPE_OF: Record<string, string> = {
  user: "human",
  assistant: "ai",
  system: "system",
  developer: "system",
  tool: "tool",
  function: "function",
};

// Loaded while the subpath loads (import or require), from the copy of @langchain/core the
// application's own import or require gets: the class below extends the application's base class.
const chatHistory = loadPeer<typeof import("@langchain/core/chat_history")>(
  "@langchain/core/chat_history",
  "langchain-history",
  LANGCHAIN_CORE_PEER,
);
const { mapChatMessagesToStoredMessages, mapStoredMessagesToChatMessages } = loadPeer<typeof import("@langchain/core/messages")>(
  "@langchain/core/messages",
  "langchain-history",
  LANGCHAIN_CORE_PEER,
);
/** LangChain's base class, loaded above (a class cannot extend a type-only import). */
const ChatMessageHistoryBase: typeof BaseListChatMessageHistory = chatHistory.BaseListChatMessageHistory;

export class SessionChatMessageHistory extends ChatMessageHistoryBase {
  lc_namespace = ["ctxwin", "session"];
  readonly store: SessionStore;
  readonly sessionId: string;
  private readonly writer = randomBase64url(6);
  private counter = 0;

  constructor(options: SessionChatMessageHistoryOptions) {
    super();
    if (options === null || typeof options !== "object" || typeof options.store?.append !== "function") {
      throw typeError(`options must be { store, id } with a SessionStore, got ${describe(options)}`);
    }
    this.store = options.store;
    this.sessionId = checkSessionId(options.id, "options.id");
  }

  async getMessages(): Promise<BaseMessage[]> {
    const entries = (await this.store.read(this.sessionId)).map((r) => r.entry);
    const stored = new Map<string, StoredMessage>();
    for (const e of entries) {
      if (e.type === "message" && e.langchain !== undefined) stored.set(String(e.id), e.langchain as StoredMessage);
    }
    const view = replay(entries).entries;
    return mapStoredMessagesToChatMessages(view.map((e) => (e.summary ? undefined : stored.get(e.id)) ?? storedOf(e.message)));
  }

  async addMessage(message: BaseMessage): Promise<void> {
    await this.addMessages([message]);
  }

  /** One append for all of them: atomic, and in order. */
  override async addMessages(messages: BaseMessage[]): Promise<void> {
    if (!Array.isArray(messages)) throw typeError(`messages must be an array of LangChain messages, got ${describe(messages)}`);
    const stored = mapChatMessagesToStoredMessages(messages);
    const entries: ContextEntry[] = stored.map((s, i) => ({
      type: "message",
      id: `${this.writer}.${(this.counter++).toString(36)}`,
      message: chatMessageOf(messages[i] as BaseMessage, s),
      langchain: s,
    }));
    // Both forms must be what the log gives back equal (a Map in additional_kwargs, NaN, a cycle
    // would come back as something else, or not at all): refused before the append, naming the message.
    // A ToolMessage must name its call (a manager reading the session would refuse it), refused here first.
    entries.forEach((entry, i) => {
      checkToolLinks((entry as MessageEntry).message as Record<string, unknown>, `messages[${i}]`, true);
      checkLoggable((entry as MessageEntry).message, `messages[${i}]`);
      checkLoggable(entry.langchain, `messages[${i}] (stored)`);
    });
    await this.store.append(this.sessionId, entries);
  }

  /** A boundary: the history reads empty from here on; the log keeps what came before. */
  override async clear(): Promise<void> {
    await this.store.append(this.sessionId, [{ type: "boundary", boundary: { kind: "clear" } }]);
  }
}

/** The chat-message form a MessageContextManager reads (OpenAI's shape). */
function chatMessageOf(message: BaseMessage, stored: StoredMessage): MessageLike {
  const role = ROLE_OF[stored.type] ?? (typeof stored.data.role === "string" ? stored.data.role : "user");
  const out: MessageLike = { role, content: message.content };
  const calls = (message as { tool_calls?: Array<{ id?: string; name: string; args: unknown }> }).tool_calls;
  if (role === "assistant" && Array.isArray(calls) && calls.length > 0) {
    out.tool_calls = calls.map((c) => ({
      id: c.id ?? "",
      type: "function",
      function: { name: c.name, arguments: JSON.stringify(c.args) },
    }));
    if (out.content === "") out.content = null;
  }
  if (role === "tool" && typeof stored.data.tool_call_id === "string") out.tool_call_id = stored.data.tool_call_id;
  if (typeof stored.data.name === "string") out.name = stored.data.name;
  return out;
}

/** LangChain's stored form of a message a manager wrote (or a summary). */
function storedOf(message: MessageLike): StoredMessage {
  const role = message.role;
  const calls = Array.isArray(message.tool_calls)
    ? (message.tool_calls as Array<{ id?: string; function?: { name?: string; arguments?: string } }>)
    : [];
  const data: StoredMessage["data"] & Record<string, unknown> = {
    content: typeof message.content === "string" ? message.content : message.content == null ? "" : (message.content as never),
    role: undefined,
    name: message.name,
    tool_call_id: message.tool_call_id,
  };
  if (calls.length > 0) {
    data.tool_calls = calls.map((c) => ({
      id: c.id,
      name: c.function?.name ?? "",
      args: parseArgs(c.function?.arguments),
      type: "tool_call",
    }));
  }
  return { type: TYPE_OF[role ?? ""] ?? "generic", data } as StoredMessage;
}

function parseArgs(text: string | undefined): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text ?? "{}");
    return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export type { MessageEntry };
