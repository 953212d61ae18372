// The message shapes ctxwin reads, in one place: OpenAI chat, OpenAI Responses input items
// (reasoning, function_call, function_call_output), AI SDK ModelMessage and Anthropic Messages.
// checkMessage checks a message before anything reads it (each field of the right type, tool
// arguments and outputs that JSON can carry; bad input rejected with a coded TypeError /
// RangeError naming the field, never guessed at); visitMessage walks one, handing its text,
// images, documents, tool calls and tool results to a visitor. Counting, the metadata reader,
// compaction and the command line all read messages through here, so a shape learned here is
// learned everywhere. Reasoning (AI SDK `reasoning` parts, Anthropic `thinking` /
// `redacted_thinking` blocks, OpenAI `reasoning` items) is visited as text. LangChain messages are
// read through their chat view (langchain-shape.ts), whose tool calls keep LangChain's `args`.
import { describe, rangeError, typeError } from "../runtime/errors.js";
import { isLangChainMessage, langChainView } from "./langchain-shape.js";

export interface MessageVisitor {
  /** Text to count (message content, text and reasoning parts, and fields such as tool_call_id). */
  text(value: unknown): void;
  /** An image part (the part itself, for a counter that sizes images). */
  image(part?: Record<string, unknown>): void;
  /**
   * A document part: an Anthropic `document` block, or an AI SDK `file` part that is a PDF. A
   * visitor without this method sees a text document's text (and an AI SDK file's data) as text.
   */
  document?(part: Record<string, unknown>): void;
  /** A tool call: OpenAI `tool_calls[]`, AI SDK `tool-call` part, Anthropic `tool_use` block. */
  toolCall(id: string | undefined, name: unknown, args: unknown): void;
  /** A tool result: OpenAI `role: "tool"` message, AI SDK `tool-result` part, Anthropic `tool_result` block. */
  toolResult(id: string | undefined, output: unknown): void;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

const idOf = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** Visits one content part or block of any of the three shapes. */
export function visitPart(part: unknown, visitor: MessageVisitor): void {
  if (typeof part === "string") return visitor.text(part);
  if (!isRecord(part)) return;
  switch (part.type) {
    case "text": // OpenAI, AI SDK, Anthropic
    case "reasoning": // AI SDK
      return visitor.text(part.text);
    case "thinking": // Anthropic: the thinking and its signature are sent back, and counted
      visitor.text(part.thinking);
      return visitor.text(part.signature);
    case "redacted_thinking": // Anthropic: encrypted thinking
      return visitor.text(part.data);
    case "image": // AI SDK, Anthropic
    case "image_url": // OpenAI
    case "input_image":
      return visitor.image(part);
    case "document": // Anthropic
      if (visitor.document) return visitor.document(part);
      if (isRecord(part.source) && part.source.type === "text") visitor.text(part.source.data);
      return;
    case "file": // AI SDK: images cost an image; text files count as text
      if (typeof part.mediaType === "string" && part.mediaType.startsWith("image/")) return visitor.image(part);
      if (part.mediaType === "application/pdf" && visitor.document) return visitor.document(part);
      if (typeof part.data === "string") visitor.text(part.data);
      return;
    case "tool-call": // AI SDK
      return visitor.toolCall(idOf(part.toolCallId), part.toolName, part.input ?? part.args);
    case "tool_use": // Anthropic
      return visitor.toolCall(idOf(part.id), part.name, part.input);
    case "tool-result": // AI SDK: output { type, value } (v5+) or result (v4)
      return visitor.toolResult(idOf(part.toolCallId), part.output ?? part.result);
    case "tool_result": // Anthropic
      return visitor.toolResult(idOf(part.tool_use_id), part.content);
    default:
      if (typeof part.text === "string") visitor.text(part.text);
  }
}

/**
 * Visits a message: its content (string or parts), OpenAI's `tool_calls`, and, for an OpenAI tool
 * message, its `tool_call_id` (counted as text) and its content as the result.
 */
export function visitMessage(message: Record<string, unknown>, visitor: MessageVisitor): void {
  if (isLangChainMessage(message)) return visitMessage(langChainView(message, "message"), visitor);
  if (message.role === undefined && typeof message.type === "string" && visitResponsesItem(message, visitor)) return;
  const content = message.content;
  if (typeof message.tool_call_id === "string") {
    visitor.text(message.tool_call_id);
    visitor.toolResult(message.tool_call_id, content);
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
    }
  }
}

/** A tool call's arguments: OpenAI's `arguments`, or LangChain's `args`. */
function argumentsOf(fn: Record<string, unknown>): unknown {
  return fn.arguments === undefined && fn.args !== undefined ? fn.args : fn.arguments;
}

/** The role a Responses item stands for in a conversation, or undefined when it is not one of them. */
export function responsesItemRole(message: Record<string, unknown>): "assistant" | "tool" | undefined {
  if (message.role !== undefined) return undefined;
  if (message.type === "reasoning" || message.type === "function_call") return "assistant";
  if (message.type === "function_call_output") return "tool";
  return undefined;
}

function visitResponsesItem(item: Record<string, unknown>, visitor: MessageVisitor): boolean {
  switch (item.type) {
    case "reasoning":
      for (const list of [item.summary, item.content]) if (Array.isArray(list)) for (const part of list) if (isRecord(part)) visitor.text(part.text);
      visitor.text(item.encrypted_content);
      return true;
    case "function_call":
      visitor.toolCall(idOf(item.call_id), item.name, item.arguments);
      return true;
    case "function_call_output":
      visitor.toolResult(idOf(item.call_id), item.output);
      return true;
    default:
      return false;
  }
}

/** AI SDK's tool output `{ type: "text" | "json" | ..., value }` (v5+). */
export function isTypedOutput(output: unknown): output is { type: string; value: unknown } {
  return isRecord(output) && typeof output.type === "string" && "value" in output;
}

/** Visits a tool result's output: a string, parts, or AI SDK's { type, value }. */
export function visitToolOutput(output: unknown, visitor: MessageVisitor): void {
  if (Array.isArray(output)) {
    for (const item of output) visitPart(item, visitor);
  } else if (isTypedOutput(output)) {
    if (Array.isArray(output.value)) for (const item of output.value) visitPart(item, visitor);
    else visitor.text(output.value);
  } else {
    visitor.text(output);
  }
}

/** A tool result's output as text: its text parts joined by newlines, other values as JSON. */
export function toolOutputText(output: unknown): string {
  const texts: string[] = [];
  const push = (v: unknown) => texts.push(typeof v === "string" ? v : (JSON.stringify(v) ?? ""));
  visitToolOutput(output, { text: push, image: () => {}, toolCall: () => {}, toolResult: (_id, inner) => push(inner) });
  return texts.join("\n");
}

/** How deep a tool call's arguments or a tool's output may nest (JSON.stringify overflows the stack near 5,000). */
export const MAX_JSON_DEPTH = 512;

/**
 * Checks that `value` is what JSON.stringify turns into text: no cycle, no BigInt, no function or
 * symbol in its place, at most MAX_JSON_DEPTH levels deep. Throws a coded error naming `path`, so
 * that counting never meets "Maximum call stack size exceeded" or a silently dropped value.
 */
export function checkJsonValue(value: unknown, path: string): void {
  const ancestors: object[] = [];
  const walk = (v: unknown, at: string, depth: number): void => {
    switch (typeof v) {
      case "string":
      case "number":
      case "boolean":
        return;
      case "bigint":
        throw typeError(`${at} must be a JSON value, got ${describe(v)}`);
      case "undefined":
      case "function":
      case "symbol":
        if (depth === 0) throw typeError(`${path} must be a JSON value, got ${describe(v)}`);
        return; // JSON.stringify leaves these out of objects (and writes null in arrays)
      default:
        if (v === null) return;
    }
    const object = v as object;
    if (typeof (object as { toJSON?: unknown }).toJSON === "function") return; // Dates and the like: toJSON decides
    if (depth >= MAX_JSON_DEPTH) throw rangeError(`${path} is nested more than ${MAX_JSON_DEPTH} levels deep`);
    if (ancestors.includes(object)) throw typeError(`${at} refers back to itself (a cycle): it has no JSON form`);
    ancestors.push(object);
    if (Array.isArray(object)) {
      for (let i = 0; i < object.length; i++) walk(object[i], `${at}[${i}]`, depth + 1);
    } else {
      for (const key of Object.keys(object)) walk((object as Record<string, unknown>)[key], `${at}.${key}`, depth + 1);
    }
    ancestors.pop();
  };
  walk(value, path, 0);
}

/** The roles of the three shapes (OpenAI's developer and function included). */
export const KNOWN_ROLES: readonly string[] = ["system", "developer", "user", "assistant", "tool", "function"];

const TEXT_PART_TYPES = new Set(["text", "reasoning"]);

function checkPart(part: unknown, at: string, depth = 0): void {
  if (typeof part === "string") return;
  // tool_result blocks nest: bounded as JSON values are, so that no input overflows the stack.
  if (depth > MAX_JSON_DEPTH) throw rangeError(`${at} is nested more than ${MAX_JSON_DEPTH} levels deep`);
  if (!isRecord(part) || Array.isArray(part)) throw typeError(`${at} must be a content part object, got ${describe(part)}`);
  if (typeof part.type !== "string") throw typeError(`${at}.type must be a string, got ${describe(part.type)}`);
  if (TEXT_PART_TYPES.has(part.type) && typeof part.text !== "string") throw typeError(`${at}.text must be a string, got ${describe(part.text)}`);
  switch (part.type) {
    case "tool-call":
      if (typeof part.toolName !== "string") throw typeError(`${at}.toolName must be a string, got ${describe(part.toolName)}`);
      if (part.toolCallId !== undefined && typeof part.toolCallId !== "string") throw typeError(`${at}.toolCallId must be a string, got ${describe(part.toolCallId)}`);
      return checkJsonValue(part.input ?? part.args ?? null, `${at}.input`);
    case "tool_use":
      if (typeof part.name !== "string") throw typeError(`${at}.name must be a string, got ${describe(part.name)}`);
      if (part.id !== undefined && typeof part.id !== "string") throw typeError(`${at}.id must be a string, got ${describe(part.id)}`);
      return checkJsonValue(part.input ?? null, `${at}.input`);
    case "tool-result":
      if (part.toolCallId !== undefined && typeof part.toolCallId !== "string") throw typeError(`${at}.toolCallId must be a string, got ${describe(part.toolCallId)}`);
      return checkJsonValue(part.output ?? part.result ?? null, `${at}.output`);
    case "tool_result":
      if (part.tool_use_id !== undefined && typeof part.tool_use_id !== "string") throw typeError(`${at}.tool_use_id must be a string, got ${describe(part.tool_use_id)}`);
      if (Array.isArray(part.content)) part.content.forEach((block, i) => checkPart(block, depth < 8 ? `${at}.content[${i}]` : depth === 8 ? `${at}.content...` : at, depth + 1));
      else if (part.content !== undefined && typeof part.content !== "string") throw typeError(`${at}.content must be a string or an array of blocks, got ${describe(part.content)}`);
      return;
    default:
      if (part.text !== undefined && typeof part.text !== "string") throw typeError(`${at}.text must be a string, got ${describe(part.text)}`);
  }
}

/** An OpenAI Responses input item (reasoning, function_call, function_call_output), checked as checkMessage checks messages. */
function checkResponsesItem(item: Record<string, unknown>, at: string): void {
  if (item.call_id !== undefined && typeof item.call_id !== "string") throw typeError(`${at}.call_id must be a string, got ${describe(item.call_id)}`);
  switch (item.type) {
    case "function_call":
      if (typeof item.name !== "string") throw typeError(`${at}.name must be a string, got ${describe(item.name)}`);
      if (typeof item.arguments !== "string") checkJsonValue(item.arguments ?? null, `${at}.arguments`);
      return;
    case "function_call_output":
      if (typeof item.output !== "string") checkJsonValue(item.output ?? null, `${at}.output`);
      return;
    default: // reasoning
      for (const key of ["summary", "content"] as const) {
        const list = item[key];
        if (list === undefined || list === null) continue;
        if (!Array.isArray(list)) throw typeError(`${at}.${key} must be an array of parts, got ${describe(list)}`);
        list.forEach((part: unknown, i) => {
          if (!isRecord(part) || (part.text !== undefined && typeof part.text !== "string")) throw typeError(`${at}.${key}[${i}] must be a part with string text, got ${describe(part)}`);
        });
      }
      if (item.encrypted_content !== undefined && item.encrypted_content !== null && typeof item.encrypted_content !== "string") {
        throw typeError(`${at}.encrypted_content must be a string, got ${describe(item.encrypted_content)}`);
      }
  }
}

/**
 * Checks a message of any of the three shapes before anything reads it: content a string, null or
 * an array of parts; every part an object with a string `type` (text parts with string text, tool
 * calls with a string name and JSON arguments, tool results with JSON output); OpenAI `tool_calls`
 * an array of calls with a string name and string or JSON arguments; `tool_call_id` and `name`
 * strings. Bad input is rejected with a coded TypeError / RangeError naming the field, never
 * guessed at (a number where text belongs used to be counted as its JSON).
 */
export function checkMessage(message: unknown, at: string): asserts message is Record<string, unknown> {
  if (!isRecord(message) || Array.isArray(message)) throw typeError(`${at} must be a message object, got ${describe(message)}`);
  if (isLangChainMessage(message)) return checkMessage(langChainView(message, at), at);
  if (responsesItemRole(message) !== undefined) return checkResponsesItem(message, at);
  if (typeof message.role !== "string" || !KNOWN_ROLES.includes(message.role)) {
    throw typeError(`${at}.role must be one of ${KNOWN_ROLES.join(", ")}, got ${describe(message.role)}`);
  }
  const content = message.content;
  if (Array.isArray(content)) content.forEach((part, i) => checkPart(part, `${at}.content[${i}]`));
  else if (content !== undefined && content !== null && typeof content !== "string") {
    throw typeError(`${at}.content must be a string, an array of parts or null, got ${describe(content)}`);
  }
  for (const key of ["tool_call_id", "name"] as const) {
    if (message[key] !== undefined && typeof message[key] !== "string") throw typeError(`${at}.${key} must be a string, got ${describe(message[key])}`);
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
