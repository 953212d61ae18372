// The content parts of messages, in every shape ctxwin reads: what a part holds (visitPart: text,
// images, documents, tool calls and results, handed to a visitor) and whether it is well-formed
// (checkPart: a coded error naming the field). OpenAI chat and Responses parts, AI SDK parts
// (tool outputs' content parts and tool approvals included) and Anthropic blocks (server tools'
// `server_tool_use` / `*_tool_result` and MCP's included) are told apart by their `type`.
// message-shape.ts reads whole messages, responses-items.ts the Responses API's items, both
// through here.
import { describe, rangeError, typeError } from "../runtime/errors.js";

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
  /**
   * A tool call: OpenAI `tool_calls[]` and legacy `function_call`, a Responses call item, an AI SDK
   * `tool-call` part, an Anthropic `tool_use` / `server_tool_use` / `mcp_tool_use` block.
   */
  toolCall(id: string | undefined, name: unknown, args: unknown): void;
  /**
   * A tool result: an OpenAI `role: "tool"` (or legacy `"function"`) message, a Responses output
   * item, an AI SDK `tool-result` part, an Anthropic `tool_result` / `*_tool_result` block.
   */
  toolResult(id: string | undefined, output: unknown): void;
  /**
   * An id that ties this message to another one without being a tool call or its result: an
   * approval asked for a call (`"call"`) and its answer (`"result"`) (AI SDK tool approvals, OpenAI
   * MCP approvals), a legacy function message and the `function_call` before it. The metadata
   * reader keeps the two in one unit; an answer whose request is not there is no error.
   */
  link?(id: string, kind: "call" | "result"): void;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

export const idOf = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** Anthropic server-tool result blocks: `web_search_tool_result`, `code_execution_tool_result`, `mcp_tool_result`, ... */
export function isAnthropicToolResultType(type: string): boolean {
  return type !== "tool_result" && type.endsWith("_tool_result");
}

const isImageMediaType = (value: unknown): boolean => typeof value === "string" && value.startsWith("image/");

/**
 * Visits one content part or block of any of the shapes; returns false for a part of a type it does
 * not know (a tool output counts such a part as its JSON).
 */
export function visitPart(part: unknown, visitor: MessageVisitor): boolean {
  if (typeof part === "string") {
    visitor.text(part);
    return true;
  }
  if (!isRecord(part)) return false;
  const type = part.type;
  switch (type) {
    case "text": // OpenAI, AI SDK, Anthropic
    case "reasoning": // AI SDK
    case "input_text": // OpenAI Responses
    case "output_text":
      visitor.text(part.text);
      return true;
    case "refusal": // OpenAI: a refusal is sent back as the assistant's text
      visitor.text(part.refusal);
      return true;
    case "thinking": // Anthropic: the thinking and its signature are sent back, and counted
      visitor.text(part.thinking);
      visitor.text(part.signature);
      return true;
    case "redacted_thinking": // Anthropic: encrypted thinking
      visitor.text(part.data);
      return true;
    case "image": // AI SDK, Anthropic
    case "image_url": // OpenAI
    case "input_image": // OpenAI Responses
    case "image-url": // AI SDK tool output content
    case "image-data":
    case "image-file-id":
    case "computer_screenshot": // OpenAI Responses: a computer call's output
      visitor.image(part);
      return true;
    case "logs": // OpenAI Responses: a code interpreter's output
      visitor.text(part.logs);
      return true;
    case "media": // AI SDK tool output content (v5)
    case "file-data":
      if (isImageMediaType(part.mediaType)) visitor.image(part);
      else if (part.mediaType === "application/pdf" && visitor.document) visitor.document(part);
      else visitor.text(part.data);
      return true;
    case "document": // Anthropic
      if (visitor.document) visitor.document(part);
      else if (isRecord(part.source) && part.source.type === "text") visitor.text(part.source.data);
      return true;
    case "file": // AI SDK: images cost an image; text files count as text
      if (isImageMediaType(part.mediaType)) visitor.image(part);
      else if (part.mediaType === "application/pdf" && visitor.document) visitor.document(part);
      else if (typeof part.data === "string") visitor.text(part.data);
      return true;
    case "tool-call": // AI SDK (a provider-executed one too: its result follows in the same message)
      visitor.toolCall(idOf(part.toolCallId), part.toolName, part.input ?? part.args);
      return true;
    case "tool_use": // Anthropic
    case "server_tool_use": // Anthropic server tools (web search, code execution, ...)
    case "mcp_tool_use": // Anthropic MCP connector
      visitor.toolCall(idOf(part.id), part.name, part.input);
      if (typeof part.server_name === "string") visitor.text(part.server_name);
      return true;
    case "server_tool_call": // LangChain's standard block for a provider's own tool
    case "server_tool_call_chunk":
      visitor.toolCall(idOf(part.id), part.name, part.args);
      return true;
    case "server_tool_call_result":
      visitor.toolResult(idOf(part.toolCallId), part.output);
      return true;
    case "tool-result": // AI SDK: output { type, value } (v5+) or result (v4)
      visitor.toolResult(idOf(part.toolCallId), part.output ?? part.result);
      return true;
    case "tool_result": // Anthropic
      visitor.toolResult(idOf(part.tool_use_id), part.content);
      return true;
    case "tool-approval-request": // AI SDK 6: an approval asked for a call
      if (typeof part.approvalId === "string") visitor.link?.(part.approvalId, "call");
      return true;
    case "tool-approval-response": // AI SDK 6: the answer
      if (typeof part.approvalId === "string") visitor.link?.(part.approvalId, "result");
      visitor.text(part.reason);
      return true;
    default:
      if (typeof type === "string" && isAnthropicToolResultType(type)) {
        visitor.toolResult(idOf(part.tool_use_id), part.content);
        return true;
      }
      if (typeof part.text === "string") {
        visitor.text(part.text);
        return true;
      }
      if (type === undefined && (typeof part.stdout === "string" || typeof part.stderr === "string")) {
        // A shell call's output (Responses `shell_call_output`): what it printed, and how it ended.
        visitor.text(part.stdout);
        visitor.text(part.stderr);
        visitor.text(part.outcome);
        return true;
      }
      return false;
  }
}

/** AI SDK's tool output `{ type: "text" | "json" | ..., value }` (v5+). */
export function isTypedOutput(output: unknown): output is { type: string; value: unknown } {
  return isRecord(output) && typeof output.type === "string" && "value" in output;
}

/** Visits a tool result's output: a string, parts, or AI SDK's { type, value }; a part of no known type counts as its JSON. */
export function visitToolOutput(output: unknown, visitor: MessageVisitor): void {
  const visitItems = (items: unknown[]) => {
    for (const item of items) if (!visitPart(item, visitor)) visitor.text(item);
  };
  if (Array.isArray(output)) visitItems(output);
  else if (isTypedOutput(output)) {
    if (Array.isArray(output.value)) visitItems(output.value);
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

/** Checks that `value` is a string when present (undefined or null: absent). */
export function checkOptionalString(value: unknown, at: string): void {
  if (value !== undefined && value !== null && typeof value !== "string") throw typeError(`${at} must be a string, got ${describe(value)}`);
}

const TEXT_PART_TYPES = new Set(["text", "reasoning", "input_text", "output_text"]);

/** Checks one content part: an object with a string `type`, and the fields its type reads of the right type. */
export function checkPart(part: unknown, at: string, depth = 0): void {
  if (typeof part === "string") return;
  // tool_result blocks nest: bounded as JSON values are, so that no input overflows the stack.
  if (depth > MAX_JSON_DEPTH) throw rangeError(`${at} is nested more than ${MAX_JSON_DEPTH} levels deep`);
  if (!isRecord(part) || Array.isArray(part)) throw typeError(`${at} must be a content part object, got ${describe(part)}`);
  if (typeof part.type !== "string") throw typeError(`${at}.type must be a string, got ${describe(part.type)}`);
  if (TEXT_PART_TYPES.has(part.type) && typeof part.text !== "string")
    throw typeError(`${at}.text must be a string, got ${describe(part.text)}`);
  switch (part.type) {
    case "refusal":
      if (typeof part.refusal !== "string") throw typeError(`${at}.refusal must be a string, got ${describe(part.refusal)}`);
      return;
    case "tool-call":
      if (typeof part.toolName !== "string") throw typeError(`${at}.toolName must be a string, got ${describe(part.toolName)}`);
      checkOptionalString(part.toolCallId, `${at}.toolCallId`);
      return checkJsonValue(part.input ?? part.args ?? null, `${at}.input`);
    case "tool_use":
    case "server_tool_use":
    case "mcp_tool_use":
      if (typeof part.name !== "string") throw typeError(`${at}.name must be a string, got ${describe(part.name)}`);
      checkOptionalString(part.id, `${at}.id`);
      checkOptionalString(part.server_name, `${at}.server_name`);
      return checkJsonValue(part.input ?? null, `${at}.input`);
    case "server_tool_call":
      checkOptionalString(part.id, `${at}.id`);
      return checkJsonValue(part.args ?? null, `${at}.args`);
    case "server_tool_call_result":
      checkOptionalString(part.toolCallId, `${at}.toolCallId`);
      return checkJsonValue(part.output ?? null, `${at}.output`);
    case "tool-result":
      checkOptionalString(part.toolCallId, `${at}.toolCallId`);
      return checkJsonValue(part.output ?? part.result ?? null, `${at}.output`);
    case "tool_result":
      checkOptionalString(part.tool_use_id, `${at}.tool_use_id`);
      if (Array.isArray(part.content))
        part.content.forEach((block, i) =>
          checkPart(block, depth < 8 ? `${at}.content[${i}]` : depth === 8 ? `${at}.content...` : at, depth + 1),
        );
      else if (part.content !== undefined && typeof part.content !== "string")
        throw typeError(`${at}.content must be a string or an array of blocks, got ${describe(part.content)}`);
      return;
    case "tool-approval-request":
    case "tool-approval-response":
      if (typeof part.approvalId !== "string") throw typeError(`${at}.approvalId must be a string, got ${describe(part.approvalId)}`);
      checkOptionalString(part.reason, `${at}.reason`);
      return;
    default:
      if (isAnthropicToolResultType(part.type)) {
        checkOptionalString(part.tool_use_id, `${at}.tool_use_id`);
        return checkJsonValue(part.content ?? null, `${at}.content`);
      }
      if (part.text !== undefined && typeof part.text !== "string")
        throw typeError(`${at}.text must be a string, got ${describe(part.text)}`);
  }
}
