// The SessionStore contract: an append-only log per session.
//
// A store keeps, per session id, an ordered list of records. Each record is an entry the caller
// appended (a plain JSON object with a string `type`), stamped by the store with its position
// (`seq`, 0-based, gapless) and a time. Nothing is ever rewritten: what a model no longer sees is
// recorded as a later entry (a boundary), so the whole history stays readable. The number of
// records is the session's version; an append may name the version it expects, and a stale
// writer is rejected with ERR_CTXWIN_SESSION_CONFLICT instead of writing over what it did not see.
import { describe, plainError, rangeError, typeError, type WithCode } from "../runtime/errors.js";

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
}

export interface AppendOptions {
  /** Append only if the session has exactly this many records (0: only if it is new). */
  expectedVersion?: number;
}

export interface AppendResult {
  /** The seq of the first appended record. */
  first: number;
  /** The session's version after the append. */
  version: number;
  /** The time stamped on the appended records (ms since the epoch; the store's clock). */
  time: number;
}

/**
 * An append-only log per session. Every implementation passes test/ts/session/store-conformance.
 * An append that resolved is durable (as durable as the medium: fsync'd for files) and atomic:
 * either all its entries are in the log, contiguous and in order, or none is.
 */
export interface SessionStore {
  append(id: string, entries: readonly SessionEntry[], options?: AppendOptions): Promise<AppendResult>;
  /** Records with seq >= `from` (default 0), in order. An unknown session reads as []. */
  read(id: string, from?: number): Promise<SessionRecord[]>;
  /** The ids of the sessions that have at least one record. */
  list(): Promise<string[]>;
  /** Removes the session's log; true if there was one. */
  delete(id: string): Promise<boolean>;
  /** The session's version, times and metadata, or undefined for an unknown session. */
  info(id: string): Promise<SessionInfo | undefined>;
  /** Releases what the store holds (connections it opened, handles). */
  close(): Promise<void>;
}

export type SessionConflictError = WithCode<Error> & { sessionId: string; expectedVersion: number; actualVersion: number };

/** The error of an append whose expected version is not the session's. */
export function conflictError(id: string, expected: number, actual: number): SessionConflictError {
  return Object.assign(
    plainError(`session ${JSON.stringify(id)} is at version ${actual}, not ${expected}: another writer appended first; read from ${expected} and retry`, "ERR_CTXWIN_SESSION_CONFLICT"),
    { sessionId: id, expectedVersion: expected, actualVersion: actual },
  );
}

export function isConflict(error: unknown): error is SessionConflictError {
  return error instanceof Error && (error as { code?: unknown }).code === "ERR_CTXWIN_SESSION_CONFLICT";
}

/** Session ids: 1 to 256 characters, no control characters (they name files and keys). */
export function checkSessionId(id: unknown, name = "id"): string {
  if (typeof id !== "string") throw typeError(`${name} must be a string, got ${describe(id)}`);
  // eslint-disable-next-line no-control-regex
  if (id.length === 0 || id.length > 256 || /[\u0000-\u001f\u007f]/.test(id)) {
    throw rangeError(`${name} must be 1 to 256 characters without control characters, got ${describe(id)}`);
  }
  return id;
}

/** Serializes the entries first, so that a bad one fails the append before anything is written. */
export function serializeEntries(entries: unknown, name = "entries"): string[] {
  if (!Array.isArray(entries)) throw typeError(`${name} must be an array of entries, got ${describe(entries)}`);
  return entries.map((entry, i) => {
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
      throw typeError(`${name}[${i}] is not serializable as JSON: ${(error as Error).message}`);
    }
    return json;
  });
}

export function checkFrom(from: unknown): number {
  if (from === undefined) return 0;
  if (typeof from !== "number") throw typeError(`from must be a number, got ${describe(from)}`);
  if (!Number.isInteger(from) || from < 0) throw rangeError(`from must be an integer >= 0, got ${from}`);
  return from;
}

export function checkAppendOptions(options: AppendOptions | undefined): number | undefined {
  if (options === undefined) return undefined;
  if (options === null || typeof options !== "object") throw typeError(`options must be an object, got ${describe(options)}`);
  const expected = options.expectedVersion;
  if (expected === undefined) return undefined;
  if (typeof expected !== "number") throw typeError(`options.expectedVersion must be a number, got ${describe(expected)}`);
  if (!Number.isInteger(expected) || expected < 0) throw rangeError(`options.expectedVersion must be an integer >= 0, got ${expected}`);
  return expected;
}

/** The metadata a log carries: the object of its last metadata entry. */
export function metadataOf(entry: SessionEntry): Record<string, unknown> | undefined {
  if (entry.type !== "metadata") return undefined;
  const metadata = entry.metadata;
  return metadata !== null && typeof metadata === "object" && !Array.isArray(metadata) ? (metadata as Record<string, unknown>) : undefined;
}

export function corruptError(message: string): WithCode<Error> {
  return plainError(message, "ERR_CTXWIN_SESSION_CORRUPT");
}
