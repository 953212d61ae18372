// Rewriting the tool results of a message of any shape (compaction replaces or cuts them), every
// other field kept; a LangChain message stays an instance of its class.
import { describe, typeError } from "../runtime/errors.js";
import { isRecord, isTypedOutput } from "./message-shape.js";
import { isLangChainMessage, withContent } from "./langchain-shape.js";

/**
 * A copy of `message` with each tool result replaced by `replace(result, kind, id)`, where kind is
 * "json" for an AI SDK json output and "text" otherwise, and id the id of the tool call it
 * answers; every other field is kept. A message without tool results comes back as it is.
 */
export function mapToolResults<M extends object>(message: M, replace: (result: unknown, kind: "text" | "json", id: string | undefined) => unknown): M {
  if (!isRecord(message)) throw typeError(`message must be a message object, got ${describe(message)}`);
  const record = message as Record<string, unknown>;
  const content = record.content;
  const idOf = (value: unknown) => (typeof value === "string" ? value : undefined);
  // A LangChain ToolMessage comes back as a new ToolMessage (its class and every other field kept).
  if (isLangChainMessage(message)) return typeof record.tool_call_id === "string" ? withContent(message, replace(content, "text", record.tool_call_id)) : message;
  if (typeof record.tool_call_id === "string") return { ...message, content: replace(content, "text", record.tool_call_id) };
  if (record.role === undefined && record.type === "function_call_output") return { ...message, output: replace(record.output, "text", idOf(record.call_id)) };
  if (!Array.isArray(content)) return message;
  let changed = false;
  const parts = content.map((part: unknown) => {
    if (!isRecord(part)) return part;
    if (part.type === "tool-result") {
      const output = part.output;
      changed = true;
      const id = idOf(part.toolCallId);
      if (isTypedOutput(output)) return { ...part, output: { ...output, value: replace(output.value, output.type === "json" ? "json" : "text", id) } };
      if ("result" in part) return { ...part, result: replace(part.result, "text", id) };
    }
    if (part.type === "tool_result") {
      changed = true;
      const id = idOf(part.tool_use_id);
      if (typeof part.content === "string") return { ...part, content: replace(part.content, "text", id) };
      if (Array.isArray(part.content)) {
        return { ...part, content: part.content.map((block: unknown) => (isRecord(block) && block.type === "text" ? { ...block, text: replace(block.text, "text", id) } : block)) };
      }
    }
    return part;
  });
  return changed ? { ...message, content: parts } : message;
}
