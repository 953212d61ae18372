// Reasoning in messages: AI SDK `reasoning` parts, Anthropic `thinking` / `redacted_thinking`
// blocks, OpenAI `reasoning` items. Old turns' reasoning can be cleared (compaction level 0).
import { isRecord } from "./message-shape.js";
import { isLangChainMessage, withContent } from "./langchain-shape.js";

const REASONING_PARTS = new Set(["reasoning", "thinking", "redacted_thinking"]);

/** Whether a message carries reasoning: AI SDK reasoning parts, Anthropic thinking blocks, an OpenAI reasoning item. */
export function hasReasoning(message: unknown): boolean {
  if (!isRecord(message)) return false;
  if (message.role === undefined && message.type === "reasoning") {
    const some = (v: unknown) => Array.isArray(v) && v.length > 0;
    return some(message.summary) || some(message.content) || typeof message.encrypted_content === "string";
  }
  return (
    Array.isArray(message.content) &&
    message.content.some((p: unknown) => isRecord(p) && typeof p.type === "string" && REASONING_PARTS.has(p.type))
  );
}

/**
 * A copy of `message` without its reasoning (what Anthropic's clear_thinking does to old turns):
 * reasoning parts and thinking blocks removed, an OpenAI reasoning item emptied (its id stays, so
 * the items after it still refer to it). A message without reasoning comes back as it is.
 */
export function removeReasoning<M>(message: M): M {
  if (!hasReasoning(message)) return message;
  const record = message as Record<string, unknown>;
  if (record.role === undefined && record.type === "reasoning") {
    const copy: Record<string, unknown> = { ...record, summary: [] };
    delete copy.encrypted_content;
    delete copy.content;
    return copy as M;
  }
  const content = (record.content as unknown[]).filter((p) => !(isRecord(p) && typeof p.type === "string" && REASONING_PARTS.has(p.type)));
  // A LangChain message stays an instance of its class (an AIMessage without its reasoning blocks).
  return (isLangChainMessage(record) ? withContent(record, content) : { ...record, content }) as M;
}
