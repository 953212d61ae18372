// OpenAI Agents SDK items (the Responses API's input items) in the shape ctxwin reads, and back.
//
// The SDK's history is flat: a model response is a run of reasoning, message and call items, and
// each call's result is an item of its own. ctxwin's unit is an assistant message with its tool
// calls and their results, so each run of output items becomes ONE assistant message (reasoning
// included: a reasoning item is never separated from the calls it led to, which the Responses API
// rejects), and each result a tool message. Every copy links back to the items it stands for.
import type { AgentInputItem } from "@openai/agents";
import { describe, typeError } from "../../runtime/errors.js";
import type { MessageLike } from "../../messages/types.js";

export const ITEMS: unique symbol = Symbol("ctxwin.openai-agents.items");
export const CONTENT: unique symbol = Symbol("ctxwin.openai-agents.content");

export type LinkedItemMessage = MessageLike & { [ITEMS]?: AgentInputItem[]; [CONTENT]?: unknown };

type Record_ = Record<string, unknown>;
const isRecord = (v: unknown): v is Record_ => typeof v === "object" && v !== null;

/** An item's call id: the SDK's `callId`, or the Responses API's `call_id` some items keep (tool search). */
function callIdOf(item: Record_): string | undefined {
  const id = item.callId ?? item.call_id;
  return typeof id === "string" ? id : undefined;
}

/** A call the model makes: `*_call` items with a call id, and a program (whose output answers it). */
function isCall(item: Record_): boolean {
  return callIdOf(item) !== undefined && typeof item.type === "string" && (item.type.endsWith("_call") || item.type === "program");
}

/** A call's result: the items that answer a call by its id (`function_call_result`, `shell_call_output`, `program_output`, ...). */
function isResult(item: Record_): boolean {
  return callIdOf(item) !== undefined && !isCall(item);
}

/** Whether an Agents SDK item is a call's result (a history must not start with one). */
export function isResultItem(item: AgentInputItem | undefined): boolean {
  return isRecord(item) && isResult(item as unknown as Record_);
}

function isInput(item: Record_): boolean {
  return (
    (item.type === undefined || item.type === "message") && (item.role === "user" || item.role === "system" || item.role === "developer")
  );
}

/** Content parts as ctxwin counts them. */
function parts(content: unknown): unknown {
  if (!Array.isArray(content)) return content;
  return content.map((part) => {
    if (!isRecord(part)) return part;
    if (part.type === "input_image" || part.type === "image") return { type: "image" };
    if (typeof part.text === "string") return { type: "text", text: part.text };
    if (part.type === "refusal" && typeof part.refusal === "string") return { type: "text", text: part.refusal };
    return { type: "text", text: JSON.stringify(part) };
  });
}

/** A tool result's output as ctxwin counts it: text, or parts. */
function outputOf(item: Record_): unknown {
  const output = item.output;
  if (typeof output === "string") return output;
  if (Array.isArray(output)) return parts(output);
  if (isRecord(output)) {
    if (output.type === "text" && typeof output.text === "string") return output.text;
    // A computer call's screenshot is an image to the model, not its base64 text.
    if (output.type === "image" || output.type === "computer_screenshot") return [{ type: "image" }];
  }
  return JSON.stringify(output ?? "");
}

/** Items as ctxwin messages (see the file comment). */
export function toMessageLikes(items: readonly AgentInputItem[]): LinkedItemMessage[] {
  if (!Array.isArray(items)) throw typeError(`items must be an array, got ${describe(items)}`);
  const out: LinkedItemMessage[] = [];
  let group: { items: AgentInputItem[]; content: unknown[]; calls: unknown[] } | undefined;
  const flush = () => {
    if (!group) return;
    const message: LinkedItemMessage = { role: "assistant", content: group.content, [ITEMS]: group.items, [CONTENT]: group.content };
    if (group.calls.length > 0) message.tool_calls = group.calls;
    out.push(message);
    group = undefined;
  };
  items.forEach((original, index) => {
    if (typeof original !== "object" || original === null)
      throw typeError(`items[${index}] must be an Agents SDK item, got ${describe(original)}`);
    const item = original as unknown as Record_;
    if (isInput(item)) {
      flush();
      const content = parts(item.content);
      out.push({ role: item.role === "user" ? "user" : "system", content, [ITEMS]: [original], [CONTENT]: content });
    } else if (isResult(item)) {
      flush();
      const content = outputOf(item);
      out.push({ role: "tool", tool_call_id: callIdOf(item) as string, content, [ITEMS]: [original], [CONTENT]: content });
    } else {
      // Reasoning, assistant messages and calls of one response: one unit.
      group ??= { items: [], content: [], calls: [] };
      group.items.push(original);
      if (item.type === "reasoning") {
        for (const p of Array.isArray(item.content) ? item.content : [])
          if (isRecord(p) && typeof p.text === "string") group.content.push({ type: "reasoning", text: p.text });
      } else if (item.role === "assistant") {
        const c = parts(item.content);
        if (Array.isArray(c)) group.content.push(...c);
        else if (typeof c === "string") group.content.push({ type: "text", text: c });
      } else if (isCall(item)) {
        const name = typeof item.name === "string" ? item.name : String(item.type);
        const args =
          typeof item.arguments === "string"
            ? item.arguments
            : JSON.stringify(item.action ?? item.actions ?? item.operation ?? item.code ?? item.arguments ?? {});
        group.calls.push({ id: callIdOf(item), type: "function", function: { name, arguments: args } });
      } else {
        group.content.push({ type: "text", text: JSON.stringify(item) });
      }
    }
  });
  flush();
  return out;
}

/** The item a rewritten tool result stands for: the old item with the new output. */
function withOutput(item: AgentInputItem, content: unknown): AgentInputItem {
  const text = typeof content === "string" ? content : JSON.stringify(content);
  const old = (item as { output?: unknown }).output;
  return { ...item, output: typeof old === "string" ? text : { type: "text", text } } as AgentInputItem;
}

function withoutReasoning(item: AgentInputItem): AgentInputItem {
  const copy = { ...item, content: [] } as Record<string, unknown>;
  delete copy.rawContent;
  return copy as unknown as AgentInputItem;
}

/** Fitted messages back as items: the caller's own items where untouched. */
export function toItems(messages: readonly MessageLike[]): AgentInputItem[] {
  const out: AgentInputItem[] = [];
  for (const message of messages as LinkedItemMessage[]) {
    const items = message[ITEMS];
    if (items) {
      if (message.content === message[CONTENT]) out.push(...items);
      else if (message.role === "tool" && items[0]) out.push(withOutput(items[0], message.content));
      // Level 0 cleared the response's reasoning: its reasoning items stay (later items may refer
      // to their ids), emptied.
      else out.push(...items.map((item) => ((item as { type?: unknown }).type === "reasoning" ? withoutReasoning(item) : item)));
      continue;
    }
    // Messages ctxwin writes: summaries and omission markers.
    const text = typeof message.content === "string" ? message.content : JSON.stringify(message.content ?? "");
    if (message.role === "assistant")
      out.push({ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text }] } as AgentInputItem);
    else if (message.role === "system") out.push({ type: "message", role: "system", content: text } as AgentInputItem);
    else out.push({ type: "message", role: "user", content: text } as AgentInputItem);
  }
  return out;
}
