// What one request keeps: each answer present (verbatim in the request's text), recoverable (a
// recall id the request names reads back an original that holds it) or lost; and the request's
// faults: over the window, the task missing, a tool call apart from its result, the newest tool
// result missing. Reads requests as plain data, with no ctxwin parser: the measure stays apart
// from what it measures.
import type { Answer } from "./questions.js";

export type Verdict = "present" | "recoverable" | "lost";

interface LooseMessage {
  role?: unknown;
  content?: unknown;
  tool_calls?: Array<{ id?: unknown; function?: { name?: unknown; arguments?: unknown } }>;
  tool_call_id?: unknown;
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content
      .map((part) =>
        typeof part === "string" ? part : typeof (part as { text?: unknown })?.text === "string" ? (part as { text: string }).text : "",
      )
      .join("\n");
  return "";
}

/**
 * The text a model reads of a request: each message's content, and each tool call's name and
 * command (its `command` argument as written, and its `path` argument after it when it has one,
 * as an editor's call does; else its arguments).
 */
export function requestText(messages: readonly unknown[]): string {
  const parts: string[] = [];
  for (const raw of messages) {
    const m = raw as LooseMessage;
    parts.push(contentText(m.content));
    for (const call of m.tool_calls ?? []) {
      const args = typeof call.function?.arguments === "string" ? call.function.arguments : "";
      let command = args;
      try {
        const parsed = JSON.parse(args) as { command?: unknown; path?: unknown };
        if (typeof parsed.command === "string")
          command = typeof parsed.path === "string" ? `${parsed.command} ${parsed.path}` : parsed.command;
      } catch {
        // Arguments that are not JSON are read as written.
      }
      parts.push(`${String(call.function?.name ?? "")} ${command}`);
    }
  }
  return parts.join("\n");
}

/**
 * The recall ids a request names: `recall("id")`, a summary head's `recall by id: a, b`, and a
 * problem's `[id x]`.
 */
export function namedRecallIds(text: string): string[] {
  const ids = new Set<string>();
  for (const m of text.matchAll(/recall\(\s*["']([^"'\s]+)["']/g)) ids.add(m[1] as string);
  for (const m of text.matchAll(/recall by id: ([^);\n]+)/g))
    for (const id of (m[1] as string).split(/,\s*/)) if (/^[\w.:-]+$/.test(id.trim())) ids.add(id.trim());
  for (const m of text.matchAll(/\[id ([\w.:-]+)\]/g)) ids.add(m[1] as string);
  return [...ids];
}

/** Each answer's verdict in a request. `recall` reads an id's original (undefined: a baseline, nothing to recall). */
export async function classify(
  answers: readonly Answer[],
  text: string,
  recall: ((id: string) => Promise<string | undefined>) | undefined,
): Promise<Verdict[]> {
  const verdicts: Verdict[] = answers.map((a) => (text.includes(a.text) ? "present" : "lost"));
  if (recall === undefined || !verdicts.includes("lost")) return verdicts;
  const originals: string[] = [];
  for (const id of namedRecallIds(text)) {
    const original = await recall(id);
    if (original !== undefined) originals.push(original);
  }
  return verdicts.map((v, i) => (v === "lost" && originals.some((o) => o.includes((answers[i] as Answer).text)) ? "recoverable" : v));
}

export interface Faults {
  /** Tool calls without their results, or results without their calls, in the request. */
  splitUnits: number;
  taskMissing: boolean;
  /** Whether the newest tool result (by its call id) is in the request; undefined when there is none yet. */
  newestResultPresent: boolean | undefined;
}

/** The faults of a request, given the task's text and the newest tool result's call id. */
export function faults(messages: readonly unknown[], task: string | undefined, newestCallId: string | undefined): Faults {
  const calls = new Set<string>();
  const results = new Set<string>();
  let taskPresent = task === undefined;
  for (const raw of messages) {
    const m = raw as LooseMessage;
    for (const call of m.tool_calls ?? []) if (typeof call.id === "string") calls.add(call.id);
    if (m.role === "tool" && typeof m.tool_call_id === "string") results.add(m.tool_call_id);
    if (!taskPresent && m.role === "user" && m.content === task) taskPresent = true;
  }
  let splitUnits = 0;
  for (const id of calls) if (!results.has(id)) splitUnits++;
  for (const id of results) if (!calls.has(id)) splitUnits++;
  return { splitUnits, taskMissing: !taskPresent, newestResultPresent: newestCallId === undefined ? undefined : results.has(newestCallId) };
}

/** Summaries in a request: messages whose text opens with a summary's head. */
export function summariesIn(messages: readonly unknown[]): string[] {
  return messages.map((m) => contentText((m as LooseMessage).content)).filter((t) => /^Summary of the \d+ earlier messages/.test(t));
}

/** The call ids of the open problems a summary lists (`Open problems, newest first:` then `- ... [id x]` lines). */
export function listedOpenProblems(summary: string): Array<string | undefined> {
  const lines = summary.split("\n");
  const start = lines.findIndex((l) => l.trim().startsWith("Open problems"));
  if (start < 0) return [];
  const ids: Array<string | undefined> = [];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith("- ")) break;
    if (/^- and \d+ older open problems/.test(line)) continue;
    ids.push(/\[id ([\w.:-]+)\]\s*$/.exec(line)?.[1]);
  }
  return ids;
}
