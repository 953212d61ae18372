// The ids that tie a tool call to its result, required of every message a history holds.
//
// checkMessage (message-shape.ts) takes these ids as optional: a message only counted needs none.
// A history is another matter: a tool message without `tool_call_id`, or a result part without its
// call's id, joins no call, so a trim keeps or drops it alone (invariant 2 cannot hold), and the
// provider refuses the request that carries it. Such a message is refused where it comes in (the
// metadata reader, before anything remembers it), with a TypeError naming the field.
import { typeError } from "../runtime/errors.js";
import { isAnthropicToolResultType, isRecord } from "./content-parts.js";

/** AI SDK parts a `role: "tool"` message holds: results, and answers to approval requests. */
const TOOL_MESSAGE_PARTS = new Set(["tool-result", "tool-approval-response"]);

/** The id field each kind of call or result part carries. */
function idField(type: string): string | undefined {
  switch (type) {
    case "tool-call": // AI SDK
    case "tool-result":
    case "server_tool_call_result": // LangChain's standard block
      return "toolCallId";
    case "tool_use": // Anthropic
    case "server_tool_use":
    case "mcp_tool_use":
      return "id";
    case "tool_result":
      return "tool_use_id";
    default:
      return isAnthropicToolResultType(type) ? "tool_use_id" : undefined;
  }
}

const HINT = "a tool result must name the call it answers, and a call the id its result will name";

/**
 * Throws a coded TypeError naming the field when `message` (checked by checkMessage already, not a
 * Responses item) has a tool call or a tool result without its id, or is a tool message that holds
 * no result. `langChain`: the message is a LangChain message's chat view, whose `tool_calls` may
 * come without ids (legacy function calls, joined to their result by name).
 */
export function checkToolLinks(message: Record<string, unknown>, at: string, langChain: boolean): void {
  const content = message.content;
  if (message.role === "tool" && typeof message.tool_call_id !== "string") {
    const parts = Array.isArray(content) ? content : [];
    if (!parts.some((part) => isRecord(part) && TOOL_MESSAGE_PARTS.has(part.type as string))) {
      throw typeError(
        `${at}.tool_call_id must be a string (the id of the call this tool message answers), got ` +
          `${message.tool_call_id === undefined ? "none" : String(message.tool_call_id)}; ` +
          `an AI SDK tool message holds tool-result parts instead`,
      );
    }
  }
  if (Array.isArray(content)) {
    content.forEach((part: unknown, i) => {
      if (!isRecord(part) || typeof part.type !== "string") return;
      const field = idField(part.type);
      if (field !== undefined && typeof part[field] !== "string")
        throw typeError(`${at}.content[${i}].${field} must be a string (the tool call's id), got none: ${HINT}`);
    });
  }
  if (!langChain && Array.isArray(message.tool_calls)) {
    message.tool_calls.forEach((call: unknown, i) => {
      if (isRecord(call) && typeof call.id !== "string") throw typeError(`${at}.tool_calls[${i}].id must be a string, got none: ${HINT}`);
    });
  }
}
