// FileSessionStore, the default store: one JSONL file per session in a directory.
//
// One line per record, `{"seq":N,"time":T,"entry":{...}}`. An append takes the session's lock
// (proper-lockfile: an atomic mkdir beside the file, kept fresh while held and taken over when a
// crashed holder leaves it stale), checks the version, cuts off a torn last line left by a writer
// that died mid-write, writes all its lines with one O_APPEND write, and fsyncs before it
// resolves. Two processes therefore never interleave a line, and a reader, which takes no lock,
// ignores a last line without its newline (a write still under way, or a crash).
import { randomBytes } from "node:crypto";
import { mkdir, open, readFile, readdir, rm, stat, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import lockfile from "proper-lockfile";
import { describe, requireString, typeError } from "../runtime/errors.js";
import {
  checkAppendOptions,
  checkFrom,
  checkSessionId,
  conflictError,
  corruptError,
  metadataOf,
  serializeEntries,
  type AppendOptions,
  type AppendResult,
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
}

const SUFFIX = ".jsonl";
const NEWLINE = 0x0a;

const CHUNK = 64 * 1024;
const SEQ_PREFIX = /^\{"seq":(\d+),/;

export class FileSessionStore implements SessionStore {
  readonly directory: string;
  private readonly staleLockMs: number;
  private readonly lockTimeoutMs: number;
  private readonly fsync: boolean;
  private directoryReady: Promise<void> | undefined;

  constructor(options: FileSessionStoreOptions) {
    if (options === null || typeof options !== "object") throw typeError(`options must be an object, got ${describe(options)}`);
    this.directory = requireString(options.directory, "options.directory");
    this.staleLockMs = Math.max(2000, options.staleLockMs ?? 5000);
    this.lockTimeoutMs = options.lockTimeoutMs ?? 30000;
    this.fsync = options.fsync ?? true;
  }

  /** The file of session `id` (ids are percent-encoded into file names). */
  pathOf(id: string): string {
    return join(this.directory, encodeURIComponent(checkSessionId(id)) + SUFFIX);
  }

  async append(id: string, entries: readonly SessionEntry[], options?: AppendOptions): Promise<AppendResult> {
    const path = this.pathOf(id);
    const lines = serializeEntries(entries);
    const expected = checkAppendOptions(options);
    await this.ensureDirectory();
    return this.locked(path, async () => {
      let handle: FileHandle;
      let created = false;
      try {
        handle = await open(path, "r+");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
        if (lines.length === 0 || (expected !== undefined && expected !== 0)) {
          if (expected !== undefined && expected !== 0) throw conflictError(id, expected, 0);
          return { first: 0, version: 0, time: Date.now() };
        }
        handle = await open(path, "a+");
        created = true;
      }
      try {
        const count = await countWhole(handle, path);
        if (expected !== undefined && expected !== count) throw conflictError(id, expected, count);
        const time = Date.now();
        if (lines.length === 0) return { first: count, version: count, time };
        const text = lines.map((json, i) => `{"seq":${count + i},"time":${time},"entry":${json}}\n`).join("");
        const buffer = Buffer.from(text, "utf8");
        const size = (await handle.stat()).size;
        // One write at the end of the file (position = size, and the lock keeps it the end):
        // a loop only in case the kernel writes less than asked.
        for (let done = 0; done < buffer.length; ) {
          const { bytesWritten } = await handle.write(buffer, done, buffer.length - done, size + done);
          done += bytesWritten;
        }
        if (this.fsync) await handle.datasync();
        if (created && this.fsync) await syncDirectory(this.directory);
        return { first: count, version: count + lines.length, time };
      } finally {
        await handle.close();
      }
    });
  }

  async read(id: string, from?: number): Promise<SessionRecord[]> {
    const path = this.pathOf(id);
    const start = checkFrom(from);
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
    return parseLines(text, start, path);
  }

  async list(): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(this.directory);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
    const ids: string[] = [];
    for (const name of names) {
      if (!name.endsWith(SUFFIX)) continue;
      try {
        if ((await stat(join(this.directory, name))).size > 0) ids.push(decodeURIComponent(name.slice(0, -SUFFIX.length)));
      } catch {
        // deleted meanwhile
      }
    }
    return ids;
  }

  async delete(id: string): Promise<boolean> {
    const path = this.pathOf(id);
    await this.ensureDirectory();
    return this.locked(path, async () => {
      try {
        await rm(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
        throw error;
      }
      if (this.fsync) await syncDirectory(this.directory);
      return true;
    });
  }

  async info(id: string): Promise<SessionInfo | undefined> {
    const records = await this.read(id);
    if (records.length === 0) return undefined;
    let metadata: Record<string, unknown> = {};
    for (const r of records) metadata = metadataOf(r.entry) ?? metadata;
    return {
      id,
      version: records.length,
      createdAt: (records[0] as SessionRecord).time,
      updatedAt: (records[records.length - 1] as SessionRecord).time,
      metadata,
    };
  }

  async close(): Promise<void> {}

  private ensureDirectory(): Promise<void> {
    this.directoryReady ??= mkdir(this.directory, { recursive: true }).then(() => undefined);
    return this.directoryReady;
  }

  private async locked<T>(path: string, body: () => Promise<T>): Promise<T> {
    let compromised: Error | undefined;
    const release = await lockfile.lock(path, {
      realpath: false,
      stale: this.staleLockMs,
      retries: { retries: Math.ceil(this.lockTimeoutMs / 25), factor: 1.3, minTimeout: 1, maxTimeout: 25, randomize: true },
      onCompromised: (error) => {
        compromised = error;
      },
    });
    try {
      const result = await body();
      if (compromised) throw compromised;
      return result;
    } finally {
      await release().catch(() => undefined);
    }
  }
}

/**
 * The number of records in the file, read from the seq of its last whole line (under the lock;
 * the cost is the length of that line, not of the file). A torn last line (a writer died in the
 * middle of its write) is cut off here, so the next record starts on a line of its own.
 */
async function countWhole(handle: FileHandle, path: string): Promise<number> {
  const size = (await handle.stat()).size;
  // The last two newlines, scanning back from the end in chunks.
  const newlines: number[] = [];
  const buffer = Buffer.allocUnsafe(CHUNK);
  for (let end = size; end > 0 && newlines.length < 2; ) {
    const start = Math.max(0, end - CHUNK);
    const { bytesRead } = await handle.read(buffer, 0, end - start, start);
    for (let i = bytesRead - 1; i >= 0 && newlines.length < 2; i--) if (buffer[i] === NEWLINE) newlines.push(start + i);
    end = start;
  }
  const last = newlines[0];
  if (last === undefined) {
    if (size > 0) await handle.truncate(0); // only a torn line
    return 0;
  }
  if (last !== size - 1) await handle.truncate(last + 1);
  const lineStart = (newlines[1] ?? -1) + 1;
  const { bytesRead } = await handle.read(buffer, 0, Math.min(32, last - lineStart), lineStart);
  const match = SEQ_PREFIX.exec(buffer.toString("latin1", 0, bytesRead));
  if (!match) throw corruptError(`${path}: the last record does not start with its seq`);
  return Number(match[1]) + 1;
}

/** Parses a log's text; a last line without its newline is not a record yet. */
export function parseLines(text: string, from: number, where: string): SessionRecord[] {
  const records: SessionRecord[] = [];
  let line = 0;
  let at = 0;
  for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n", at)) {
    if (line >= from) {
      let record: SessionRecord;
      try {
        record = JSON.parse(text.slice(at, end)) as SessionRecord;
      } catch (error) {
        throw corruptError(`${where}:${line + 1}: not a JSON record (${(error as Error).message})`);
      }
      if (record === null || typeof record !== "object" || record.seq !== line || typeof record.time !== "number" || typeof record.entry?.type !== "string") {
        throw corruptError(`${where}:${line + 1}: not the session record with seq ${line}`);
      }
      records.push(record);
    }
    line++;
    at = end + 1;
  }
  return records;
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
