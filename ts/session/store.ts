// The SessionStore contract: an append-only log per session.
//
// A store keeps, per session id, an ordered list of records. Each record is an entry the caller
// appended (a plain JSON object with a string `type`), stamped by the store with its position
// (`seq`, 0-based, gapless) and a time. Nothing is ever rewritten: what a model no longer sees is
// recorded as a later entry (a boundary), so the whole history stays readable. The number of
// records is the session's version; an append may name the version it expects, and a stale
// writer is rejected with ERR_CTXWIN_SESSION_CONFLICT instead of writing over what it did not see.
//
// What makes an acknowledged append safe whatever a writer, the store or the network does:
//  - an append may carry an id: a retry whose first attempt landed (the reply was lost) changes
//    nothing and resolves with the first attempt's result;
//  - every log has an identity (`logId`), new each time a session's log is created: a writer that
//    names the log and version it extends is told (ERR_CTXWIN_SESSION_LOST) when the log vanished
//    (expired, deleted, lost by a server restarted without persistence), was replaced, or went back
//    to an earlier version, instead of silently starting over;
//  - every bound is checked up front with a code: id bytes, the size of an append, of a log, of
//    what read() returns at once (scan() streams any log in bounded memory).
import { describe, plainError, rangeError, typeError, type CtxwinError, type CtxwinRangeError } from "../runtime/errors.js";
import { utf8Length } from "../runtime/utf8.js";

/** What a caller appends: any JSON object with a string `type`. */
export interface SessionEntry {
  type: string;
  [key: string]: unknown;
}

/** An entry as stored: its position in the log and the time (ms since the epoch) it was appended. */
export interface SessionRecord<E extends SessionEntry = SessionEntry> {
  seq: number;
  time: number;
  entry: E;
}

export interface SessionInfo {
  id: string;
  /** The number of records: the session's version. */
  version: number;
  /** Time of the first and of the last append (ms since the epoch). */
  createdAt: number;
  updatedAt: number;
  /** The object of the last `{ type: "metadata", metadata }` entry, or `{}`. */
  metadata: Record<string, unknown>;
  /** The log's identity, drawn when its first record was written; a log created again gets another. */
  logId: string;
  /** The seq of the last `{ type: "snapshot" }` entry (undefined: none): a reader may start there. */
  snapshot: number | undefined;
}

export interface AppendOptions {
  /** Append only if the session has exactly this many records (0: only if it is new). */
  expectedVersion?: number;
  /**
   * The append's own id (1 to 128 bytes, the characters of a session id). A retry with the same id
   * whose first attempt landed writes nothing and resolves with the first attempt's result
   * (`alreadyApplied: true`). Always recognized when the retry names the same `expectedVersion`;
   * without it, when the first attempt is among the session's last IDEMPOTENCY_WINDOW appends.
   */
  appendId?: string;
  /** Append only to this log (SessionInfo.logId): ERR_CTXWIN_SESSION_LOST if it is gone or replaced. */
  logId?: string;
}

export interface AppendResult {
  /** The seq of the first appended record. */
  first: number;
  /** The session's version after the append. */
  version: number;
  /** The time stamped on the appended records (ms since the epoch; the store's clock). */
  time: number;
  /** The identity of the log appended to (undefined: an empty append to a session with no log). */
  logId: string | undefined;
  /** True when the append had landed before under its appendId (a retry): nothing was written now. */
  alreadyApplied: boolean;
}

/**
 * An append-only log per session. Every implementation passes test/ts/session/store-conformance.
 * An append that resolved is durable (as durable as the medium: fsync'd for files) and atomic:
 * either all its entries are in the log, contiguous and in order, or none is.
 */
export interface SessionStore {
  append(id: string, entries: readonly SessionEntry[], options?: AppendOptions): Promise<AppendResult>;
  /**
   * Records with seq >= `from` (default 0), in order. An unknown session reads as []. At most
   * MAX_READ_BYTES of log at once (ERR_CTXWIN_SESSION_TOO_LARGE beyond): scan() reads any size.
   */
  read(id: string, from?: number): Promise<SessionRecord[]>;
  /** The same records as read(), streamed: memory bounded by what the caller keeps. */
  scan(id: string, from?: number): AsyncIterable<SessionRecord>;
  /** The ids of the sessions that have at least one record. */
  list(): Promise<string[]>;
  /** Removes the session's log; true if there was one. */
  delete(id: string): Promise<boolean>;
  /** The session's version, times and metadata, or undefined for an unknown session. */
  info(id: string): Promise<SessionInfo | undefined>;
  /** Releases what the store holds (connections it opened, handles). */
  close(): Promise<void>;
}

// ---- bounds (docs/reliability.md lists them with their codes) ----

/** A session id: 1 to 256 bytes of UTF-8. */
export const MAX_SESSION_ID_BYTES = 256;
/** An append id: 1 to 128 bytes of UTF-8. */
export const MAX_APPEND_ID_BYTES = 128;
/** The JSON of one append's entries, together. */
export const MAX_APPEND_BYTES = 64 * 1024 * 1024;
/** What one read() returns at once (the log's bytes from `from`); scan() has no such bound. */
export const MAX_READ_BYTES = 128 * 1024 * 1024;
/** The default bound on a log's size (option maxLogBytes); appends beyond it are refused. */
export const DEFAULT_MAX_LOG_BYTES = 1024 * 1024 * 1024;
/** How many of a session's last appends a retry without expectedVersion is recognized among. */
export const IDEMPOTENCY_WINDOW = 1000;

export type SessionConflictError = CtxwinError & { sessionId: string; expectedVersion: number; actualVersion: number };

/** The error of an append whose expected version is not the session's. */
export function conflictError(id: string, expected: number, actual: number): SessionConflictError {
  return Object.assign(
    plainError(
      `session ${JSON.stringify(id)} is at version ${actual}, not ${expected}: another writer appended first; read from ${expected} and retry`,
      "ERR_CTXWIN_SESSION_CONFLICT",
    ),
    { sessionId: id, expectedVersion: expected, actualVersion: actual },
  );
}

export function isConflict(error: unknown): error is SessionConflictError {
  return error instanceof Error && (error as { code?: unknown }).code === "ERR_CTXWIN_SESSION_CONFLICT";
}

export type SessionLostError = CtxwinError & {
  sessionId: string;
  expectedVersion: number | undefined;
  actualVersion: number;
  expectedLog: string | undefined;
  actualLog: string | undefined;
};

/**
 * The error of an append to a log that is no longer the one its writer extended: gone (expired,
 * deleted, lost with a server restarted without persistence), replaced by another log, or back at
 * an earlier version than the writer saw (records it saw are gone). Nothing was written.
 */
export function lostError(
  id: string,
  facts: { expectedVersion?: number | undefined; actualVersion: number; expectedLog?: string | undefined; actualLog?: string | undefined },
): SessionLostError {
  const { expectedVersion, actualVersion, expectedLog, actualLog } = facts;
  let why: string;
  if (actualLog === undefined) why = "its log is gone (expired, deleted, or lost by the store)";
  else if (expectedLog !== undefined && expectedLog !== actualLog) why = `its log ${expectedLog} was replaced by another (${actualLog})`;
  else why = `its log is at version ${actualVersion}, behind the version ${expectedVersion} this writer saw: records it saw are gone`;
  return Object.assign(plainError(`session ${JSON.stringify(id)}: ${why}; nothing was appended`, "ERR_CTXWIN_SESSION_LOST"), {
    sessionId: id,
    expectedVersion,
    actualVersion,
    expectedLog,
    actualLog,
  });
}

export function isLost(error: unknown): error is SessionLostError {
  return error instanceof Error && (error as { code?: unknown }).code === "ERR_CTXWIN_SESSION_LOST";
}

/**
 * What an append finds, in the order every store checks it: a retry of an append that landed (the
 * caller gets that append's result), a log that is not the one the writer extended (LOST), a
 * stale version (CONFLICT); undefined: go ahead.
 */
export function checkAgainstLog(
  id: string,
  log: { version: number; logId: string | undefined },
  expected: number | undefined,
  expectedLog: string | undefined,
): SessionLostError | SessionConflictError | undefined {
  if (expectedLog !== undefined && log.logId !== expectedLog)
    return lostError(id, { expectedVersion: expected, actualVersion: log.version, expectedLog, actualLog: log.logId });
  if (expected !== undefined && expected > log.version)
    return lostError(id, { expectedVersion: expected, actualVersion: log.version, expectedLog, actualLog: log.logId });
  if (expected !== undefined && expected !== log.version) return conflictError(id, expected, log.version);
  return undefined;
}

export function tooLargeError(message: string): CtxwinRangeError {
  return rangeError(message, "ERR_CTXWIN_SESSION_TOO_LARGE");
}

export { utf8Length } from "../runtime/utf8.js";

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * The one rule for ids, in every store: a string of 1 to `maxBytes` bytes of UTF-8, well-formed
 * (no lone surrogate: it has no UTF-8 and would collide with U+FFFD), without control characters
 * (C0, DEL, C1). Any other character is allowed: stores encode ids into file names and keys.
 */
function checkId(id: unknown, name: string, maxBytes: number): string {
  if (typeof id !== "string") throw typeError(`${name} must be a string, got ${describe(id)}`);
  if (id.length === 0) throw rangeError(`${name} must not be empty`);
  if (LONE_SURROGATE.test(id)) throw rangeError(`${name} must be well-formed Unicode (it holds a lone surrogate), got ${describe(id)}`);
  if (CONTROL.test(id)) throw rangeError(`${name} must not hold control characters, got ${describe(id)}`);
  const bytes = utf8Length(id);
  if (bytes > maxBytes) throw rangeError(`${name} must be at most ${maxBytes} bytes in UTF-8, got ${bytes} bytes`);
  return id;
}

/** Session ids: 1 to 256 bytes of UTF-8, well-formed, no control characters. */
export function checkSessionId(id: unknown, name = "id"): string {
  return checkId(id, name, MAX_SESSION_ID_BYTES);
}

/** Serializes the entries first, so that a bad one fails the append before anything is written. */
export function serializeEntries(entries: unknown, name = "entries"): string[] {
  if (!Array.isArray(entries)) throw typeError(`${name} must be an array of entries, got ${describe(entries)}`);
  // Each entry writes at least 12 bytes ({"type":""}): a length past the bound is refused before one is read.
  if (entries.length * 12 > MAX_APPEND_BYTES)
    throw tooLargeError(`${name} hold more than an append may (${MAX_APPEND_BYTES} bytes of JSON): ${entries.length} entries`);
  let total = 0;
  // Index by index, not map(): a hole is an entry that is not an object, never a gap in the log.
  return Array.from({ length: entries.length }, (_, i) => {
    const entry: unknown = entries[i];
    if (entry === null || typeof entry !== "object" || Array.isArray(entry)) {
      throw typeError(`${name}[${i}] must be an object, got ${describe(entry)}`);
    }
    if (typeof (entry as { type?: unknown }).type !== "string") {
      throw typeError(`${name}[${i}].type must be a string, got ${describe((entry as { type?: unknown }).type)}`);
    }
    let json: string;
    try {
      json = JSON.stringify(entry);
    } catch (error) {
      if (error instanceof RangeError && /string length/i.test(error.message))
        throw tooLargeError(`${name}[${i}] is larger than an append may be (${MAX_APPEND_BYTES} bytes of JSON)`);
      throw typeError(`${name}[${i}] is not serializable as JSON: ${(error as Error).message}`);
    }
    total += utf8Length(json);
    if (total > MAX_APPEND_BYTES)
      throw tooLargeError(`${name} hold more than an append may (${MAX_APPEND_BYTES} bytes of JSON, at ${name}[${i}])`);
    return json;
  });
}

export function checkFrom(from: unknown): number {
  if (from === undefined) return 0;
  if (typeof from !== "number") throw typeError(`from must be a number, got ${describe(from)}`);
  if (!Number.isSafeInteger(from) || from < 0) throw rangeError(`from must be an integer >= 0, got ${from}`);
  return from;
}

export interface CheckedAppendOptions {
  expected: number | undefined;
  appendId: string | undefined;
  logId: string | undefined;
}

export function checkAppendOptions(options: AppendOptions | undefined): CheckedAppendOptions {
  if (options === undefined) return { expected: undefined, appendId: undefined, logId: undefined };
  if (options === null || typeof options !== "object") throw typeError(`options must be an object, got ${describe(options)}`);
  const expected = options.expectedVersion;
  if (expected !== undefined) {
    if (typeof expected !== "number") throw typeError(`options.expectedVersion must be a number, got ${describe(expected)}`);
    if (!Number.isSafeInteger(expected) || expected < 0)
      throw rangeError(`options.expectedVersion must be an integer >= 0, got ${expected}`);
  }
  const appendId = options.appendId === undefined ? undefined : checkId(options.appendId, "options.appendId", MAX_APPEND_ID_BYTES);
  const logId = options.logId === undefined ? undefined : checkId(options.logId, "options.logId", MAX_APPEND_ID_BYTES);
  return { expected, appendId, logId };
}

/** A store's maxLogBytes option: a whole number of bytes >= 1 KiB (default DEFAULT_MAX_LOG_BYTES). */
export function checkMaxLogBytes(value: unknown, name = "options.maxLogBytes"): number {
  if (value === undefined) return DEFAULT_MAX_LOG_BYTES;
  if (typeof value !== "number") throw typeError(`${name} must be a number, got ${describe(value)}`);
  if (!Number.isSafeInteger(value) || value < 1024) throw rangeError(`${name} must be a whole number of bytes >= 1024, got ${value}`);
  return value;
}

/** The metadata a log carries: the object of its last metadata entry. */
export function metadataOf(entry: SessionEntry): Record<string, unknown> | undefined {
  if (entry.type !== "metadata") return undefined;
  const metadata = entry.metadata;
  return metadata !== null && typeof metadata === "object" && !Array.isArray(metadata) ? (metadata as Record<string, unknown>) : undefined;
}

/** The entry type that marks a point a reader may start from (the whole state up to it). */
export const SNAPSHOT_TYPE = "snapshot";

export function corruptError(message: string, cause?: unknown): CtxwinError {
  return plainError(message, "ERR_CTXWIN_SESSION_CORRUPT", cause === undefined ? undefined : { cause });
}

/** A fresh log identity: 16 random characters, URL-safe. */
export function newLogId(): string {
  const bytes = new Uint8Array(12);
  globalThis.crypto.getRandomValues(bytes);
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replaceAll("+", "-").replaceAll("/", "_");
}

/**
 * read() over scan(): the records from `from`, refused with ERR_CTXWIN_SESSION_TOO_LARGE once
 * they pass MAX_READ_BYTES of log (`size` gives a record's bytes as the store holds it).
 */
export async function readAll(
  id: string,
  records: AsyncIterable<SessionRecord & { bytes: number }>,
  from: number,
): Promise<SessionRecord[]> {
  const out: SessionRecord[] = [];
  let bytes = 0;
  for await (const record of records) {
    bytes += record.bytes;
    if (bytes > MAX_READ_BYTES) {
      throw tooLargeError(
        `session ${JSON.stringify(id)}: the log from seq ${from} is more than read() returns at once (${MAX_READ_BYTES} bytes): iterate over store.scan(id, from) instead`,
      );
    }
    out.push({ seq: record.seq, time: record.time, entry: record.entry });
  }
  return out;
}

/** The records of a store's scan, without the sizes it keeps for read()'s bound. */
export async function* withoutSizes(records: AsyncIterable<SessionRecord & { bytes: number }>): AsyncGenerator<SessionRecord> {
  for await (const { seq, time, entry } of records) yield { seq, time, entry };
}
