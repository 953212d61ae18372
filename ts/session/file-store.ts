// FileSessionStore, the default store: one JSONL file per session in a directory.
//
// Each append is one line written with one O_APPEND write (the format and the rule that readers
// and writers apply are in file-log.ts). An append takes the session's lock (proper-lockfile: an
// atomic mkdir beside the file, kept fresh while held, taken over once stale), reads the state at
// the end of the file, writes its line, fsyncs, and then checks by the same rule that its line was
// accepted before it resolves. The lock keeps writers from racing in the usual case; the rule
// keeps the log whole when it fails: a writer that stalled past the lock's stale time while
// another went on (a SIGSTOP, a long GC pause) can still write, but its late line extends a
// version that another line already extended, so no reader accepts it and the stalled writer,
// checking, does not acknowledge it (the append is tried again, or is a conflict).
//
// Files are opened with O_NOFOLLOW and must be regular files: a session file that is a symbolic
// link is refused (ERR_CTXWIN_SESSION_UNSAFE_PATH) rather than followed out of the directory.
import { createHash, randomBytes } from "node:crypto";
import { constants, type Stats } from "node:fs";
import { lstat, mkdir, open, readdir, rm, type FileHandle } from "node:fs/promises";
import { basename, join } from "node:path";
import { describe, plainError, requireString, typeError, type WithCode } from "../runtime/errors.js";
import { backwardLines, forwardLines } from "./file-lines.js";
import { takeLock } from "./file-lock.js";
import { io, ioError, ioRecords, systemCodeOf } from "./io-error.js";
import { Acceptance, MAX_LINE_BYTES, acceptedBatches, encodeWrite, parseLine } from "./file-log.js";
import { findApplied, findCheckpoint, firstAccepted, legacyLogId, metadataAt, pointersOf, readTail } from "./file-tail.js";
import {
  SNAPSHOT_TYPE,
  checkAgainstLog,
  checkAppendOptions,
  checkFrom,
  checkMaxLogBytes,
  checkSessionId,
  conflictError,
  corruptError,
  lostError,
  metadataOf,
  newLogId,
  readAll,
  serializeEntries,
  tooLargeError,
  withoutSizes,
  type AppendOptions,
  type AppendResult,
  type CheckedAppendOptions,
  type SessionEntry,
  type SessionInfo,
  type SessionRecord,
  type SessionStore,
} from "./store.js";

export interface FileSessionStoreOptions {
  /** The directory of the session files (created when missing). */
  directory: string;
  /** A lock older than this (ms, >= 2000, default 5000) belongs to a dead writer and is taken over. */
  staleLockMs?: number;
  /** How long an append waits for the lock before it fails (ms, default 30000). */
  lockTimeoutMs?: number;
  /** fsync each append before it resolves (default true). Turn off only for throwaway data. */
  fsync?: boolean;
  /** Appends that would take a file past this many bytes are refused (default 1 GiB). */
  maxLogBytes?: number;
}

const SUFFIX = ".jsonl";
const LOCK_SUFFIX = ".lock";
/** Longer ids are named by their hash (the id is then kept in each line): a name has 255 bytes at most. */
const NAME_MAX = 255;
const HASHED = "#";
const { O_RDONLY, O_RDWR, O_APPEND, O_CREAT, O_EXCL } = constants;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
// A FIFO named like a session file would block open() for reading: never wait for one.
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
/** How many times a blind append is written again after losing its version to a late writer. */
const ATTEMPTS = 8;

type Outcome = AppendResult | "lost-race";

function unsafePath(path: string, what: string): WithCode<Error> {
  return plainError(`${path} ${what}: session files must be regular files in the store's directory`, "ERR_CTXWIN_SESSION_UNSAFE_PATH");
}

/** Opens a session file, never through a symbolic link; undefined when it does not exist and `create` is false. */
async function openLog(
  path: string,
  mode: "read" | "append",
  create: boolean,
): Promise<{ handle: FileHandle; created: boolean; stats: Stats } | undefined> {
  const flags = (mode === "read" ? O_RDONLY : O_RDWR | O_APPEND) | O_NOFOLLOW | O_NONBLOCK;
  for (;;) {
    let handle: FileHandle | undefined;
    let created = false;
    try {
      handle = await open(path, flags);
    } catch (error) {
      if (systemCodeOf(error) === "ELOOP") throw unsafePath(path, "is a symbolic link");
      if (systemCodeOf(error) !== "ENOENT") throw error;
      if (!create) return undefined;
      try {
        handle = await open(path, flags | O_CREAT | O_EXCL, 0o644);
        created = true;
      } catch (again) {
        if (systemCodeOf(again) === "EEXIST") continue; // another writer created it, or a dangling link: look again
        throw again;
      }
    }
    const stats = await handle.stat();
    if (!stats.isFile() || (O_NOFOLLOW === 0 && (await lstat(path)).isSymbolicLink())) {
      await handle.close();
      throw unsafePath(path, stats.isFile() ? "is a symbolic link" : "is not a regular file");
    }
    return { handle, created, stats };
  }
}

export class FileSessionStore implements SessionStore {
  readonly directory: string;
  private readonly staleLockMs: number;
  private readonly lockTimeoutMs: number;
  private readonly fsync: boolean;
  private readonly maxLogBytes: number;
  private directoryReady: Promise<void> | undefined;

  constructor(options: FileSessionStoreOptions) {
    if (options === null || typeof options !== "object") throw typeError(`options must be an object, got ${describe(options)}`);
    this.directory = requireString(options.directory, "options.directory");
    this.staleLockMs = Math.max(2000, options.staleLockMs ?? 5000);
    this.lockTimeoutMs = options.lockTimeoutMs ?? 30000;
    this.fsync = options.fsync ?? true;
    this.maxLogBytes = checkMaxLogBytes(options.maxLogBytes);
  }

  /**
   * The file of session `id`: its percent-encoded id, or, when that name would pass 255 bytes with
   * the lock's suffix, `#` and the id's SHA-256 (base64url), the id then written in every line.
   */
  pathOf(id: string): string {
    checkSessionId(id);
    const encoded = encodeURIComponent(id);
    if (encoded.length + SUFFIX.length + LOCK_SUFFIX.length <= NAME_MAX) return join(this.directory, encoded + SUFFIX);
    return join(this.directory, HASHED + createHash("sha256").update(id).digest("base64url") + SUFFIX);
  }

  append(id: string, entries: readonly SessionEntry[], options?: AppendOptions): Promise<AppendResult> {
    return io(() => this.appendAll(id, entries, options));
  }

  private async appendAll(id: string, entries: readonly SessionEntry[], options?: AppendOptions): Promise<AppendResult> {
    const path = this.pathOf(id);
    const lines = serializeEntries(entries);
    const checked = checkAppendOptions(options);
    const appendId = checked.appendId ?? randomBytes(12).toString("base64url");
    const snapshotAt = entries.findLastIndex((e) => e.type === SNAPSHOT_TYPE);
    const hasMetadata = entries.some((e) => metadataOf(e) !== undefined);
    await this.ensureDirectory();
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.locked(path, () => this.appendOnce(id, path, lines, checked, appendId, { snapshotAt, hasMetadata }));
      if (outcome !== "lost-race") return outcome;
      if (attempt === ATTEMPTS)
        throw plainError(
          `${path}: the append lost its version to another writer ${ATTEMPTS} times; nothing was acknowledged`,
          "ERR_CTXWIN_SESSION_BUSY",
        );
    }
  }

  private async appendOnce(
    id: string,
    path: string,
    lines: string[],
    checked: CheckedAppendOptions,
    appendId: string,
    shape: { snapshotAt: number; hasMetadata: boolean },
  ): Promise<Outcome> {
    const { expected } = checked;
    const mayCreate = lines.length > 0 && checked.logId === undefined && (expected === undefined || expected === 0);
    const opened = await openLog(path, "append", mayCreate);
    if (!opened) {
      const refusal = checkAgainstLog(id, { version: 0, logId: undefined }, expected, checked.logId);
      if (refusal) throw refusal;
      return { first: 0, version: 0, time: Date.now(), logId: undefined, alreadyApplied: false };
    }
    const { handle, created, stats } = opened;
    try {
      const size = stats.size;
      const tail = await readTail(handle, size, path, true);
      const last = tail.last;
      const hashed = basename(path).startsWith(HASHED);
      if (hashed && last?.session !== undefined && last.session !== id)
        throw corruptError(`${path} holds session ${JSON.stringify(last.session)}, not ${JSON.stringify(id)}`);
      const logId = last === undefined ? undefined : (last.log ?? (await legacyLogId(handle, size, path)));
      if (checked.appendId !== undefined) {
        const done = await findApplied(handle, size, tail, expected, checked.appendId, path);
        if (done) return { first: done.seq, version: done.version, time: done.time, logId, alreadyApplied: true };
      }
      const refusal = checkAgainstLog(id, { version: tail.next, logId }, expected, checked.logId);
      if (refusal) throw refusal;
      const time = Date.now();
      if (lines.length === 0) return { first: tail.next, version: tail.next, time, logId, alreadyApplied: false };
      const pointers = await pointersOf(handle, tail, size, path);
      const here = { offset: tail.offset, version: tail.next };
      const log = logId ?? newLogId();
      const text = encodeWrite(
        {
          seq: tail.next,
          after: tail.offset,
          log,
          append: appendId,
          time,
          metadata: shape.hasMetadata ? here : pointers.metadata,
          snapshot: shape.snapshotAt >= 0 ? { ...here, seq: tail.next + shape.snapshotAt } : pointers.snapshot,
          session: hashed ? id : undefined,
        },
        lines,
      );
      const buffer = Buffer.from(text, "utf8");
      if (size + buffer.length > this.maxLogBytes) {
        throw tooLargeError(
          `${path}: the log would pass maxLogBytes (${this.maxLogBytes} bytes); start a new session (e.g. from an export)`,
        );
      }
      // One write; O_APPEND puts it at the end of the file, whoever else writes.
      const { bytesWritten } = await handle.write(buffer, 0, buffer.length, null);
      if (bytesWritten !== buffer.length)
        throw ioError(`${path}: the disk took ${bytesWritten} of ${buffer.length} bytes`, undefined, "ENOSPC");
      if (this.fsync) await handle.datasync();
      if (created && this.fsync) await syncDirectory(this.directory);
      const mine: AppendResult = { first: tail.next, version: tail.next + lines.length, time, logId: log, alreadyApplied: false };
      return await this.verify(id, path, handle, stats, here, buffer, mine, appendId, expected);
    } finally {
      await handle.close();
    }
  }

  /** Whether the line just written won its version (the first line for it after the checkpoint). */
  private async verify(
    id: string,
    path: string,
    handle: FileHandle,
    stats: Stats,
    here: { offset: number; version: number },
    written: Buffer,
    mine: AppendResult,
    appendId: string,
    expected: number | undefined,
  ): Promise<Outcome> {
    let won = mine;
    if (!(await firstLineIsOurs(handle, here, written, path))) {
      const size = (await handle.stat()).size;
      const winner = await firstAccepted(handle, here, size, path);
      if (winner === undefined) throw lostError(id, { expectedVersion: expected, actualVersion: here.version, actualLog: undefined });
      if (winner.append !== appendId) {
        if (expected === undefined) return "lost-race";
        const now = await readTail(handle, size, path, false);
        throw conflictError(id, expected, now.next);
      }
      won = { first: winner.seq, version: winner.version, time: winner.time, logId: winner.log, alreadyApplied: false };
    }
    // The line counts only if the file is still the session's (not deleted or replaced meanwhile).
    const onDisk = await lstat(path).catch(() => undefined);
    if (!onDisk || onDisk.ino !== stats.ino || onDisk.dev !== stats.dev)
      throw lostError(id, { expectedVersion: expected, actualVersion: won.first, actualLog: undefined });
    return won;
  }

  async read(id: string, from?: number): Promise<SessionRecord[]> {
    const path = this.pathOf(id);
    const start = checkFrom(from);
    return io(() => readAll(id, this.records(path, start), start));
  }

  scan(id: string, from?: number): AsyncIterable<SessionRecord> {
    const path = this.pathOf(id);
    const start = checkFrom(from);
    return ioRecords(withoutSizes(this.records(path, start)));
  }

  /** The accepted records from seq `from`, as of the file's size when the scan starts. */
  private async *records(path: string, from: number): AsyncGenerator<SessionRecord & { bytes: number }> {
    const opened = await openLog(path, "read", false);
    if (!opened) return;
    const { handle } = opened;
    try {
      const size = opened.stats.size;
      const start = from === 0 ? { offset: 0, version: 0 } : await findCheckpoint(handle, size, from, path, false);
      for await (const batch of acceptedBatches(handle, new Acceptance(start), size, {
        where: path,
        includeUnterminated: false,
        lineNumbers: start.offset === 0,
        known: start.known,
      })) {
        let bytes = batch.bytes;
        for (let k = 0; k < batch.entries.length; k++) {
          if (batch.seq + k < from) continue;
          yield { seq: batch.seq + k, time: batch.time, entry: batch.entries[k] as SessionEntry, bytes };
          bytes = 0;
        }
      }
    } finally {
      await handle.close();
    }
  }

  list(): Promise<string[]> {
    return io(() => this.listIds());
  }

  private async listIds(): Promise<string[]> {
    let names;
    try {
      names = await readdir(this.directory, { withFileTypes: true });
    } catch (error) {
      if (systemCodeOf(error) === "ENOENT") return [];
      throw error;
    }
    const ids: string[] = [];
    for (const dirent of names) {
      if (!dirent.isFile() || !dirent.name.endsWith(SUFFIX)) continue;
      const id = await this.idOfFile(dirent.name).catch(() => undefined);
      if (id !== undefined) ids.push(id);
    }
    return ids;
  }

  /** The session a file in the directory holds, if it is one's file and not empty. */
  private async idOfFile(name: string): Promise<string | undefined> {
    const path = join(this.directory, name);
    const opened = await openLog(path, "read", false);
    if (!opened) return undefined;
    try {
      const size = opened.stats.size;
      if (size === 0) return undefined;
      let id: string | undefined;
      if (name.startsWith(HASHED)) {
        for await (const line of backwardLines(opened.handle, size, MAX_LINE_BYTES, path)) {
          id = parseLine(line.bytes)?.session;
          if (id !== undefined) break;
        }
      } else {
        id = decodeURIComponent(name.slice(0, -SUFFIX.length));
      }
      // Only the file the id names (another spelling of the same id is not its file).
      return id !== undefined && this.pathOf(id) === path ? id : undefined;
    } finally {
      await opened.handle.close();
    }
  }

  async delete(id: string): Promise<boolean> {
    const path = this.pathOf(id);
    return io(() => this.deleteFile(path));
  }

  private async deleteFile(path: string): Promise<boolean> {
    await this.ensureDirectory();
    return this.locked(path, async () => {
      try {
        if (!(await lstat(path)).isFile()) throw unsafePath(path, "is not a regular file");
      } catch (error) {
        if (systemCodeOf(error) === "ENOENT") return false;
        throw error;
      }
      await rm(path);
      if (this.fsync) await syncDirectory(this.directory);
      return true;
    });
  }

  async info(id: string): Promise<SessionInfo | undefined> {
    const path = this.pathOf(id);
    return io(() => this.infoOf(id, path));
  }

  private async infoOf(id: string, path: string): Promise<SessionInfo | undefined> {
    const opened = await openLog(path, "read", false);
    if (!opened) return undefined;
    const { handle } = opened;
    try {
      const size = opened.stats.size;
      const tail = await readTail(handle, size, path, false);
      const last = tail.last;
      if (!last) return undefined;
      const first = await firstAccepted(handle, { offset: 0, version: 0 }, size, path);
      const pointers = await pointersOf(handle, tail, size, path);
      return {
        id,
        version: tail.next,
        createdAt: first?.time ?? last.time,
        updatedAt: last.time,
        metadata: await metadataAt(handle, pointers.metadata, size, path),
        logId: last.log ?? `legacy-${first?.time ?? 0}`,
        snapshot: pointers.snapshot?.seq,
      };
    } finally {
      await handle.close();
    }
  }

  async close(): Promise<void> {}

  private ensureDirectory(): Promise<void> {
    this.directoryReady ??= mkdir(this.directory, { recursive: true }).then(() => undefined);
    return this.directoryReady;
  }

  /**
   * Runs `body` holding the session's lock. A lock lost while held (ECOMPROMISED: this process
   * stalled past the stale time and another writer took the lock) is not an error by itself:
   * the append checks whether its line was accepted, which is what decides.
   */
  private async locked<T>(path: string, body: () => Promise<T>): Promise<T> {
    const release = await takeLock(path, { staleLockMs: this.staleLockMs, lockTimeoutMs: this.lockTimeoutMs });
    try {
      return await body();
    } finally {
      await release().catch(() => undefined);
    }
  }
}

/**
 * The usual case, without parsing: the first line after the checkpoint is the one just written
 * (byte for byte), so no line came between and it won its version.
 */
async function firstLineIsOurs(handle: FileHandle, here: { offset: number }, written: Buffer, path: string): Promise<boolean> {
  const line = written.subarray(1, written.length - 1);
  // Up to its end, wherever the file ends now (the read stops there).
  for await (const candidate of forwardLines(handle, here.offset, here.offset + written.length + 1, MAX_LINE_BYTES, path)) {
    if (candidate.bytes.length === 0 && candidate.terminated) continue;
    return candidate.terminated && candidate.bytes.equals(line);
  }
  return false;
}

async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, "r");
  try {
    await handle.sync();
  } catch {
    // Some file systems refuse fsync on a directory; the file's own fsync still holds.
  } finally {
    await handle.close();
  }
}

/** A fresh id for a session (URL-safe, 22 characters). */
export function newSessionId(): string {
  return randomBytes(16).toString("base64url");
}
