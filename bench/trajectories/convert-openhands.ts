// OpenHands (CodeActAgent with function calling, as Multi-SWE-bench ran it: "MopenHands"): one
// completion log per run, the last request the agent sent and the model's answer to it. OpenHands
// sends the whole history with every request (no condenser in these runs), so the last request
// holds every message the agent sent: `fncall_messages`, already in OpenAI chat shape (system,
// the task as the first user message, assistant turns whose `tool_calls` are `execute_bash`,
// `str_replace_editor`, `think`, `finish`, each answered by a `role: "tool"` message), then
// `fncall_response`, the model's last answer.
//
// The model itself (Claude through OpenHands' mock function calling) was sent `messages`, the same
// history as text: the system message with the tools described after it, calls as `<function=...>`
// text. The system prompt is taken from there (when it is the function-calling one extended), so
// that the tools' descriptions weigh on the window as they do in every request OpenHands makes (a
// native function-calling request carries them as `tools`, which the replay has no place for); the
// rest comes from `fncall_messages`, where calls are calls.
//
// The conversion keeps every text byte for byte and the calls' names and arguments as sent. It
// renames the call ids `call_<n>` in order (as the other formats do; the recorded ids are the
// model's own `toolu_...`), drops the tool messages' `name` (the call already names its tool),
// joins a content given as parts (`[{ type: "text", text }]`, with cache markers) by "\n", and
// makes the last answer a plain assistant message holding its text: its call was never answered.
import type { ChatMessage, ConvertedRun, ToolCall } from "./convert.js";

interface RawCall {
  id?: unknown;
  function?: { name?: unknown; arguments?: unknown };
}

interface RawChatMessage {
  role?: unknown;
  content?: unknown;
  tool_calls?: unknown;
  tool_call_id?: unknown;
}

export interface OpenHandsLog {
  messages?: RawChatMessage[];
  fncall_messages: RawChatMessage[];
  fncall_response?: { choices?: Array<{ message?: RawChatMessage }> };
}

/** Whether a parsed file is an OpenHands completion log with function-calling messages. */
export function isOpenHandsLog(data: Record<string, unknown>): boolean {
  return Array.isArray(data.fncall_messages) && typeof data.fncall_response === "object" && data.fncall_response !== null;
}

function textOf(content: unknown, where: string): string {
  if (typeof content === "string") return content;
  if (content === null || content === undefined) return "";
  if (Array.isArray(content))
    return content
      .map((part, i) => {
        const text = (part as { text?: unknown } | null)?.text;
        if (typeof text !== "string") throw new TypeError(`${where}.content[${i}]: not a text part`);
        return text;
      })
      .join("\n");
  throw new TypeError(`${where}: content is neither a string nor parts`);
}

export function convertOpenHands(log: OpenHandsLog): ConvertedRun {
  const messages: ChatMessage[] = [];
  const ids = new Map<string, string>();
  let calls = 0;
  const raw = log.fncall_messages;
  for (let i = 0; i < raw.length; i++) {
    const m = raw[i] as RawChatMessage;
    const where = `fncall_messages[${i}]`;
    const content = textOf(m.content, where);
    if (m.role === "system" && i === 0) {
      const sent = log.messages?.[0];
      const prompt =
        sent?.role === "system" && typeof sent.content === "string" && sent.content.startsWith(content) ? sent.content : content;
      messages.push({ role: "system", content: prompt });
    } else if (m.role === "system" || m.role === "user") {
      messages.push({ role: m.role, content });
    } else if (m.role === "assistant") {
      const rawCalls = Array.isArray(m.tool_calls) ? (m.tool_calls as RawCall[]) : [];
      if (rawCalls.length === 0) {
        messages.push({ role: "assistant", content });
        continue;
      }
      const toolCalls: ToolCall[] = rawCalls.map((c, j) => {
        const name = c.function?.name;
        const args = c.function?.arguments;
        if (typeof c.id !== "string" || typeof name !== "string" || typeof args !== "string")
          throw new TypeError(`${where}.tool_calls[${j}]: id, function.name and function.arguments must be strings`);
        const id = `call_${calls++}`;
        ids.set(c.id, id);
        return { id, type: "function", function: { name, arguments: args } };
      });
      messages.push({ role: "assistant", content: content === "" ? null : content, tool_calls: toolCalls });
    } else if (m.role === "tool") {
      const id = typeof m.tool_call_id === "string" ? ids.get(m.tool_call_id) : undefined;
      if (id === undefined) throw new TypeError(`${where}: a tool result for no call made before it`);
      messages.push({ role: "tool", tool_call_id: id, content });
    } else {
      throw new TypeError(`${where}: unknown role ${JSON.stringify(m.role)}`);
    }
  }
  const last = log.fncall_response?.choices?.[0]?.message;
  if (last !== undefined) messages.push({ role: "assistant", content: textOf(last.content, "fncall_response.choices[0].message") });
  // A call never answered (none is, in these logs, but a request cut short would leave one) is
  // left out of its turn, as the other formats leave such a turn a plain message: every call the
  // replay sends has its result.
  const answered = new Set(messages.flatMap((m) => (m.role === "tool" ? [m.tool_call_id] : [])));
  let toolCalls = 0;
  const out = messages.map((m): ChatMessage => {
    if (m.role !== "assistant" || m.tool_calls === undefined) return m;
    const kept = m.tool_calls.filter((c) => answered.has(c.id));
    toolCalls += kept.length;
    if (kept.length === m.tool_calls.length) return m;
    return kept.length > 0 ? { role: "assistant", content: m.content, tool_calls: kept } : { role: "assistant", content: m.content ?? "" };
  });
  return { format: "openhands", messages: out, toolCalls };
}
