// MemorySessionStore: the SessionStore contract in one process's memory, for tests and for
// short-lived agents. Entries are copied through JSON on the way in and out, so it behaves as the
// file and Redis stores do (a caller's later edit never reaches the log).
import {
  SNAPSHOT_TYPE,
  checkAgainstLog,
  checkAppendOptions,
  checkFrom,
  checkMaxLogBytes,
  checkSessionId,
  metadataOf,
  newLogId,
  readAll,
  serializeEntries,
  tooLargeError,
  utf8Length,
  withoutSizes,
  type AppendOptions,
  type AppendResult,
  type SessionEntry,
  type SessionInfo,
  type SessionRecord,
  type SessionStore,
} from "./store.js";

export interface MemorySessionStoreOptions {
  /** Appends that would take a log past this many bytes of JSON are refused (default 1 GiB). */
  maxLogBytes?: number;
}

interface Log {
  logId: string;
  records: Array<{ seq: number; time: number; json: string }>;
  metadata: Record<string, unknown>;
  snapshot: number | undefined;
  bytes: number;
  /** Every append id this log applied, with its result: a retry is answered from here. */
  applied: Map<string, { first: number; version: number; time: number }>;
}

export class MemorySessionStore implements SessionStore {
  private readonly logs = new Map<string, Log>();
  private readonly maxLogBytes: number;

  constructor(options: MemorySessionStoreOptions = {}) {
    this.maxLogBytes = checkMaxLogBytes(options?.maxLogBytes);
  }

  async append(id: string, entries: readonly SessionEntry[], options?: AppendOptions): Promise<AppendResult> {
    checkSessionId(id);
    const lines = serializeEntries(entries);
    const { expected, appendId, logId } = checkAppendOptions(options);
    const existing = this.logs.get(id);
    const done = appendId === undefined ? undefined : existing?.applied.get(appendId);
    if (existing && done) return { ...done, logId: existing.logId, alreadyApplied: true };
    const refusal = checkAgainstLog(id, { version: existing?.records.length ?? 0, logId: existing?.logId }, expected, logId);
    if (refusal) throw refusal;
    const time = Date.now();
    const version = existing?.records.length ?? 0;
    if (lines.length === 0) return { first: version, version, time, logId: existing?.logId, alreadyApplied: false };
    const bytes = lines.reduce((sum, json) => sum + utf8Length(json), 0);
    if ((existing?.bytes ?? 0) + bytes > this.maxLogBytes)
      throw tooLargeError(
        `session ${JSON.stringify(id)}: the log would pass maxLogBytes (${this.maxLogBytes}); start a new session (e.g. from an export)`,
      );
    const log: Log = existing ?? { logId: newLogId(), records: [], metadata: {}, snapshot: undefined, bytes: 0, applied: new Map() };
    lines.forEach((json, i) => log.records.push({ seq: version + i, time, json }));
    entries.forEach((entry, i) => {
      log.metadata = metadataOf(entry) ?? log.metadata;
      if (entry.type === SNAPSHOT_TYPE) log.snapshot = version + i;
    });
    log.metadata = JSON.parse(JSON.stringify(log.metadata)) as Record<string, unknown>;
    log.bytes += bytes;
    const result = { first: version, version: log.records.length, time };
    if (appendId !== undefined) log.applied.set(appendId, result);
    this.logs.set(id, log);
    return { ...result, logId: log.logId, alreadyApplied: false };
  }

  async read(id: string, from?: number): Promise<SessionRecord[]> {
    checkSessionId(id);
    const start = checkFrom(from);
    return readAll(id, this.records(id, start), start);
  }

  scan(id: string, from?: number): AsyncIterable<SessionRecord> {
    checkSessionId(id);
    const start = checkFrom(from);
    return withoutSizes(this.records(id, start));
  }

  private async *records(id: string, from: number): AsyncGenerator<SessionRecord & { bytes: number }> {
    const log = this.logs.get(id);
    if (!log) return;
    // The records up to the version of the moment the scan starts (later appends are not in it).
    const end = log.records.length;
    for (let i = from; i < end; i++) {
      const r = log.records[i] as { seq: number; time: number; json: string };
      yield { seq: r.seq, time: r.time, entry: JSON.parse(r.json) as SessionEntry, bytes: r.json.length };
    }
  }

  async list(): Promise<string[]> {
    return [...this.logs.keys()];
  }

  async delete(id: string): Promise<boolean> {
    checkSessionId(id);
    return this.logs.delete(id);
  }

  async info(id: string): Promise<SessionInfo | undefined> {
    checkSessionId(id);
    const log = this.logs.get(id);
    if (!log) return undefined;
    return {
      id,
      version: log.records.length,
      createdAt: log.records[0]?.time ?? 0,
      updatedAt: log.records[log.records.length - 1]?.time ?? 0,
      metadata: JSON.parse(JSON.stringify(log.metadata)) as Record<string, unknown>,
      logId: log.logId,
      snapshot: log.snapshot,
    };
  }

  async close(): Promise<void> {}
}
