// The format of a session file and the rule every reader and writer applies to it.
//
// A file is the concatenation of writes, one per append, each `\n<line>\n`, made with O_APPEND
// (the kernel puts it at the end of the file, whole, never interleaved with another write). A
// line is one append:
//
//   {"seq":S,"version":V,"after":O,"log":"L","append":"A","time":T[,"metadata":[o,v]]
//    [,"snapshot":[o,v,s]][,"session":"id"],"entries":[...]}
//
// `seq` is the version the append extends (its first record's seq) and V = S + entries. `after`
// is the byte offset where the accepted log it extends ends: a checkpoint, from which a reader
// can apply the rule below without reading anything before it. `metadata` and `snapshot` are
// checkpoints before the append holding the log's last metadata entry and last snapshot entry.
//
// The rule (fencing): reading forward from a checkpoint (offset, version), an append is accepted
// if its seq is the version so far; one whose seq is lower was written by a writer that lost its
// lock (it stalled past the lock's stale time and another writer went on) and is skipped: the
// first append for each version wins. One whose seq is higher is corruption. A writer verifies,
// by the same rule, that its own line was accepted before it acknowledges the append.
//
// Torn writes (a writer killed in the middle of one) are told from corruption by the leading
// newline: the next write's newline ends the torn bytes, so a torn line is followed directly by
// another line, while a whole write is followed by a blank line (the next write's own newline).
// A line that is not a record and is followed by a blank line, or ends the file, is corruption.
// Lines of the first format (`{"seq":N,"time":T,"entry":{...}}`, one record each, written in
// place under the lock, no leading newline) are read as appends of one record.
import type { FileHandle } from "node:fs/promises";
import { forwardLines, type Line } from "./file-lines.js";
import { MAX_APPEND_BYTES, corruptError, type SessionEntry } from "./store.js";

/** A point in a file: the accepted log ends at byte `offset` (a line's start) with `version` records. */
export interface Checkpoint {
  offset: number;
  version: number;
}

/** One append as a line holds it. */
export interface Batch {
  seq: number;
  version: number;
  /** The checkpoint the append extends (undefined for a first-format line). */
  after: number | undefined;
  log: string | undefined;
  append: string | undefined;
  time: number;
  metadata: Checkpoint | undefined;
  snapshot: (Checkpoint & { seq: number }) | undefined;
  session: string | undefined;
  entries: SessionEntry[];
}

export interface PlacedBatch extends Batch {
  /** Where its line starts and ends (the end is the offset of its newline). */
  start: number;
  end: number;
  bytes: number;
}

/** The longest line a reader gathers: the largest append plus room for its header. */
export const MAX_LINE_BYTES = MAX_APPEND_BYTES + 64 * 1024;

const isCount = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
const isEntry = (v: unknown): v is SessionEntry => isObject(v) && typeof v.type === "string";
const isCheckpoint = (v: unknown, length: number): v is number[] => Array.isArray(v) && v.length === length && v.every(isCount);

/** The append a line holds, or undefined when it is not one (garbage, or a torn write). */
export function parseLine(bytes: Buffer): Batch | undefined {
  if (bytes.length === 0 || bytes[0] !== 0x7b /* { */) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8"));
  } catch {
    return undefined;
  }
  if (!isObject(value) || !isCount(value.seq) || typeof value.time !== "number" || !Number.isFinite(value.time)) return undefined;
  if (value.entries === undefined) {
    // The first format: one record per line.
    if (!isEntry(value.entry)) return undefined;
    return {
      seq: value.seq,
      version: value.seq + 1,
      after: undefined,
      log: undefined,
      append: undefined,
      time: value.time,
      metadata: undefined,
      snapshot: undefined,
      session: undefined,
      entries: [value.entry],
    };
  }
  const { entries, version, after, log, append, metadata, snapshot, session } = value;
  if (!Array.isArray(entries) || entries.length === 0 || !entries.every(isEntry)) return undefined;
  if (version !== value.seq + entries.length || !isCount(after) || typeof log !== "string" || typeof append !== "string") return undefined;
  if (metadata !== undefined && !isCheckpoint(metadata, 2)) return undefined;
  if (snapshot !== undefined && !isCheckpoint(snapshot, 3)) return undefined;
  if (session !== undefined && typeof session !== "string") return undefined;
  return {
    seq: value.seq,
    version,
    after,
    log,
    append,
    time: value.time,
    metadata: metadata === undefined ? undefined : { offset: metadata[0] as number, version: metadata[1] as number },
    snapshot:
      snapshot === undefined ? undefined : { offset: snapshot[0] as number, version: snapshot[1] as number, seq: snapshot[2] as number },
    session,
    entries,
  };
}

/** The text of one write: a leading newline (it ends whatever torn bytes precede it), the line, a newline. */
export function encodeWrite(batch: Omit<Batch, "entries" | "version">, entries: readonly string[]): string {
  let header = `{"seq":${batch.seq},"version":${batch.seq + entries.length},"after":${batch.after},"log":${JSON.stringify(batch.log)},"append":${JSON.stringify(batch.append)},"time":${batch.time}`;
  if (batch.metadata) header += `,"metadata":[${batch.metadata.offset},${batch.metadata.version}]`;
  if (batch.snapshot) header += `,"snapshot":[${batch.snapshot.offset},${batch.snapshot.version},${batch.snapshot.seq}]`;
  if (batch.session !== undefined) header += `,"session":${JSON.stringify(batch.session)}`;
  return `\n${header},"entries":[${entries.join(",")}]}\n`;
}

/** Where a scan stands: the accepted log ends at `offset` with `next` records; `last` is its last append. */
export class Acceptance {
  next: number;
  offset: number;
  last: PlacedBatch | undefined;

  constructor(from: Checkpoint) {
    this.next = from.version;
    this.offset = from.offset;
  }
}

export interface AcceptOptions {
  /** Where the file is, for errors. */
  where: string;
  /**
   * Also take a last line that no newline ends yet, when it is a whole append: a writer about to
   * write (its leading newline will end that line) counts it, a reader does not (it may be torn).
   */
  includeUnterminated: boolean;
  /** Number lines in errors (the scan started at byte 0). */
  lineNumbers: boolean;
  /** A line parsed already (by the backward search for the checkpoint): not parsed again. */
  known?: KnownLine | undefined;
}

export interface KnownLine {
  start: number;
  batch: Batch;
}

function lineError(options: AcceptOptions, line: Line, number: number | undefined, problem: string): Error {
  const at = options.lineNumbers && number !== undefined ? `${options.where}:${number}` : `${options.where} (byte ${line.start})`;
  return corruptError(`${at}: ${problem}`);
}

const NOT_A_RECORD = "not a session record (a whole line that is not JSON of an append)";

/**
 * The rule applied to the lines of a file in order, whatever reads them (a file in chunks, a text
 * held whole): `line()` for each line with its newline, `end()` at the end of the data.
 */
export class LogRule {
  private pending: Array<{ line: Line; number: number }> = [];
  private number = 0;

  constructor(
    readonly state: Acceptance,
    private readonly options: AcceptOptions,
  ) {}

  /** The append a whole line adds to the log, if any. */
  line(line: Line): PlacedBatch | undefined {
    this.number++;
    if (line.bytes.length === 0) {
      const torn = this.pending[0];
      if (torn) throw lineError(this.options, torn.line, torn.number, NOT_A_RECORD);
      return undefined;
    }
    const known = this.options.known;
    const batch = known?.start === line.start && line.terminated ? known.batch : parseLine(line.bytes);
    if (!batch) {
      this.pending.push({ line, number: this.number });
      return undefined;
    }
    if (this.pending.length > 0) {
      // Torn writes, ended by this write's leading newline; a first-format line never has one.
      const torn = this.pending[0] as { line: Line; number: number };
      if (batch.after === undefined) throw lineError(this.options, torn.line, torn.number, "not a session record");
      this.pending = [];
    }
    return accept(this.state, batch, line, line.end + 1, this.options, this.number);
  }

  /** Lines that are not records are waiting for the next line to tell torn from corrupt. */
  get waiting(): boolean {
    return this.pending.length > 0;
  }

  /**
   * The end of the data: `unterminated` is what follows the last newline (nothing, a write under
   * way, or torn bytes). Not-a-record lines with nothing after them are corruption.
   */
  end(unterminated: Line | undefined): PlacedBatch | undefined {
    const torn = this.pending[0];
    if (!unterminated) {
      if (torn) throw lineError(this.options, torn.line, torn.number, NOT_A_RECORD);
      return undefined;
    }
    this.pending = [];
    if (!this.options.includeUnterminated) return undefined;
    const batch = parseLine(unterminated.bytes);
    // Its newline will be the first byte written after it.
    if (!batch || batch.after === undefined) return undefined;
    return accept(this.state, batch, unterminated, unterminated.end + 1, this.options, this.number + 1);
  }
}

/**
 * The accepted appends from `state`'s checkpoint up to byte `to`, in order, by the rule above;
 * `state` follows (next version, checkpoint offset, last accepted append). A line that is not an
 * append where a whole write ended, or an append that leaves a gap, is ERR_CTXWIN_SESSION_CORRUPT.
 */
export async function* acceptedBatches(
  handle: FileHandle,
  state: Acceptance,
  to: number,
  options: AcceptOptions,
): AsyncGenerator<PlacedBatch> {
  const rule = new LogRule(state, options);
  let unterminated: Line | undefined;
  for (let from = state.offset, end = to; ; ) {
    for await (const line of forwardLines(handle, from, end, MAX_LINE_BYTES, options.where)) {
      if (!line.terminated) {
        unterminated = line;
        break;
      }
      const placed = rule.line(line);
      if (placed) yield placed;
    }
    if (!rule.waiting || unterminated) break;
    // Not-a-record bytes end the data with a newline: corruption, unless a write is just starting
    // after them (its newline in the file already, the rest on its way): look once more.
    const size = (await handle.stat()).size;
    if (size <= end) break;
    from = end;
    end = size;
  }
  const placed = rule.end(unterminated);
  if (placed) yield placed;
}

/** The records of a session file held whole as text (the CLI reads files so), by the same rule. */
export function recordsOfText(text: string, where: string): Array<{ seq: number; time: number; entry: SessionEntry }> {
  const bytes = Buffer.from(text, "utf8");
  const rule = new LogRule(new Acceptance({ offset: 0, version: 0 }), { where, includeUnterminated: false, lineNumbers: true });
  const records: Array<{ seq: number; time: number; entry: SessionEntry }> = [];
  const take = (batch: PlacedBatch | undefined) =>
    batch?.entries.forEach((entry, k) => records.push({ seq: batch.seq + k, time: batch.time, entry }));
  let start = 0;
  for (let nl = bytes.indexOf(0x0a); nl !== -1; nl = bytes.indexOf(0x0a, start)) {
    take(rule.line({ start, end: nl, bytes: bytes.subarray(start, nl), terminated: true }));
    start = nl + 1;
  }
  take(rule.end(start < bytes.length ? { start, end: bytes.length, bytes: bytes.subarray(start), terminated: false } : undefined));
  return records;
}

/** Whether a text looks like a session file: its first line that is not blank is an append. */
export function isSessionLogText(text: string): boolean {
  const first = text.split("\n").find((line) => line !== "");
  return first !== undefined && parseLine(Buffer.from(first, "utf8")) !== undefined;
}

function accept(
  state: Acceptance,
  batch: Batch,
  line: Line,
  next: number,
  options: AcceptOptions,
  number: number,
): PlacedBatch | undefined {
  if (batch.seq < state.next) return undefined; // a fenced writer's late append: the first one for its version won
  if (batch.seq > state.next)
    throw lineError(options, line, number, `the append at seq ${batch.seq} leaves a gap after version ${state.next}`);
  if (batch.after !== undefined && batch.after > line.start)
    throw lineError(options, line, number, `the append at seq ${batch.seq} extends a point after itself`);
  state.next = batch.version;
  state.offset = next;
  const placed = { ...batch, start: line.start, end: line.end, bytes: line.bytes.length };
  state.last = placed;
  return placed;
}
