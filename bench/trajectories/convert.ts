// A recorded agent run as the messages its agent sent, in OpenAI chat shape: the system prompt,
// the task (the first user message), and per step an assistant turn whose command is a
// `tool_calls` entry answered by a `role: "tool"` message. Every output is kept byte for byte as
// recorded; what a converter leaves out or moves is said below, per format. This module imports
// nothing from ctxwin: the measure must not share code with what it measures.
//
// mini-swe-agent (`.traj.json`, trajectory_format "mini-swe-agent-1"): a shell-only agent. Each
// assistant message holds a THOUGHT and one ```bash block; mini-swe-agent runs the block when the
// message holds exactly one (its own rule) and answers with a user message (`<returncode>`,
// `<output>`, or a timeout notice). Such a message becomes an assistant turn whose text is the
// message without the block, with a `bash` call `{ command }` (the block, trimmed as
// mini-swe-agent trims it), and the answer becomes the call's tool result. A message with no block
// or several is a format error: it stays a plain assistant message and mini-swe-agent's
// correction stays a user message.
//
// SWE-agent 0.x (`.traj`, `history`): its own command interface (open, goto, edit, create,
// search_dir, ...) beside bash, parsed from the model's text. Each assistant entry's `thought` is
// the turn's text and its `action` the call: named after the interface command it starts with
// (bash otherwise), `{ command: action }`; the following user entry is its result. The
// demonstration SWE-agent sends as a user message before the task (`is_demo`) is a fixed part of
// its prompt: it becomes a second system message (same bytes), so that the first user message is
// the task, as in the other formats.
//
// OpenHands (a completion log holding the whole history in chat shape): convert-openhands.ts.

import { convertOpenHands, isOpenHandsLog, type OpenHandsLog } from "./convert-openhands.js";

export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: ToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

export type AgentFormat = "mini-swe-agent" | "swe-agent" | "openhands";

export interface ConvertedRun {
  format: AgentFormat;
  messages: ChatMessage[];
  /** Tool calls made (each answered by a tool result). */
  toolCalls: number;
}

/** SWE-agent 0.x's interface commands: a call starting with one is named after it. */
export const SWE_AGENT_COMMANDS = new Set([
  "open",
  "goto",
  "scroll_up",
  "scroll_down",
  "create",
  "edit",
  "search_dir",
  "search_file",
  "find_file",
  "submit",
]);

// mini-swe-agent's action pattern (its default `action_regex`).
const MINI_ACTION = /```bash\s*\n(.*?)\n```/gs;

/** The format of a parsed trajectory file, or undefined when it is neither. */
export function detectFormat(data: unknown): AgentFormat | undefined {
  if (data === null || typeof data !== "object") return undefined;
  const d = data as Record<string, unknown>;
  if (typeof d.trajectory_format === "string" && d.trajectory_format.startsWith("mini-swe-agent") && Array.isArray(d.messages))
    return "mini-swe-agent";
  if (Array.isArray(d.history) && Array.isArray(d.trajectory)) return "swe-agent";
  if (isOpenHandsLog(d)) return "openhands";
  return undefined;
}

/** Converts a parsed trajectory file (either format). */
export function convertTrajectory(data: unknown): ConvertedRun {
  const format = detectFormat(data);
  if (format === "mini-swe-agent") return convertMini((data as { messages: RawMessage[] }).messages);
  if (format === "swe-agent") return convertSweAgent((data as { history: RawMessage[] }).history);
  if (format === "openhands") return convertOpenHands(data as OpenHandsLog);
  throw new TypeError("not a mini-swe-agent, SWE-agent 0.x or OpenHands trajectory");
}

interface RawMessage {
  role: string;
  content: unknown;
  thought?: unknown;
  action?: unknown;
  is_demo?: unknown;
}

function text(value: unknown, where: string): string {
  if (typeof value !== "string") throw new TypeError(`${where}: content is not a string`);
  return value;
}

function callId(n: number): string {
  return `call_${n}`;
}

function call(n: number, name: string, command: string): ToolCall {
  return { id: callId(n), type: "function", function: { name, arguments: JSON.stringify({ command }) } };
}

export function convertMini(raw: readonly RawMessage[]): ConvertedRun {
  const messages: ChatMessage[] = [];
  let calls = 0;
  for (let i = 0; i < raw.length; i++) {
    const m = raw[i] as RawMessage;
    const content = text(m.content, `messages[${i}]`);
    if (m.role === "system") {
      messages.push({ role: "system", content });
    } else if (m.role === "user") {
      messages.push({ role: "user", content });
    } else if (m.role === "assistant") {
      const actions = [...content.matchAll(MINI_ACTION)];
      const answer = raw[i + 1];
      if (actions.length !== 1 || answer === undefined || answer.role !== "user") {
        messages.push({ role: "assistant", content });
        continue;
      }
      const action = actions[0] as RegExpMatchArray;
      const thought = (content.slice(0, action.index) + content.slice((action.index as number) + action[0].length)).trim();
      const tool = call(calls++, "bash", (action[1] as string).trim());
      messages.push({ role: "assistant", content: thought === "" ? null : thought, tool_calls: [tool] });
      messages.push({ role: "tool", tool_call_id: tool.id, content: text(answer.content, `messages[${i + 1}]`) });
      i++;
    } else {
      throw new TypeError(`messages[${i}]: unknown role ${JSON.stringify(m.role)}`);
    }
  }
  return { format: "mini-swe-agent", messages, toolCalls: calls };
}

export function convertSweAgent(raw: readonly RawMessage[]): ConvertedRun {
  const messages: ChatMessage[] = [];
  let calls = 0;
  for (let i = 0; i < raw.length; i++) {
    const m = raw[i] as RawMessage;
    const content = text(m.content, `history[${i}]`);
    if (m.role === "system" || (m.role === "user" && m.is_demo === true)) {
      messages.push({ role: "system", content });
    } else if (m.role === "user") {
      messages.push({ role: "user", content });
    } else if (m.role === "assistant") {
      const answer = raw[i + 1];
      const thought = typeof m.thought === "string" ? m.thought : content;
      if (typeof m.action !== "string" || answer === undefined || answer.role !== "user") {
        messages.push({ role: "assistant", content });
        continue;
      }
      const command = m.action.trim();
      const first = command.split(/\s/, 1)[0] ?? "";
      const tool = call(calls++, SWE_AGENT_COMMANDS.has(first) ? first : "bash", command);
      messages.push({ role: "assistant", content: thought.trim() === "" ? null : thought, tool_calls: [tool] });
      messages.push({ role: "tool", tool_call_id: tool.id, content: text(answer.content, `history[${i + 1}]`) });
      i++;
    } else {
      throw new TypeError(`history[${i}]: unknown role ${JSON.stringify(m.role)}`);
    }
  }
  return { format: "swe-agent", messages, toolCalls: calls };
}
