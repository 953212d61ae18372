// Rewriting the tool results of a message of any shape (compaction replaces or cuts them), every
// other field kept; a LangChain message stays an instance of its class.
import { describe, typeError } from "../runtime/errors.js";
import { isRecord, isTypedOutput } from "./message-shape.js";
import { isLangChainMessage, withContent } from "./langchain-shape.js";

/**
 * A copy of `message` with each tool result replaced by `replace(result, kind, id)`, where kind is
 * "json" for an AI SDK json output and "text" otherwise, and id the id of the tool call it
 * answers; every other field is kept. A message without tool results comes back as it is, and so
 * do the results a provider reads back in its own schema (provider-executed AI SDK results,
 * Anthropic server tools' blocks, the Responses API's hosted tool items).
 */
export function mapToolResults<M extends object>(
  message: M,
  replace: (result: unknown, kind: "text" | "json", id: string | undefined) => unknown,
): M {
  if (!isRecord(message)) throw typeError(`message must be a message object, got ${describe(message)}`);
  const record = message as Record<string, unknown>;
  const content = record.content;
  const idOf = (value: unknown) => (typeof value === "string" ? value : undefined);
  // A LangChain ToolMessage comes back as a new ToolMessage (its class and every other field kept).
  if (isLangChainMessage(message))
    return typeof record.tool_call_id === "string" ? withContent(message, replace(content, "text", record.tool_call_id)) : message;
  if (typeof record.tool_call_id === "string") return { ...message, content: replace(content, "text", record.tool_call_id) };
  if (record.role === "function") return { ...message, content: replace(content, "text", undefined) };
  if (record.role === undefined && typeof record.type === "string") return mapOutputItem(message, record, replace);
  if (!Array.isArray(content)) return message;
  let changed = false;
  const parts = content.map((part: unknown) => {
    if (!isRecord(part)) return part;
    // A provider-executed tool's result is read back by its provider in its own schema: a
    // placeholder in its place would make the request invalid, so it is never rewritten.
    if (part.type === "tool-result" && part.providerExecuted !== true) {
      const output = part.output;
      changed = true;
      const id = idOf(part.toolCallId);
      if (isTypedOutput(output))
        return { ...part, output: { ...output, value: replace(output.value, output.type === "json" ? "json" : "text", id) } };
      if ("result" in part) return { ...part, result: replace(part.result, "text", id) };
    }
    if (part.type === "tool_result") {
      changed = true;
      const id = idOf(part.tool_use_id);
      if (typeof part.content === "string") return { ...part, content: replace(part.content, "text", id) };
      if (Array.isArray(part.content)) {
        return {
          ...part,
          content: part.content.map((block: unknown) =>
            isRecord(block) && block.type === "text" ? { ...block, text: replace(block.text, "text", id) } : block,
          ),
        };
      }
    }
    return part;
  });
  return changed ? { ...message, content: parts } : message;
}

/** The Responses output items whose output compaction may rewrite, and the field that holds it. */
const OUTPUT_FIELDS: Readonly<Record<string, string>> = {
  function_call_output: "output",
  custom_tool_call_output: "output",
  local_shell_call_output: "output",
  apply_patch_call_output: "output",
  shell_call_output: "output",
  program_output: "result",
};

/** A Responses output item with its output replaced, in the item's own form; any other item as it is. */
function mapOutputItem<M extends object>(
  message: M,
  item: Record<string, unknown>,
  replace: (result: unknown, kind: "text" | "json", id: string | undefined) => unknown,
): M {
  const type = item.type as string;
  const field = Object.hasOwn(OUTPUT_FIELDS, type) ? OUTPUT_FIELDS[type] : undefined;
  if (field === undefined) return message;
  const id =
    typeof item.call_id === "string"
      ? item.call_id
      : type === "local_shell_call_output" && typeof item.id === "string"
        ? item.id
        : undefined;
  const value = replace(item[field], "text", id);
  if (type !== "shell_call_output" || !Array.isArray(item.output) || typeof value !== "string") return { ...message, [field]: value };
  // A shell call's output is a list of { stdout, stderr, outcome }: the new text is its stdout, the last outcome kept.
  const last: unknown = item.output[item.output.length - 1];
  const outcome = isRecord(last) && isRecord(last.outcome) ? last.outcome : { type: "exit", exit_code: 0 };
  return { ...message, output: [{ stdout: value, stderr: "", outcome }] };
}
