// Walking a message of any of the shapes ctxwin reads (OpenAI chat, OpenAI Responses input items,
// AI SDK ModelMessage, Anthropic Messages): its text, images, documents, tool calls and tool
// results, each handed to a visitor. Counting, the metadata reader, compaction and the command
// line all read messages through here, so a shape learned here is learned everywhere. Reasoning
// (AI SDK `reasoning` parts, Anthropic `thinking` / `redacted_thinking` blocks, OpenAI `reasoning`
// items) is visited as text.

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
      visitor.toolCall(idOf(call.id), fn.name, fn.arguments);
    }
  }
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
