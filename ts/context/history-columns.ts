// A managed history as columns: the caller's messages and, beside them, what the truncation
// planner reads of each (role, tokens, flags, tool unit), plus the omission marker and which
// messages are summaries a compaction wrote.
//
// The columns are kept in step here and nowhere else: every change goes through one of the
// operations below, each of which leaves all five arrays the same length and the conversation's
// total equal to the sum of its tokens (checkInvariant() says whether they do).
import { FLAG_MARKED, type MessageFacts } from "../messages/metadata-reader.js";
import { rangeError } from "../runtime/errors.js";
import { pushRange } from "../runtime/push-range.js";
import { NumberColumn } from "./number-column.js";
import type { OmittedEntry } from "../messages/omission-marker.js";
import type { InsertedRole } from "../messages/roles.js";
import type { MessageLike } from "../messages/types.js";
import type { MessageColumns } from "../truncation/strategies.js";

/** Where earlier turns were omitted: "[N messages omitted; recall by id: ...]" goes before messages[index]. */
export interface Marker {
  index: number;
  omitted: number;
  /** The marker's own tokens. */
  tokens: number;
  role: InsertedRole;
  /** The omitted messages it names (oldest first), and how many more it does not. */
  named?: readonly OmittedEntry[] | undefined;
  unnamed?: number | undefined;
}

/** What a message holds beside itself in the columns. */
export type ColumnFacts = Pick<MessageFacts, "role" | "flags" | "unit">;

export class HistoryColumns<M extends MessageLike> implements MessageColumns<M> {
  private messageColumn: M[] = [];
  private readonly roleColumn = new NumberColumn(Uint8Array);
  private readonly tokenColumn = new NumberColumn(Uint32Array);
  private readonly flagColumn = new NumberColumn(Uint8Array);
  private readonly unitColumn = new NumberColumn(Int32Array);
  private total = 0;
  private omission: Marker | undefined;
  /** The summaries a compaction put in (an export marks them). */
  private summaryMessages = new WeakSet<object>();

  get messages(): readonly M[] {
    return this.messageColumn;
  }
  get roles(): Uint8Array {
    return this.roleColumn.values;
  }
  get tokens(): Uint32Array {
    return this.tokenColumn.values;
  }
  get flags(): Uint8Array {
    return this.flagColumn.values;
  }
  get units(): Int32Array {
    return this.unitColumn.values;
  }
  get length(): number {
    return this.messageColumn.length;
  }
  /** The conversation's tokens: the sum of the messages' tokens (the marker not included). */
  get conversationTokens(): number {
    return this.total;
  }
  get marker(): Marker | undefined {
    return this.omission;
  }
  /** The marker's tokens, 0 without one. */
  get markerTokens(): number {
    return this.omission?.tokens ?? 0;
  }

  /** Pins the message at `index` as `_preserve: true` would (compact_context's `keep`): no trim or summary takes it. */
  mark(index: number): void {
    if (index >= 0 && index < this.flagColumn.length) this.flagColumn.set(index, this.flagColumn.at(index) | FLAG_MARKED);
  }

  setMarker(marker: Marker | undefined): void {
    this.omission = marker;
  }

  isSummary(message: M): boolean {
    return this.summaryMessages.has(message as object);
  }

  /** Puts `message` at the end with its metadata and tokens. */
  append(message: M, facts: ColumnFacts, tokens: number): void {
    this.insert(this.messageColumn.length, message, facts, tokens);
  }

  /** Puts `message` at `at` with its metadata and tokens. */
  insert(at: number, message: M, facts: ColumnFacts, tokens: number): void {
    this.messageColumn.splice(at, 0, message);
    this.roleColumn.insert(at, facts.role);
    this.tokenColumn.insert(at, tokens);
    this.flagColumn.insert(at, facts.flags);
    this.unitColumn.insert(at, facts.unit);
    this.total += tokens;
  }

  /** Keeps only the messages at `indices`, in that order, with their metadata. */
  select(indices: readonly number[]): void {
    // A trim of 10,000 messages runs this once, its code cold: a loop of five pushes an element
    // runs unoptimized. Most trims keep a few runs of consecutive messages, copied a run at a
    // time (slice: the engine's own copy); many short runs (a selective trim) take one pass.
    const runs = runsOf(indices);
    if (runs === undefined) return this.selectEach(indices);
    this.messageColumn = gather(this.messageColumn, runs);
    for (const column of this.numberColumns()) column.keepRuns(runs);
    this.total = this.tokenColumn.sum();
  }

  private selectEach(indices: readonly number[]): void {
    // Made at its length, not grown by push: no copy as it grows, less garbage.
    const n = indices.length;
    const messages = new Array<M>(n);
    for (let k = 0; k < n; k++) messages[k] = this.messageColumn[indices[k] as number] as M;
    this.messageColumn = messages;
    for (const column of this.numberColumns()) column.keepIndices(indices);
    this.total = this.tokenColumn.sum();
  }

  private numberColumns(): ReadonlyArray<NumberColumn<Uint8Array | Uint32Array | Int32Array>> {
    return [this.roleColumn, this.tokenColumn, this.flagColumn, this.unitColumn];
  }

  /** The messages, and their tool units, that `indices` (ascending) leaves out, in order. */
  without(indices: readonly number[]): { messages: M[]; units: Int32Array } {
    const runs = runsOf(indices);
    if (runs !== undefined) {
      const gaps = gapsOf(runs, this.messageColumn.length);
      return { messages: gather(this.messageColumn, gaps), units: this.unitColumn.gather(gaps) };
    }
    const keep = new Uint8Array(this.messageColumn.length);
    for (let k = 0; k < indices.length; k++) keep[indices[k] as number] = 1;
    const n = keep.length - indices.length;
    const messages = new Array<M>(n);
    const units = new Int32Array(n);
    for (let i = 0, k = 0; i < keep.length; i++) {
      if (keep[i] === 1) continue;
      messages[k] = this.messageColumn[i] as M;
      units[k++] = this.unitColumn.at(i);
    }
    return { messages, units };
  }

  /** Puts `after` in place of the message at each index, with its new tokens (`counts[k]` for `edits[k]`). */
  replace(edits: ReadonlyArray<readonly [number, M]>, counts: ArrayLike<number>): void {
    edits.forEach(([i, after], k) => {
      this.total += (counts[k] ?? 0) - this.tokenColumn.at(i);
      this.messageColumn[i] = after;
      this.tokenColumn.set(i, counts[k] ?? 0);
    });
  }

  /**
   * Puts a summary a compaction wrote at `at`: pinned (kept like a system message) and in no tool
   * unit, and marked as a summary in exports.
   */
  insertSummary(at: number, summary: M, role: number, tokens: number): void {
    this.insert(at, summary, { role, flags: FLAG_MARKED, unit: -1 }, tokens);
    this.summaryMessages.add(summary as object);
  }

  /**
   * Replaces everything: the messages with their facts and tokens, and the marker. `summaries`
   * (indices) says which messages are summaries a compaction wrote (pinned and in no tool unit,
   * as insertSummary puts them); without it, the summaries this history knew stay known as such.
   */
  load(
    messages: readonly M[],
    facts: readonly ColumnFacts[],
    tokens: ArrayLike<number>,
    summaries?: readonly number[],
    marker?: Marker,
  ): void {
    const summary = new Set(summaries);
    this.messageColumn = messages.slice();
    this.roleColumn.assign(facts.map((f) => f.role));
    this.flagColumn.assign(facts.map((f, i) => (summary.has(i) ? f.flags | FLAG_MARKED : f.flags)));
    this.unitColumn.assign(facts.map((f, i) => (summary.has(i) ? -1 : f.unit)));
    this.tokenColumn.assign(tokens);
    this.total = this.tokenColumn.sum();
    if (summaries !== undefined) this.summaryMessages = new WeakSet(messages.filter((_, i) => summary.has(i)) as object[]);
    this.omission = marker;
  }

  /** Indices of the summaries a compaction wrote, in order. */
  summaryIndices(): number[] {
    const out: number[] = [];
    this.messageColumn.forEach((m, i) => {
      if (this.summaryMessages.has(m as object)) out.push(i);
    });
    return out;
  }

  /**
   * Tokens before `position` (in today's order), the marker included when it stands at or before
   * it (before it only, when `markerKept` is false: the change replaces the marker). Sums the
   * shorter side of the cut, so edits at either end of a long history cost O(changed).
   */
  tokensBefore(position: number, markerKept: boolean): number {
    const n = this.tokenColumn.length;
    const p = Math.max(0, Math.min(position, n));
    let before = 0;
    if (p <= n - p) {
      for (let i = 0; i < p; i++) before += this.tokenColumn.at(i);
    } else {
      before = this.total;
      for (let i = p; i < n; i++) before -= this.tokenColumn.at(i);
    }
    const marker = this.omission;
    if (marker !== undefined && marker.index <= p && (markerKept || marker.index < p)) before += marker.tokens;
    return before;
  }

  /** Whether the columns are in step: one entry per message in each, the total their sum, the marker within. */
  checkInvariant(): boolean {
    const n = this.messageColumn.length;
    const sameLength = this.numberColumns().every((column) => column.length === n);
    const sum = this.tokenColumn.sum();
    const marker = this.omission;
    return sameLength && sum === this.total && (marker === undefined || (marker.index >= 0 && marker.index <= n));
  }
}

/** `indices` as runs of consecutive indices, flat: start, end (exclusive), start, end...; undefined past MAX_RUNS. */
function runsOf(indices: readonly number[]): number[] | undefined {
  const runs: number[] = [];
  let k = 0;
  while (k < indices.length) {
    if (runs.length === MAX_RUNS) return undefined;
    const start = indices[k] as number;
    let end = start + 1;
    for (k++; k < indices.length && indices[k] === end; k++) end++;
    runs.push(start, end);
  }
  return runs;
}

/** The runs of 0..length-1 that ascending `runs` leave out. */
function gapsOf(runs: readonly number[], length: number): number[] {
  const gaps: number[] = [];
  let from = 0;
  for (let r = 0; r < runs.length; r += 2) {
    const start = runs[r] as number;
    if (start < from) throw rangeError(`kept indices must ascend, got ${start} after ${from - 1}`, "ERR_CTXWIN_INTERNAL");
    if (start > from) gaps.push(from, start);
    from = runs[r + 1] as number;
  }
  if (from < length) gaps.push(from, length);
  return gaps;
}

/** The elements of `column` in `runs`, in order. */
function gather<T>(column: readonly T[], runs: readonly number[]): T[] {
  if (runs.length === 2) return column.slice(runs[0], runs[1]);
  const out: T[] = [];
  for (let r = 0; r < runs.length; r += 2) pushRange(out, column, runs[r], runs[r + 1]);
  return out;
}

/** Numbers of runsOf() (two a run) past which select() and without() copy element by element. */
const MAX_RUNS = 64;
