// What a summarizer reads of a message: a rendered line for a model, the agent loop's event
// lines for the offline task digest.
import { toolOutputText, visitMessage, type MessageVisitor } from "../messages/message-shape.js";
import type { MessageLike } from "../messages/types.js";

/** A message as a line for the summarizer, tool results clipped to `resultBudget` tokens. */
export function render(message: MessageLike, clip: (text: string) => string): string {
  const parts: string[] = [];
  const visitor: MessageVisitor = {
    text: (value) => {
      if (typeof value === "string" && value !== "") parts.push(value);
    },
    image: () => parts.push("[image]"),
    toolCall: (_id, name, args) => parts.push(`called ${String(name)}(${typeof args === "string" ? args : JSON.stringify(args)})`),
    toolResult: (_id, output) => {
      parts.push(`result: ${clip(toolOutputText(output))}`);
    },
  };
  visitMessage(message as unknown as Record<string, unknown>, visitor);
  return `${message.role}: ${parts.join(" ")}`;
}

/**
 * A message as the core's extractive summarizer reads it: one JSON line per text, tool call and
 * tool result (the agent loop's event shapes), so tool names, results and errors are recognised.
 */
export function eventLines(message: MessageLike, clip: (text: string) => string): string[] {
  const lines: string[] = [];
  const texts: string[] = [];
  const visitor: MessageVisitor = {
    text: (value) => {
      if (typeof value === "string" && value !== "") texts.push(value);
    },
    image: () => {},
    toolCall: (id, name, args) => {
      let parsed: unknown = args;
      if (typeof args === "string") {
        try {
          parsed = JSON.parse(args);
        } catch {
          parsed = args;
        }
      }
      lines.push(JSON.stringify({ type: "tool_call", toolName: String(name), toolCallId: id, args: parsed }));
    },
    toolResult: (id, output) => {
      lines.push(JSON.stringify({ type: "tool_result", toolCallId: id, result: clip(toolOutputText(output)) }));
    },
  };
  visitMessage(message as unknown as Record<string, unknown>, visitor);
  if (texts.length > 0 && (message as { tool_call_id?: unknown }).tool_call_id === undefined) {
    lines.unshift(JSON.stringify({ type: "message", role: message.role, content: texts.join("\n") }));
  }
  return lines;
}
