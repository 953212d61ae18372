// The log side of a manager's session: what the manager knows of its log, and how it appends to
// it so that nothing it appended is lost, doubled or silently dropped.
//
// - Opening reads from the log's last snapshot (the store says where it is), not from the start,
//   and folds the records into a replay as they stream in: it holds the view, not the log.
// - Each append names the version and the log it extends and carries an appendId. An append that
//   got no answer (a lost reply, a dropped connection) is tried again exactly as it was, same id,
//   same version, before anything else: if it had landed, the store answers from it and nothing
//   is written twice.
// - A conflict (another writer appended first) is caught up by reading only what came after the
//   version the manager had. A log that is gone, replaced or behind what the manager saw is
//   ERR_CTXWIN_SESSION_LOST: reported, never papered over by starting again on an empty log.
// - Every so often (the records since the last snapshot pass twice the view, and 1,000) the batch
//   ends with a snapshot of the view, so that the next open reads from there.
import { randomBase64url } from "../runtime/random-id.js";
import { ContextReplay, type ContextView } from "./context-log.js";
import { isConflict, isLost, MAX_APPEND_BYTES, tooLargeError, utf8Length, type SessionEntry, type SessionStore } from "./store.js";

/** Records since the last snapshot before a new one is written: at least this many... */
const SNAPSHOT_MIN_RECORDS = 1000;
/** ...and at least this many times the records the view holds (so that snapshots cost O(1) per record). */
const SNAPSHOT_VIEW_FACTOR = 2;

/** The bytes of an entry's JSON in an append, or undefined when it has none (nothing the manager queues). */
function entryBytes(entry: SessionEntry): number | undefined {
  try {
    const json = JSON.stringify(entry);
    return json === undefined ? undefined : utf8Length(json) + 1;
  } catch {
    return undefined;
  }
}

/** An entry no append can hold: left out of the log, named to the caller of the next flush(). */
export interface RefusedEntry {
  /** Its place among the entries queued since the session opened. */
  position: number;
  type: string;
  /** The message's id, for a message entry. */
  id: string | undefined;
  /** Its JSON's bytes (undefined: it has no JSON). */
  bytes: number | undefined;
}

/** A batch on its way to the store: tried again as it is until the store answers. */
interface Batch {
  entries: SessionEntry[];
  /** How many of the link's queued entries it takes (some may be refused: see `refused`); the rest of `entries` is metadata, a snapshot. */
  queued: number;
  /** Queued entries it leaves out because no append can hold them. */
  refused: RefusedEntry[];
  /** The metadata it records (JSON), if any. */
  metadata: string | undefined;
  appendId: string;
  expected: number;
  logId: string | undefined;
}

export type AppendOutcome =
  | { kind: "appended"; queued: number; metadata: string | undefined; time: number; refused: RefusedEntry[] }
  | { kind: "conflict" };

export class SessionLog {
  /** The number of records the manager has read or written: the version it extends. */
  version = 0;
  logId: string | undefined;
  createdAt: number | undefined;
  updatedAt: number | undefined;
  /** The metadata last recorded in the log (JSON), if any. */
  loggedMetadata: string | undefined;
  private logged = new ContextReplay();
  private sinceSnapshot = 0;
  private inFlight: Batch | undefined;
  private readonly writer = randomBase64url(6);
  private batches = 0;
  /** Entries taken from the link's queue so far (a refused entry's position). */
  private taken = 0;

  constructor(
    readonly store: SessionStore,
    readonly id: string,
  ) {}

  /** Reads the log from its last snapshot. */
  async open(): Promise<void> {
    const info = await this.store.info(this.id);
    this.logged = new ContextReplay();
    this.version = 0;
    this.sinceSnapshot = 0;
    this.inFlight = undefined;
    if (!info) return;
    const from = info.snapshot ?? 0;
    this.version = from;
    this.logId = info.logId;
    this.createdAt = info.createdAt;
    await this.readFrom(from);
  }

  /** Reads what other writers appended after the version the manager has. */
  async catchUp(): Promise<void> {
    await this.readFrom(this.version);
  }

  private async readFrom(from: number): Promise<void> {
    for await (const record of this.store.scan(this.id, from)) {
      if (record.seq !== this.version) continue; // the log moved under the scan: the next append tells
      this.take(record.entry, record.seq);
      this.version = record.seq + 1;
      this.createdAt ??= record.time;
      this.updatedAt = record.time;
    }
  }

  private take(entry: SessionEntry, seq: number): void {
    this.logged.apply(entry, seq);
    if (entry.type === "snapshot") this.sinceSnapshot = 0;
    else this.sinceSnapshot++;
    if (entry.type === "metadata") this.loggedMetadata = JSON.stringify(entry.metadata);
  }

  /** The view of the log followed by entries not yet in it. */
  view(queued: readonly SessionEntry[]): ContextView {
    const replay = this.logged.clone();
    queued.forEach((entry, i) => replay.apply(entry, this.version + i));
    return replay.result();
  }

  /** Whether a batch is waiting to be tried again (it got no answer). */
  get pending(): boolean {
    return this.inFlight !== undefined;
  }

  /**
   * Appends `queued` (and the metadata, when it changed) as one batch, or tries again the batch
   * that got no answer. Conflict: nothing landed; catch up and form the batch again. Throws
   * ERR_CTXWIN_SESSION_LOST (nothing landed) and errors that are no answer (the batch is kept).
   */
  async append(queued: readonly SessionEntry[], metadata: string | undefined): Promise<AppendOutcome> {
    const batch = this.inFlight ?? this.form(queued, metadata);
    if (batch.entries.length === 0) {
      // Everything it took was refused: nothing to write.
      this.taken += batch.queued;
      return { kind: "appended", queued: batch.queued, metadata: undefined, time: this.updatedAt ?? Date.now(), refused: batch.refused };
    }
    this.inFlight = batch;
    let result;
    try {
      result = await this.store.append(this.id, batch.entries, {
        expectedVersion: batch.expected,
        appendId: batch.appendId,
        ...(batch.logId === undefined ? {} : { logId: batch.logId }),
      });
    } catch (error) {
      if (isConflict(error) || isLost(error)) this.inFlight = undefined; // an answer: nothing was written
      if (isConflict(error)) return { kind: "conflict" };
      throw error;
    }
    this.inFlight = undefined;
    batch.entries.forEach((entry, i) => this.take(entry, result.first + i));
    this.version = result.version;
    this.logId = result.logId ?? this.logId;
    this.createdAt ??= result.time;
    this.updatedAt = result.time;
    this.taken += batch.queued;
    return { kind: "appended", queued: batch.queued, metadata: batch.metadata, time: result.time, refused: batch.refused };
  }

  /**
   * The next batch: as many queued entries as one append holds (MAX_APPEND_BYTES of JSON; a long
   * queue, a load of large messages, goes in several appends), then the metadata and a snapshot
   * when they fit too (a snapshot that does not is left for a later batch). An entry no append can
   * hold is refused, never retried: it would stop every entry after it.
   */
  private form(queued: readonly SessionEntry[], metadata: string | undefined): Batch {
    const entries: SessionEntry[] = [];
    const refused: RefusedEntry[] = [];
    let bytes = 0;
    let taken = 0;
    for (const entry of queued) {
      const size = entryBytes(entry);
      if (size === undefined || size > MAX_APPEND_BYTES) {
        const id = typeof entry.id === "string" ? entry.id : undefined;
        refused.push({ position: this.taken + taken, type: entry.type, id, bytes: size });
        taken++;
        continue;
      }
      if (entries.length > 0 && bytes + size > MAX_APPEND_BYTES) break;
      entries.push(entry);
      bytes += size;
      taken++;
    }
    let logged: string | undefined;
    if (metadata !== undefined && taken === queued.length) {
      const size = utf8Length(metadata) + 32;
      if (size > MAX_APPEND_BYTES) {
        refused.push({ position: this.taken + taken, type: "metadata", id: undefined, bytes: size });
      } else if (bytes + size <= MAX_APPEND_BYTES) {
        entries.push({ type: "metadata", metadata: JSON.parse(metadata) as Record<string, unknown> });
        bytes += size;
        logged = metadata;
      }
    }
    const view = this.view(entries);
    if (
      entries.length > 0 &&
      this.sinceSnapshot + entries.length >= Math.max(SNAPSHOT_MIN_RECORDS, SNAPSHOT_VIEW_FACTOR * view.entries.length)
    ) {
      const replay = this.logged.clone();
      entries.forEach((entry, i) => replay.apply(entry, this.version + i));
      const snapshot = replay.snapshot();
      const size = entryBytes(snapshot);
      if (size !== undefined && bytes + size <= MAX_APPEND_BYTES) entries.push(snapshot);
    }
    return {
      entries,
      queued: taken,
      refused,
      metadata: logged,
      appendId: `${this.writer}.${(this.batches++).toString(36)}`,
      expected: this.version,
      logId: this.logId,
    };
  }
}

/** The error a flush() gives for entries it could not write (the first named, the others counted). */
export function refusedError(sessionId: string, refused: readonly RefusedEntry[]): Error {
  const first = refused[0] as RefusedEntry;
  const what = first.type === "message" && first.id !== undefined ? `the message ${first.id}` : `a ${first.type} entry`;
  const size =
    first.bytes === undefined ? "has no JSON form" : `is ${first.bytes} bytes of JSON, more than one append holds (${MAX_APPEND_BYTES})`;
  const more = refused.length > 1 ? ` (and ${refused.length - 1} more entries)` : "";
  return Object.assign(
    tooLargeError(
      `session ${JSON.stringify(sessionId)}: ${what} (entry ${first.position} of this manager's) ${size}: it was left out of the log${more}; the entries after it were appended`,
    ),
    { entries: refused.map((r) => ({ ...r })) },
  );
}
