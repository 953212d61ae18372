// LangChain messages in the shape ctxwin reads (OpenAI chat) and back. The copies keep a link to
// the message they came from, so a message the levels left alone goes back as the very same
// object, and a compacted tool result as a new ToolMessage with every other field of the old one.
import type { BaseMessage } from "@langchain/core/messages";
import { describe, typeError } from "../../runtime/errors.js";
import type { MessageLike } from "../../messages/types.js";
import { isLangChainMessage, langChainView } from "../../messages/langchain-shape.js";

/** The LangChain message a ctxwin-shaped copy stands for (kept through the levels' `{ ...message }` copies). */
export const ORIGINAL: unique symbol = Symbol("ctxwin.langchain.original");

/** The content the copy was made with: a level that rewrote it leaves another value here. */
export const CONTENT: unique symbol = Symbol("ctxwin.langchain.content");

export type LinkedMessage = MessageLike & { [ORIGINAL]?: BaseMessage; [CONTENT]?: unknown };

/** One LangChain message as an OpenAI chat message ctxwin can count and plan over (its chat view, calls in OpenAI's form). */
export function toMessageLike(message: BaseMessage, index = 0): LinkedMessage {
  if (!isLangChainMessage(message)) throw typeError(`messages[${index}] must be a LangChain message, got ${describe(message)}`);
  const view = langChainView(message as unknown as Record<string, unknown>, `messages[${index}]`);
  const out: LinkedMessage = { role: String(view.role), content: view.content, [ORIGINAL]: message, [CONTENT]: view.content };
  if (view.role === "tool") out.tool_call_id = String(view.tool_call_id ?? "");
  if (typeof view.name === "string") out.name = view.name;
  const calls = view.tool_calls as Array<{ id?: string; name?: string; args?: unknown; function?: unknown }> | undefined;
  if (Array.isArray(calls) && calls.length > 0) {
    out.tool_calls = calls.map((c, k) =>
      c.function !== undefined
        ? c
        : { id: c.id ?? `call_${index}_${k}`, type: "function", function: { name: c.name, arguments: JSON.stringify(c.args ?? {}) } },
    );
  }
  return out;
}

/** The messages as ctxwin reads them (for counting a LangChain prompt as the adapter does). */
export function toMessageLikes(messages: readonly BaseMessage[]): LinkedMessage[] {
  if (!Array.isArray(messages)) throw typeError(`messages must be an array, got ${describe(messages)}`);
  return messages.map((m, i) => toMessageLike(m, i));
}
