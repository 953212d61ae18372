// LangChain messages in the shape ctxwin reads (OpenAI chat) and back. The copies keep a link to
// the message they came from, so a message the levels left alone goes back as the very same
// object, and a compacted tool result as a new ToolMessage with every other field of the old one.
import type { BaseMessage, ToolMessage } from "@langchain/core/messages";
import { describe, typeError } from "../../runtime/errors.js";
import type { MessageLike } from "../../messages/types.js";

/** The LangChain message a ctxwin-shaped copy stands for (kept through the levels' `{ ...message }` copies). */
export const ORIGINAL: unique symbol = Symbol("ctxwin.langchain.original");

/** The content the copy was made with: a level that rewrote it leaves another value here. */
export const CONTENT: unique symbol = Symbol("ctxwin.langchain.content");

export type LinkedMessage = MessageLike & { [ORIGINAL]?: BaseMessage; [CONTENT]?: unknown };

const ROLES: Record<string, string> = { system: "system", developer: "system", human: "user", ai: "assistant", tool: "tool", function: "tool" };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/** Content blocks as ctxwin counts them: tool calls are read from tool_calls, not again from the blocks. */
function contentOf(content: unknown): unknown {
  if (!Array.isArray(content)) return content;
  const parts: unknown[] = [];
  for (const block of content) {
    if (!isRecord(block)) {
      parts.push(block);
      continue;
    }
    switch (block.type) {
      case "tool_use":
      case "tool_call":
      case "tool_call_chunk":
      case "function_call":
      case "input_json_delta":
        break;
      case "reasoning":
        parts.push({ type: "reasoning", text: typeof block.reasoning === "string" ? block.reasoning : (block.text ?? "") });
        break;
      case "thinking":
        parts.push({ type: "reasoning", text: block.thinking ?? "" });
        break;
      default:
        parts.push(block);
    }
  }
  return parts;
}

/** One LangChain message as an OpenAI chat message ctxwin can count and plan over. */
export function toMessageLike(message: BaseMessage, index = 0): LinkedMessage {
  if (!isRecord(message) || typeof (message as { type?: unknown }).type !== "string") {
    throw typeError(`messages[${index}] must be a LangChain message, got ${describe(message)}`);
  }
  const type = (message as { type: string }).type;
  const role = type === "generic" ? String((message as { role?: unknown }).role ?? "user") : ROLES[type];
  if (role === undefined) throw typeError(`messages[${index}] is a LangChain message of type "${type}", which is not sent to a model`);
  const content = contentOf(message.content);
  const out: LinkedMessage = { role, content, [ORIGINAL]: message, [CONTENT]: content };
  if (type === "tool" || type === "function") {
    out.tool_call_id = String((message as unknown as ToolMessage).tool_call_id ?? "");
    out.role = "tool";
  }
  const calls = (message as { tool_calls?: Array<{ id?: string; name: string; args: unknown }> }).tool_calls;
  if (type === "ai" && Array.isArray(calls) && calls.length > 0) {
    out.tool_calls = calls.map((c, k) => ({ id: c.id ?? `call_${index}_${k}`, type: "function", function: { name: c.name, arguments: JSON.stringify(c.args ?? {}) } }));
  }
  if (typeof message.name === "string" && message.name !== "" && type !== "tool") out.name = message.name;
  return out;
}

/** The messages as ctxwin reads them (for counting a LangChain prompt as the adapter does). */
export function toMessageLikes(messages: readonly BaseMessage[]): LinkedMessage[] {
  if (!Array.isArray(messages)) throw typeError(`messages must be an array, got ${describe(messages)}`);
  return messages.map((m, i) => toMessageLike(m, i));
}
