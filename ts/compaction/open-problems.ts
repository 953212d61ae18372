// The open problems of a managed history: every failure its tool results reported, until a later
// result shows the same check passing (the rules are the core's problem ledger,
// native/include/ctxwin/compaction/problem_ledger.hpp). Compaction reads the results into this
// record before it clears, cuts or summarizes any of them, so an error survives the output that
// reported it; every summary receives the record; an export carries it.
//
// The record is plain data. Results are read lazily, when a compaction (or an export) needs the
// record, and each result once: the messages already read are remembered by identity, and across
// an export by the id of the last result read.
import type { MessageLike } from "../messages/types.js";
import { describe, typeError } from "../runtime/errors.js";
import { native } from "../runtime/native.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import { hasToolResult, resultIds, toolCallsById, toolResultEvents } from "./tool-events.js";

/** A failure the session's tools reported. */
export interface Problem {
  /** What was checked: `test\n<name>` for a failing test, else `<tool>\n<subject>` (its command, path, filter or id). */
  check: string;
  /** The failing test's name. */
  test?: string;
  /** The call that showed it last, as a reader would write it: `npm run build`, run_tests {"filter":"billing"}. */
  label: string;
  /** The tool call id of that result. */
  id: string;
  /** Its failure lines in that result: errors, the first frames of their stack traces, failing assertions, the exit code. */
  lines: string[];
  /** How that run ended: its tally, or its exit code. */
  outcome: string;
  /** The check of the command that ran the test. */
  command?: string;
  /** Its place among the results read: the record is ordered by it. */
  seen: number;
  /** The result that showed it passing. */
  resolved?: { id: string; line: string };
}

/** A session's problems as compaction keeps them, exports carry them, and summaries receive them. */
export interface ProblemRecord {
  /** Oldest first (by `seen`). */
  problems: Problem[];
  /** How many results were read. */
  seen: number;
  /** The id of the last result read. */
  observedThrough?: string;
}

export const EMPTY_PROBLEM_RECORD: ProblemRecord = Object.freeze({ problems: [], seen: 0 }) as ProblemRecord;

export class OpenProblems {
  private json = "";
  private current: ProblemRecord = EMPTY_PROBLEM_RECORD;
  /** The messages whose results were read. */
  private observed = new WeakSet<object>();
  /** A fork's view of what its parent had read when it was made (read only: the fork adds to its own set). */
  private inherited: WeakSet<object> | undefined;

  /** A ledger that starts where this one is and goes on alone (a compaction preview's): what it reads is never marked here. */
  fork(): OpenProblems {
    const fork = new OpenProblems();
    fork.json = this.json;
    fork.current = this.current;
    fork.inherited = this.observed;
    return fork;
  }

  /** The record as it is now (results not read yet are not in it: see observe). */
  get record(): ProblemRecord {
    return this.current;
  }

  /** The open problems, newest first. */
  get open(): Problem[] {
    return this.current.problems.filter((p) => p.resolved === undefined).reverse();
  }

  /**
   * Reads the tool results of `messages` that were not read yet, in order, in one core call; the
   * calls they answer are found among `messages`.
   */
  observe(messages: readonly MessageLike[]): void {
    const fresh = messages.filter((m) => !this.observed.has(m as object) && this.inherited?.has(m as object) !== true && hasToolResult(m));
    if (fresh.length === 0) return;
    const calls = toolCallsById(messages);
    const events = fresh.flatMap((m) => toolResultEvents(m, calls));
    this.json = native.observeToolResults(this.json, events);
    this.current = JSON.parse(this.json) as ProblemRecord;
    for (const m of fresh) this.observed.add(m as object);
  }

  /** `copy` (a compacted copy of a result that was read) needs no reading of its own. */
  markObserved(copy: object): void {
    this.observed.add(copy);
  }

  /**
   * Continues from `record` (an export's, or another manager's): the results of `messages` up to
   * the one the record read last count as read; the rest are read when the record is next needed.
   */
  restore(record: ProblemRecord, messages: readonly MessageLike[]): void {
    const json = JSON.stringify(record);
    // The core checks it: a bad record throws before anything changes.
    this.json = native.observeToolResults(json, []);
    this.current = JSON.parse(this.json) as ProblemRecord;
    this.observed = new WeakSet();
    const through = record.observedThrough;
    let last = -1;
    if (through !== undefined) messages.forEach((m, i) => resultIds(m).includes(through) && (last = i));
    // A record whose last result is not among the messages read them all (an export reads every result first).
    const upTo = through === undefined || last < 0 ? messages.length - 1 : last;
    for (let i = 0; i <= upTo; i++) this.observed.add(messages[i] as object);
  }

  /** The record after reading every result of `messages` not read yet: what an export carries. */
  recordOf(messages: readonly MessageLike[]): ProblemRecord {
    this.observe(messages);
    return this.current;
  }

  /** Continues from an import's record (see restore), or starts afresh when it carries none. */
  load(record: ProblemRecord | undefined, messages: readonly MessageLike[]): void {
    if (record === undefined) this.clear();
    else this.restore(record, messages);
  }

  /** Forgets everything (the history was cleared). */
  clear(): void {
    this.json = "";
    this.current = EMPTY_PROBLEM_RECORD;
    this.observed = new WeakSet();
  }

  /** The open and the resolved problems as a summary lists them, under their headings; "" without any. */
  describe(maxOpen = 8, maxResolved = 4): string {
    return this.json === "" ? "" : native.describeProblems(this.json, maxOpen, maxResolved);
  }
}

/** `record` checked as a ProblemRecord (an export's), with a coded TypeError naming the first bad field. */
export function checkProblemRecord(record: unknown, name: string): ProblemRecord {
  if (record === null || typeof record !== "object" || !Array.isArray((record as ProblemRecord).problems)) {
    throw typeError(`${name} must be { problems: [...] }, got ${describe(record)}`);
  }
  try {
    return JSON.parse(native.observeToolResults(JSON.stringify(record), [])) as ProblemRecord;
  } catch (error) {
    throw typeError(`${name} is not a problem record: ${error instanceof Error ? error.message : String(error)}`, undefined, {
      cause: error,
    });
  }
}

/** The problems of `record` as a summary lists them (see OpenProblems.describe). */
export function describeProblems(record: ProblemRecord, maxOpen = 8, maxResolved = 4): string {
  return record.problems.length === 0 ? "" : native.describeProblems(JSON.stringify(record), maxOpen, maxResolved);
}

const OPEN_HEADING = "Open problems, newest first:";
/** The core's line for the open problems a list leaves out (describe_older_open_problems): their count and the ids it names. */
const OLDER_LINE = /^- and (\d+) older open problems(?: \(recall by id: ([^)]*)\))?$/;
/** Ids that line names at most (the core's kMaxOlderIds). */
const MAX_OLDER_IDS = 8;
/** Ids that line keeps before a listed problem gives way (the newest left out). */
const MIN_OLDER_IDS = 3;
const RESOLVED_HEADING = "Resolved problems, newest first:";

/** The line counting `count` left-out open problems and naming the first of `ids` (none when `count` is 0), as the core writes it. */
function olderLine(count: number, ids: readonly string[]): string[] {
  if (count === 0) return [];
  const named = [...new Set(ids)].slice(0, MAX_OLDER_IDS);
  return [`- and ${count} older open problems${named.length === 0 ? "" : ` (recall by id: ${named.join(", ")})`}`];
}

/** The id a problem line ends with (`[id call_7]`), if any. */
function idOf(line: string): string[] {
  const id = / \[id ([^\]]+)\]$/.exec(line)?.[1];
  return id === undefined ? [] : [id];
}

/**
 * A problem line (`- what: reason | frame | reason (last output: ...) [id x]`) with one reason: the
 * last that is neither a stack frame nor an exit code (a traceback's exception comes after its
 * frames), and its id.
 */
function compactProblemLine(line: string): string {
  const id = / \[id [^\]]*\]$/.exec(line)?.[0] ?? "";
  let rest = id === "" ? line : line.slice(0, -id.length);
  rest = rest.replace(/ \(last output: [^()]*\)$/, "").replace(/ -> now .*$/, "");
  const colon = rest.indexOf(": ");
  if (colon < 0) return line;
  const reasons = rest.slice(colon + 2).split(" | ");
  const reason =
    [...reasons].reverse().find((r) => !/^(at |File "|exit code\b|Traceback\b)/.test(r.trim())) ?? reasons[reasons.length - 1] ?? "";
  return `${rest.slice(0, colon)}: ${reason}${id}`;
}

/**
 * The problems as a summary lists them (describeProblems' text), within `maxTokens`: when over,
 * the resolved ones go first, then each open problem keeps one reason, then the oldest open ones
 * go (counted in a last line), and last the newest one's line is cut; "" when not even its heading fits.
 */
export function boundProblemText(text: string, maxTokens: number, counter: TokenCounter): string {
  if (text === "" || counter.count(text) <= maxTokens) return text;
  const lines = text.split("\n");
  const open: string[] = [];
  // The open problems the text already leaves out: how many, and the ids its line names.
  const older = { count: 0, ids: [] as string[] };
  for (let i = 0, section = ""; i < lines.length; i++) {
    const line = lines[i] as string;
    const counted = OLDER_LINE.exec(line);
    if (line === OPEN_HEADING || line === RESOLVED_HEADING) section = line;
    else if (section === OPEN_HEADING && counted !== null) {
      older.count += Number(counted[1]);
      older.ids.push(...(counted[2]?.split(", ") ?? []));
    } else if (section === OPEN_HEADING && line.startsWith("- ")) open.push(line);
  }
  // The lines a bound leaves out, newest first, are counted before the older ones, their ids named first.
  const write = (items: readonly string[], droppedLines: readonly string[], maxIds = MAX_OLDER_IDS) =>
    [
      OPEN_HEADING,
      ...items,
      ...olderLine(older.count + droppedLines.length, [...droppedLines.flatMap(idOf), ...older.ids].slice(0, maxIds)),
    ].join("\n");
  if (open.length === 0) return "";
  let kept = open.slice();
  if (counter.count(write(kept, [])) <= maxTokens) return write(kept, []);
  kept = kept.map(compactProblemLine);
  // The listed lines take the room first, but for the newest few of the left-out problems' ids
  // (one test run's failures can fill the list); more ids take what room the lines leave.
  while (kept.length > 1 && counter.count(write(kept, open.slice(kept.length), MIN_OLDER_IDS)) > maxTokens) kept.pop();
  const dropped = open.slice(kept.length);
  let result = "";
  for (let ids = MAX_OLDER_IDS; ids >= 0; ids--) if (counter.count((result = write(kept, dropped, ids))) <= maxTokens) return result;
  // One problem and still over: its line cut where it fits, its id kept.
  const whole = kept[0] as string;
  const id = / \[id [^\]]+\]$/.exec(whole)?.[0] ?? "";
  const line = whole.slice(0, whole.length - id.length);
  const cutAt = (end: number) => write([`${line.slice(0, end)}...${id}`], dropped, 0);
  let lo = 0;
  let hi = line.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (counter.count(cutAt(mid)) <= maxTokens) lo = mid;
    else hi = mid - 1;
  }
  if (lo < 3) return "";
  result = cutAt(/[\uD800-\uDBFF]/.test(line[lo - 1] as string) ? lo - 1 : lo);
  return counter.count(result) <= maxTokens ? result : "";
}
