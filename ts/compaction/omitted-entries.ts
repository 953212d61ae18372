// What an omission marker names of the messages a trim took: the ids a Recall keeps their
// originals under (a tool result under its call's id, any other message under messageId(), as a
// summary's head names them) and one line on each: the tool and its subject (`bash pytest -x`,
// `read_file src/a.ts`), or a message's role and first words. A message that makes tool calls is
// named by its results. The marker names the newest entries that fit its bound in tokens, and
// counts the rest. A command whose failure is still open among the omitted messages is named
// whatever its age (the newest few, marked "(failed)"): it is what an agent needs back first.
import { toolOutputText, visitMessage } from "../messages/message-shape.js";
import { MAX_NAMED_OMISSIONS, omissionMarker, type OmittedEntry } from "../messages/omission-marker.js";
import type { InsertedRole } from "../messages/roles.js";
import type { MessageLike } from "../messages/types.js";
import { native } from "../runtime/native.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import type { ProblemRecord } from "./open-problems.js";
import { readSummary } from "./summary-head.js";
import { hasToolResult, messageId, toolCallsById, toolResultEvent, toolResults, type ToolResultRead } from "./tool-events.js";

/** A line's length at most, in code points (an id comes before it). */
const MAX_LINE = 72;

/** Argument names that say what a call is about, most telling first. */
const SUBJECT_KEYS = ["command", "cmd", "path", "file_path", "filePath", "file", "filename", "query", "pattern", "url", "name", "id"];

/** Messages looked back at, past the entries named, for the calls their results answer. */
const CALL_LOOKBACK = 64;

/** Tool results read, newest first, for failures still open among the omitted messages (a bound: a trim of thousands reads a few dozen). */
const FAILURE_LOOKBACK = 32;

/** Open failures a marker names at most beside its newest entries. */
const MAX_FAILURES = 4;

/** The mark on a failure still open among what a marker stands for. */
const FAILED = " (failed)";

/** A marker line without its failure mark. */
const unmarked = (line: string) => (line.endsWith(FAILED) ? line.slice(0, -FAILED.length) : line);

/**
 * Words without which the problem ledger finds no failure in a result (an error, a failing test or
 * tally, a non-zero exit status, a timeout, a result the framework marks as an error): results
 * without them are not sent to the core, so that a trim of results that all passed costs no
 * reading. A result that names none is read only to close a failure of the same call.
 */
const FAILURE_HINT =
  /error|fail|exception|traceback|not found|no such|denied|timed out|exit (code|status)|returncode>\s*-?[1-9]|not ok|panic|fatal|refused|cannot|unable|abort|killed|\u2717|\u00d7/i;

/**
 * The newest `max` entries for `removed` (in order): each tool result by its call's id, each
 * other message by its own; a message that makes tool calls by its results. Only the messages
 * those entries come from (and the calls before them) are read: a trim of thousands of messages
 * names a dozen.
 */
export function omittedEntries(removed: readonly MessageLike[], max = MAX_NAMED_OMISSIONS): OmittedEntry[] {
  const found: Array<{ message: MessageLike; entries: Array<{ id: string; call: boolean; text: string }> }> = [];
  let count = 0;
  let start = removed.length;
  while (start > 0 && count < max) {
    const message = removed[--start] as MessageLike;
    // A summary a compaction wrote is no message of the caller's: recall has nothing under its id
    // (the ids it stands for are in its own head). It goes unnamed.
    const entry = readSummary(message.content) === undefined ? entriesOf(message) : [];
    count += entry.length;
    found.push({ message, entries: entry });
  }
  found.reverse();
  // The calls the results answer: looked for from the newest back, until each is found.
  const wanted = new Set(found.flatMap((f) => f.entries.filter((e) => e.call).map((e) => e.id)));
  const calls = new Map<string, { name: string; args: unknown }>();
  for (let i = removed.length - 1; i >= Math.max(0, start - CALL_LOOKBACK) && calls.size < wanted.size; i--) {
    for (const [id, call] of toolCallsById([removed[i] as MessageLike])) if (wanted.has(id)) calls.set(id, call);
  }
  const out: OmittedEntry[] = [];
  for (const { message, entries } of found) {
    for (const { id, call: isResult, text } of entries) {
      if (!isResult) {
        const role = typeof message.role === "string" ? message.role : "message";
        out.push({ id, line: oneLine(`${role}: ${text}`) });
        continue;
      }
      const call = calls.get(id);
      out.push({ id, line: oneLine(call === undefined ? `tool result: ${text}` : `${call.name} ${subjectOf(call.args)}`) });
    }
  }
  // Open failures among the omitted messages come last, so that a bound keeps them first.
  const { ids, calls: failingCalls } = openFailures(removed);
  const failing = ids.slice(0, MAX_FAILURES).reverse();
  if (failing.length === 0) return out.slice(Math.max(0, out.length - max));
  const named = new Map(out.map((e) => [e.id, e]));
  const last = failing.map((id) => {
    const call = failingCalls.get(id);
    const line = named.get(id)?.line ?? oneLine(call === undefined ? "tool result" : `${call.name} ${subjectOf(call.args)}`);
    return { id, line: `${line}${FAILED}` };
  });
  const rest = out.filter((e) => !failing.includes(e.id));
  return [...rest.slice(Math.max(0, rest.length - (max - last.length))), ...last].slice(-max);
}

/**
 * The call ids of the failures still open among the newest FAILURE_LOOKBACK tool results of
 * `messages`, newest first, and the calls they answer: the core's problem ledger reads them as a
 * summary's record does (a failing command, test or build, closed by a later pass of the same check).
 */
function openFailures(messages: readonly MessageLike[]): { ids: string[]; calls: Map<string, { name: string; args: unknown }> } {
  const from = newestResultsStart(messages);
  if (from === messages.length) return { ids: [], calls: new Map() };
  // What may have failed: a result that names a failure (or is marked as an error). Looked for
  // first, before the calls are found: most trims take no failure, and then nothing else is read.
  const none = new Map<string, { name: string; args: unknown }>();
  const found = messages.slice(from).flatMap((m) => toolResults(m, none));
  if (!found.some(mayHaveFailed)) return { ids: [], calls: none };
  // Each result with the call it answers, and what may close a failure: a later result of the same call (tool and arguments).
  const calls = toolCallsById(messages.slice(Math.max(0, from - CALL_LOOKBACK), messages.length));
  const results = found.map((read) => {
    const call = calls.get(read.id);
    const result = { id: read.id, name: call?.name ?? "", args: call?.args ?? null, text: read.text, error: read.error };
    return { result, call: callKey(result), failed: mayHaveFailed(read) };
  });
  const hinted = new Set(results.filter((e) => e.failed).map((e) => e.call));
  const read = results.filter((e) => hinted.has(e.call)).map((e) => toolResultEvent(e.result));
  const record = JSON.parse(native.observeToolResults("", read)) as ProblemRecord;
  const open = record.problems.filter((p) => p.resolved === undefined).map((p) => p.id);
  return { ids: [...new Set(open.reverse())], calls };
}

/** Whether the problem ledger may find a failure in `result`. */
function mayHaveFailed(result: ToolResultRead): boolean {
  return result.error || FAILURE_HINT.test(result.text);
}

/** Where the newest FAILURE_LOOKBACK tool results of `messages` start (its length: none). */
function newestResultsStart(messages: readonly MessageLike[]): number {
  let from = messages.length;
  let results = 0;
  while (from > 0 && results < FAILURE_LOOKBACK) if (hasToolResult(messages[--from] as MessageLike)) results++;
  return results === 0 ? messages.length : from;
}

/**
 * `marker` with the failures an earlier trim marked unmarked when `removed`, what a later trim
 * took, ran the same call again (tool and subject, among its newest FAILURE_LOOKBACK results):
 * that run's outcome is what counts, and omittedEntries marks it if it failed.
 */
export function rerunsUnmarked<T extends { named?: readonly OmittedEntry[] | undefined }>(
  marker: T | undefined,
  removed: readonly MessageLike[],
): T | undefined {
  if (marker?.named === undefined || !marker.named.some((e) => e.line.endsWith(FAILED))) return marker;
  const from = newestResultsStart(removed);
  if (from === removed.length) return marker;
  const calls = toolCallsById(removed.slice(Math.max(0, from - CALL_LOOKBACK)));
  const ran = new Set([...calls.values()].map((call) => oneLine(`${call.name} ${subjectOf(call.args)}`)));
  const named = marker.named.map((e) => (e.line.endsWith(FAILED) && ran.has(unmarked(e.line)) ? { id: e.id, line: unmarked(e.line) } : e));
  return { ...marker, named };
}

/** A result's call: its tool and arguments. */
function callKey(result: ToolResultRead): string {
  return `${result.name}\n${JSON.stringify(result.args ?? null)}`;
}

/** The entries of one message: its tool results (`call`: true) with their text, or the message itself. */
function entriesOf(message: MessageLike): Array<{ id: string; call: boolean; text: string }> {
  const texts: string[] = [];
  const results: Array<{ id: string; call: boolean; text: string }> = [];
  let sawResult = false;
  let makesCalls = false;
  visitMessage(message as unknown as Record<string, unknown>, {
    text: (value) => {
      if (typeof value === "string") texts.push(value.slice(0, 4 * MAX_LINE));
    },
    image: () => texts.push("[image]"),
    toolCall: () => (makesCalls = true),
    toolResult: (id, output) => {
      sawResult = true;
      if (id !== undefined) results.push({ id, call: true, text: toolOutputText(output).slice(0, 4 * MAX_LINE) });
    },
  });
  if (sawResult || makesCalls) return results;
  return [{ id: messageId(message), call: false, text: texts.join(" ") }];
}

/**
 * The marker's names: of `entries` (oldest first, after those `previous` named), the newest that
 * fit `budget` tokens, the marker counted as a message less `overhead` (an empty request), and how
 * many it leaves unnamed. No entry fitting gives the bare marker.
 */
export function namesWithin(
  omitted: number,
  role: InsertedRole,
  previous: { named?: readonly OmittedEntry[] | undefined; unnamed?: number | undefined } | undefined,
  entries: readonly OmittedEntry[],
  budget: number,
  counter: TokenCounter,
  overhead: number,
): { named: OmittedEntry[]; unnamed: number; tokens: number } {
  const all = failuresLast([...(previous?.named ?? []), ...entries]);
  let unnamed = (previous?.unnamed ?? 0) + Math.max(0, all.length - MAX_NAMED_OMISSIONS);
  let named = all.slice(Math.max(0, all.length - MAX_NAMED_OMISSIONS));
  const cost = (list: readonly OmittedEntry[], rest: number) =>
    Math.max(0, counter.countMessages([omissionMarker(omitted, role, list, rest)]) - overhead);
  let tokens = cost(named, unnamed);
  // Over the bound: the oldest lines go, as many as their own counts say, then one count of the whole again.
  while (named.length > 0 && tokens > budget) {
    let over = tokens - budget;
    let drop = 0;
    while (drop < named.length && over > 0) {
      const entry = named[drop] as OmittedEntry;
      over -= counter.count(`recall(${JSON.stringify(entry.id)}): ${entry.line}\n`);
      drop++;
    }
    named = named.slice(Math.max(1, drop));
    unnamed += Math.max(1, drop);
    tokens = cost(named, unnamed);
  }
  if (named.length === 0) return { named: [], unnamed: 0, tokens: cost([], 0) };
  return { named, unnamed, tokens };
}

/**
 * `entries` (oldest first) with the newest MAX_FAILURES failures moved last, where a bound keeps
 * them first: a marker that grows over later trims keeps naming the failure an earlier trim
 * took, unless the same call (tool and subject) was named again after it, which ran it again.
 */
function failuresLast(entries: readonly OmittedEntry[]): OmittedEntry[] {
  const lastAt = new Map<string, number>();
  entries.forEach((e, i) => lastAt.set(unmarked(e.line), i));
  const failing = new Set<number>();
  for (let i = entries.length - 1; i >= 0 && failing.size < MAX_FAILURES; i--) {
    const e = entries[i] as OmittedEntry;
    if (e.line.endsWith(FAILED) && lastAt.get(unmarked(e.line)) === i) failing.add(i);
  }
  if (failing.size === 0) return entries.slice();
  return [...entries.filter((_, i) => !failing.has(i)), ...entries.filter((_, i) => failing.has(i))];
}

/** What a call is about: its most telling string argument, else its arguments as JSON. */
function subjectOf(args: unknown): string {
  if (typeof args === "string") return args;
  if (args !== null && typeof args === "object" && !Array.isArray(args)) {
    const record = args as Record<string, unknown>;
    for (const key of SUBJECT_KEYS) if (typeof record[key] === "string") return record[key];
    for (const value of Object.values(record)) if (typeof value === "string") return value;
  }
  return args === undefined ? "" : (JSON.stringify(args) ?? "");
}

/** `text` on one line (runs of white space as one space), at most MAX_LINE code points, "…" where it was cut. */
function oneLine(text: string): string {
  const flat = text
    .slice(0, 4 * MAX_LINE)
    .replace(/\s+/g, " ")
    .trim();
  if (flat.length <= MAX_LINE) return flat; // as many code points at most
  let cut = "";
  let points = 0;
  for (const point of flat) {
    if (++points === MAX_LINE) return `${cut}…`;
    cut += point;
  }
  return flat;
}
