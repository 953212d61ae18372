// Messages as the core's summarizers and problem ledger read them: one JSON line per text, tool
// call and tool result (the agent loop's event shapes), so that tool names, arguments, results
// and errors are recognised whatever shape the messages came in; and as the lines of a prompt for
// a model that summarizes.
import { isTypedOutput, toolOutputText, visitMessage, type MessageVisitor } from "../messages/message-shape.js";
import type { MessageLike } from "../messages/types.js";

/** A tool call's arguments as JSON: a string of JSON parsed, anything else as it is. */
export function parsedArgs(args: unknown): unknown {
  if (typeof args !== "string") return args;
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

/** Whether a tool output is marked as an error by its shape (an AI SDK `error-text` / `error-json` output). */
function isErrorOutput(output: unknown): boolean {
  return isTypedOutput(output) && output.type.startsWith("error");
}

/**
 * A message as the task digest reads it: one JSON line per text, tool call and tool result, tool
 * results passed through `clip`.
 */
export function eventLines(message: MessageLike, clip: (text: string) => string = (text) => text): string[] {
  const lines: string[] = [];
  const texts: string[] = [];
  const visitor: MessageVisitor = {
    text: (value) => {
      if (typeof value === "string" && value !== "") texts.push(value);
    },
    image: () => {},
    toolCall: (id, name, args) =>
      lines.push(JSON.stringify({ type: "tool_call", toolName: String(name), toolCallId: id, args: parsedArgs(args) })),
    toolResult: (id, output) => {
      const text = clip(toolOutputText(output));
      lines.push(
        JSON.stringify(
          isErrorOutput(output)
            ? { type: "tool_result", toolCallId: id, error: text }
            : { type: "tool_result", toolCallId: id, result: text },
        ),
      );
    },
  };
  visitMessage(message as unknown as Record<string, unknown>, visitor);
  if (texts.length > 0 && (message as { tool_call_id?: unknown }).tool_call_id === undefined) {
    lines.unshift(JSON.stringify({ type: "message", role: message.role, content: texts.join("\n") }));
  }
  return lines;
}

/** A message as one line of the prompt a model summarizes, tool results passed through `clip`. */
export function promptLine(message: MessageLike, clip: (text: string) => string): string {
  const parts: string[] = [];
  const visitor: MessageVisitor = {
    text: (value) => {
      if (typeof value === "string" && value !== "") parts.push(value);
    },
    image: () => parts.push("[image]"),
    toolCall: (_id, name, args) => parts.push(`called ${String(name)}(${typeof args === "string" ? args : JSON.stringify(args)})`),
    toolResult: (_id, output) => parts.push(`${isErrorOutput(output) ? "error" : "result"}: ${clip(toolOutputText(output))}`),
  };
  visitMessage(message as unknown as Record<string, unknown>, visitor);
  return `${message.role ?? (message as { type?: string }).type ?? "item"}: ${parts.join(" ")}`;
}

/** The tool calls of `messages` by id: the tool's name and its arguments. */
export function toolCallsById(messages: readonly MessageLike[]): Map<string, { name: string; args: unknown }> {
  const calls = new Map<string, { name: string; args: unknown }>();
  const visitor: MessageVisitor = {
    text: () => {},
    image: () => {},
    toolCall: (id, name, args) => {
      if (id !== undefined) calls.set(id, { name: String(name), args: parsedArgs(args) });
    },
    toolResult: () => {},
  };
  for (const m of messages) visitMessage(m as unknown as Record<string, unknown>, visitor);
  return calls;
}

/** Whether a message holds a tool result. */
export function hasToolResult(message: MessageLike): boolean {
  let found = false;
  visitMessage(message as unknown as Record<string, unknown>, {
    text: () => {},
    image: () => {},
    toolCall: () => {},
    toolResult: () => (found = true),
  });
  return found;
}

/**
 * The tool results of `message` as the problem ledger reads them: each with the tool and the
 * arguments of the call it answers (from `calls`), its text, and whether its shape marks it an error.
 */
export function toolResultEvents(message: MessageLike, calls: ReadonlyMap<string, { name: string; args: unknown }>): string[] {
  return toolResults(message, calls).map(toolResultEvent);
}

/** A tool result with the call it answers: what the problem ledger reads of it. */
export interface ToolResultRead {
  id: string;
  /** The tool's name ("" when its call is not among the messages). */
  name: string;
  /** The call's arguments (null when its call is not among the messages). */
  args: unknown;
  text: string;
  /** Whether its shape marks it as an error (an AI SDK `error-text` / `error-json` output). */
  error: boolean;
}

/** The tool results of `message`, in order, each with the call it answers among `calls`. */
export function toolResults(message: MessageLike, calls: ReadonlyMap<string, { name: string; args: unknown }>): ToolResultRead[] {
  const results: ToolResultRead[] = [];
  const visitor: MessageVisitor = {
    text: () => {},
    image: () => {},
    toolCall: () => {},
    toolResult: (id, output) => {
      const call = id === undefined ? undefined : calls.get(id);
      results.push({
        id: id ?? "",
        name: call?.name ?? "",
        args: call?.args ?? null,
        text: toolOutputText(output),
        error: isErrorOutput(output),
      });
    },
  };
  visitMessage(message as unknown as Record<string, unknown>, visitor);
  return results;
}

/** A tool result as the core's problem ledger reads it (the agent loop's event shape, as JSON). */
export function toolResultEvent(result: ToolResultRead): string {
  const event: Record<string, unknown> = { type: "tool_result", toolCallId: result.id, toolName: result.name, args: result.args };
  if (result.error) event.error = result.text;
  else event.result = result.text;
  return JSON.stringify(event);
}

/** The ids of the tool calls a message answers, in order. */
export function resultIds(message: MessageLike): string[] {
  const ids: string[] = [];
  visitMessage(message as unknown as Record<string, unknown>, {
    text: () => {},
    image: () => {},
    toolCall: () => {},
    toolResult: (id) => {
      if (id !== undefined) ids.push(id);
    },
  });
  return ids;
}

/**
 * A message's id, independent of its position: the first tool call it makes or answers, else its
 * own `id` (Responses items, AI SDK UI messages), else a hash of its content ("m" and 8 hex digits).
 */
export function messageId(message: MessageLike): string {
  let id: string | undefined;
  visitMessage(message as unknown as Record<string, unknown>, {
    text: () => {},
    image: () => {},
    toolCall: (callId) => {
      id ??= callId;
    },
    toolResult: (callId) => {
      id ??= callId;
    },
  });
  if (id !== undefined) return id;
  const own = (message as { id?: unknown }).id;
  if (typeof own === "string" && own !== "") return own;
  // FNV-1a over the message's JSON: the same message, the same id.
  const json = JSON.stringify(message) ?? "";
  let hash = 0x811c9dc5;
  for (let i = 0; i < json.length; i++) {
    hash ^= json.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `m${hash.toString(16).padStart(8, "0")}`;
}
