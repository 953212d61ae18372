// The message shapes ctxwin reads, in one place: OpenAI chat (legacy `function_call` and
// `role: "function"` included), the OpenAI Responses API's items (responses-items.ts), AI SDK
// ModelMessage (provider-executed tool calls with their results in one assistant message, tool
// approvals) and Anthropic Messages (server tools' blocks included). checkMessage checks a message
// before anything reads it (each field of the right type, tool arguments and outputs that JSON can
// carry; bad input rejected with a coded TypeError / RangeError naming the field, never guessed
// at; a shape ctxwin cannot place rejected with ERR_CTXWIN_UNSUPPORTED_MESSAGE naming its type);
// visitMessage walks one, handing its text, images, documents, tool calls and tool results to a
// visitor. Counting, the metadata reader, compaction and the command line all read messages
// through here, so a shape learned here is learned everywhere. Reasoning (AI SDK `reasoning`
// parts, Anthropic `thinking` / `redacted_thinking` blocks, OpenAI `reasoning` items) is visited
// as text. LangChain messages are read through their chat view (langchain-shape.ts), whose tool
// calls keep LangChain's `args`.
import { describe, typeError } from "../runtime/errors.js";
import { isLangChainMessage, langChainView } from "./langchain-shape.js";
import { checkJsonValue, checkPart, idOf, isRecord, visitPart, type MessageVisitor } from "./content-parts.js";
import { checkResponsesItem, responsesItemShape } from "./responses-items.js";

export {
  checkJsonValue,
  isRecord,
  isTypedOutput,
  MAX_JSON_DEPTH,
  toolOutputText,
  visitPart,
  visitToolOutput,
  type MessageVisitor,
} from "./content-parts.js";

/** The link between a legacy `function_call` and the `role: "function"` message that answers it: the function's name. */
function legacyFunctionLink(name: unknown): string | undefined {
  return typeof name === "string" ? `function:${name}` : undefined;
}

/**
 * Visits a message: its content (string or parts), OpenAI's `tool_calls` and legacy
 * `function_call`; for an OpenAI tool message its `tool_call_id` (counted as text) and its content
 * as the result, for a legacy function message its content as the result of the `function_call`
 * before it; a Responses item as responses-items.ts reads it.
 */
export function visitMessage(message: Record<string, unknown>, visitor: MessageVisitor): void {
  if (isLangChainMessage(message)) return visitMessage(langChainView(message, "message"), visitor);
  const item = responsesItemShape(message);
  if (item !== undefined) return item.visit(message, visitor);
  const content = message.content;
  if (typeof message.tool_call_id === "string") {
    visitor.text(message.tool_call_id);
    visitor.toolResult(message.tool_call_id, content);
  } else if (message.role === "function") {
    const link = legacyFunctionLink(message.name);
    if (link !== undefined) visitor.link?.(link, "result");
    visitor.toolResult(undefined, content);
  } else if (Array.isArray(content)) {
    for (const part of content) visitPart(part, visitor);
  } else {
    visitor.text(content);
  }
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls) {
      if (!isRecord(call)) continue;
      const fn = isRecord(call.function) ? call.function : call;
      visitor.toolCall(idOf(call.id), fn.name, argumentsOf(fn));
      // A LangChain message's legacy function_call comes as a call without an id.
      if (call.id === undefined && message.role === "assistant") linkLegacyCall(fn.name, visitor);
    }
  }
  if (isRecord(message.function_call)) {
    visitor.toolCall(undefined, message.function_call.name, message.function_call.arguments);
    linkLegacyCall(message.function_call.name, visitor);
  }
}

function linkLegacyCall(name: unknown, visitor: MessageVisitor): void {
  const link = legacyFunctionLink(name);
  if (link !== undefined) visitor.link?.(link, "call");
}

/** A tool call's arguments: OpenAI's `arguments`, or LangChain's `args`. */
function argumentsOf(fn: Record<string, unknown>): unknown {
  return fn.arguments === undefined && fn.args !== undefined ? fn.args : fn.arguments;
}

/** The role a Responses item stands for in a conversation, or undefined when it is a message (it has a role) or no known item. */
export function responsesItemRole(message: Record<string, unknown>): "assistant" | "tool" | "user" | "developer" | undefined {
  return responsesItemShape(message)?.role;
}

/**
 * The chat role of a message, or of a Responses item (the role it stands for). A shape without a
 * role that is no item ctxwin knows (an item_reference, an unknown type) is the coded error that
 * names its type, as checkMessage gives it; a known item's fields are checked here too, since
 * the counters that read roles this way read the item next.
 */
export function roleOf(message: Record<string, unknown>, at: string): string {
  if (typeof message.role === "string") return message.role;
  if (message.role === undefined) {
    checkResponsesItem(message, at);
    const item = responsesItemRole(message);
    if (item !== undefined) return item;
  }
  throw typeError(`${at}.role must be a string, got ${describe(message.role)}`);
}

/** The roles of the shapes (OpenAI's developer and function included). */
export const KNOWN_ROLES: readonly string[] = ["system", "developer", "user", "assistant", "tool", "function"];

/**
 * Checks a message of any of the shapes before anything reads it (a Responses item as
 * responses-items.ts checks it): content a string, null or
 * an array of parts; every part an object with a string `type` (text parts with string text, tool
 * calls with a string name and JSON arguments, tool results with JSON output); OpenAI `tool_calls`
 * an array of calls with a string name and string or JSON arguments; `tool_call_id` and `name`
 * strings. Bad input is rejected with a coded TypeError / RangeError naming the field, never
 * guessed at (a number where text belongs used to be counted as its JSON).
 */
export function checkMessage(message: unknown, at: string): asserts message is Record<string, unknown> {
  if (!isRecord(message) || Array.isArray(message)) throw typeError(`${at} must be a message object, got ${describe(message)}`);
  if (isLangChainMessage(message)) return checkMessage(langChainView(message, at), at);
  checkResponsesItem(message, at);
  if (responsesItemShape(message) !== undefined) return;
  if (typeof message.role !== "string" || !KNOWN_ROLES.includes(message.role)) {
    throw typeError(`${at}.role must be one of ${KNOWN_ROLES.join(", ")}, got ${describe(message.role)}`);
  }
  const content = message.content;
  if (Array.isArray(content)) content.forEach((part, i) => checkPart(part, `${at}.content[${i}]`));
  else if (content !== undefined && content !== null && typeof content !== "string") {
    throw typeError(`${at}.content must be a string, an array of parts or null, got ${describe(content)}`);
  }
  for (const key of ["tool_call_id", "name"] as const) {
    if (message[key] !== undefined && typeof message[key] !== "string")
      throw typeError(`${at}.${key} must be a string, got ${describe(message[key])}`);
  }
  const legacy = message.function_call;
  if (legacy !== undefined && legacy !== null) {
    if (!isRecord(legacy) || Array.isArray(legacy))
      throw typeError(`${at}.function_call must be an object { name, arguments }, got ${describe(legacy)}`);
    if (typeof legacy.name !== "string") throw typeError(`${at}.function_call.name must be a string, got ${describe(legacy.name)}`);
    if (typeof legacy.arguments !== "string") checkJsonValue(legacy.arguments ?? null, `${at}.function_call.arguments`);
  }
  const calls = message.tool_calls;
  if (calls === undefined || calls === null) return;
  if (!Array.isArray(calls)) throw typeError(`${at}.tool_calls must be an array, got ${describe(calls)}`);
  calls.forEach((call: unknown, i) => {
    const where = `${at}.tool_calls[${i}]`;
    if (!isRecord(call) || Array.isArray(call)) throw typeError(`${where} must be a tool call object, got ${describe(call)}`);
    if (call.id !== undefined && typeof call.id !== "string") throw typeError(`${where}.id must be a string, got ${describe(call.id)}`);
    const fn = isRecord(call.function) ? call.function : call;
    const fnAt = fn === call ? where : `${where}.function`;
    if (typeof fn.name !== "string") throw typeError(`${fnAt}.name must be a string, got ${describe(fn.name)}`);
    const key = fn.arguments === undefined && fn.args !== undefined ? "args" : "arguments";
    if (typeof fn[key] !== "string") checkJsonValue(fn[key] ?? null, `${fnAt}.${key}`);
  });
}

/**
 * Marks a batch of messages each of which checkMessage has just passed (a metadata reader read
 * them): counting the batch does not check them again, so a message added to a history is
 * checked once. The mark is on a batch made for the count, never on a caller's own array.
 */
export const CHECKED: unique symbol = Symbol("ctxwin.checked");

/** A batch of messages checked already (see CHECKED). */
export type CheckedBatch<M> = readonly M[] & { readonly [CHECKED]: true };

/** Whether `messages` is a batch marked CHECKED. */
export function isCheckedBatch(messages: readonly unknown[]): boolean {
  return (messages as Partial<CheckedBatch<unknown>>)[CHECKED] === true;
}
