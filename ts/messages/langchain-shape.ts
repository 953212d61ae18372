// LangChain messages (`BaseMessage` instances of `@langchain/core`, 0.3 and 1.x, chunks included),
// recognised by their shape so that ctxwin reads them wherever it reads messages without importing
// `@langchain/core`: a LangChain message has no `role` but a `type` ("human", "ai", "system",
// "tool", "function", "generic"), tool calls as `tool_calls: [{ id, name, args }]`, a result's
// call in `tool_call_id`. Readers see a chat-shaped view of it (chatMessageOf); the caller's object
// is what is kept, returned and compared, and a rewritten one (a compacted result, a cut message)
// is a new instance of the caller's own class (withContent).
import { typeError } from "../runtime/errors.js";

/** The marker @langchain/core 1.x puts on every message (a registered symbol, so it is the same here). */
const MESSAGE_SYMBOL = Symbol.for("langchain.message");

/** The chat role of each LangChain message type. */
const ROLE_OF_TYPE: Readonly<Record<string, string>> = {
  human: "user",
  ai: "assistant",
  system: "system",
  developer: "developer",
  tool: "tool",
  function: "function",
};

/** A ChatMessage's free-form role, in the chat roles ctxwin reads. */
const CHAT_ROLE_ALIASES: Readonly<Record<string, string>> = { human: "user", ai: "assistant" };

/**
 * Content blocks that repeat a tool call `tool_calls` already carries (Anthropic, OpenAI Responses,
 * LangChain's own). A provider's own tool (`server_tool_call`, Anthropic's `server_tool_use`) is
 * in no `tool_calls`: its block is the call, answered by a result block in the same message.
 */
const CALL_BLOCKS = new Set(["tool_use", "tool_call", "tool_call_chunk", "function_call", "input_json_delta"]);

type Record_ = Record<string, unknown>;

function isRecord(value: unknown): value is Record_ {
  return typeof value === "object" && value !== null;
}

/**
 * Whether `value` is a LangChain message: the 1.x marker, or (0.3, and plain copies of a message)
 * `lc_namespace` [..., "messages"] with a `type` or `_getType()`. A message with a string `role`
 * is a chat message in its own right and is read as one, except LangChain's ChatMessage.
 */
export function isLangChainMessage(value: unknown): boolean {
  if (!isRecord(value)) return false;
  if ((value as { [MESSAGE_SYMBOL]?: unknown })[MESSAGE_SYMBOL] === true) return true;
  const namespace = value.lc_namespace;
  if (!Array.isArray(namespace) || namespace[namespace.length - 1] !== "messages") return false;
  return typeof value.type === "string" || typeof value._getType === "function" || typeof value.getType === "function";
}

/** A LangChain message's type ("human", "ai", ...): its `type` field, else `_getType()` / `getType()` (0.3). */
export function langChainType(message: Record_): string | undefined {
  if (typeof message.type === "string") return message.type;
  for (const method of ["getType", "_getType"] as const) {
    const fn = message[method];
    if (typeof fn === "function") {
      const type: unknown = fn.call(message);
      if (typeof type === "string") return type;
    }
  }
  return undefined;
}

/** The chat role of a LangChain message, or undefined for a type that is not sent to a model (RemoveMessage). */
export function langChainRole(message: Record_): string | undefined {
  const type = langChainType(message);
  if (type === "generic") return typeof message.role === "string" ? (CHAT_ROLE_ALIASES[message.role] ?? message.role) : undefined;
  if (type === "system" && isRecord(message.additional_kwargs) && message.additional_kwargs.__openai_role__ === "developer")
    return "developer";
  return type === undefined ? undefined : ROLE_OF_TYPE[type];
}

/** Content blocks as ctxwin's readers know them; one block for one, so that a bad block's index is its own. */
function contentOf(content: unknown, hasCalls: boolean): unknown {
  if (!Array.isArray(content)) return content;
  return content.map((block: unknown) => {
    if (!isRecord(block) || typeof block.type !== "string") return block;
    // A call is counted once, from tool_calls; the block is left as a call block with nothing to read.
    if (CALL_BLOCKS.has(block.type)) return hasCalls ? { type: "tool_call" } : block;
    if (block.type === "reasoning" && typeof block.text !== "string")
      return { type: "reasoning", text: typeof block.reasoning === "string" ? block.reasoning : "" };
    // LangChain's standard file and image blocks say mimeType where the readers look for mediaType.
    if (typeof block.mimeType === "string" && block.mediaType === undefined) return { ...block, mediaType: block.mimeType };
    return block;
  });
}

/** The tool calls a LangChain AI message makes: `tool_calls`, else the legacy `additional_kwargs` ones. */
function callsOf(message: Record_): unknown[] | undefined {
  if (Array.isArray(message.tool_calls) && message.tool_calls.length > 0) return message.tool_calls;
  if (message.tool_calls !== undefined && message.tool_calls !== null && !Array.isArray(message.tool_calls))
    return message.tool_calls as unknown[];
  const kwargs = isRecord(message.additional_kwargs) ? message.additional_kwargs : {};
  if (Array.isArray(kwargs.tool_calls) && kwargs.tool_calls.length > 0) return kwargs.tool_calls;
  if (isRecord(kwargs.function_call)) return [kwargs.function_call];
  return undefined;
}

/**
 * The chat message a LangChain message stands for (OpenAI chat roles; tool calls kept in
 * LangChain's `{ id, name, args }`, which the readers know): what every reader of messages reads
 * in its place. Throws a coded TypeError naming `at` for a message that is not sent to a model.
 */
export function langChainView(message: Record_, at: string): Record_ {
  const role = langChainRole(message);
  if (role === undefined) {
    const type = langChainType(message);
    throw typeError(
      `${at} is a LangChain message of ${type === undefined ? "no known type" : `type ${JSON.stringify(type)}`}, which is not sent to a model`,
    );
  }
  const calls = role === "assistant" ? callsOf(message) : undefined;
  const view: Record_ = { role, content: contentOf(message.content, calls !== undefined) };
  if (calls !== undefined) view.tool_calls = calls;
  if (role === "tool") view.tool_call_id = message.tool_call_id;
  if (message.name !== undefined && message.name !== null && message.name !== "" && role !== "tool") view.name = message.name;
  return view;
}

/** What readers read for `message`: a LangChain message's chat view, any other message itself. */
export function chatMessageOf(message: unknown, at: string): unknown {
  return isLangChainMessage(message) ? langChainView(message as Record_, at) : message;
}

/**
 * A new message of the caller's own class with `content` in place of its content and every other
 * field kept (what LangChain's own trimMessages does to cut a message): a compacted tool result
 * or a cut message stays a ToolMessage / AIMessage / AIMessageChunk to the code that gets it back.
 */
export function withContent<M extends object>(message: M, content: unknown): M {
  const fields: Record_ = {};
  for (const [key, value] of Object.entries(message)) if (key !== "type" && !key.startsWith("lc_")) fields[key] = value;
  fields.content = content;
  const Class = (message as { constructor?: unknown }).constructor;
  if (typeof Class === "function" && Class !== Object) return new (Class as new (fields: Record_) => M)(fields);
  return { ...message, content } as M; // a plain copy of a message: stays a plain copy
}
