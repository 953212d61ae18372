// MemorySessionStore: the SessionStore contract in one process's memory, for tests and for
// short-lived agents. Entries are copied through JSON on the way in and out, so it behaves as the
// file and Redis stores do (a caller's later edit never reaches the log).
import {
  checkAppendOptions,
  checkFrom,
  checkSessionId,
  conflictError,
  metadataOf,
  serializeEntries,
  type AppendOptions,
  type AppendResult,
  type SessionEntry,
  type SessionInfo,
  type SessionRecord,
  type SessionStore,
} from "./store.js";

interface Log {
  records: Array<{ seq: number; time: number; json: string }>;
  metadata: Record<string, unknown>;
}

export class MemorySessionStore implements SessionStore {
  private readonly logs = new Map<string, Log>();

  async append(id: string, entries: readonly SessionEntry[], options?: AppendOptions): Promise<AppendResult> {
    checkSessionId(id);
    const lines = serializeEntries(entries);
    const expected = checkAppendOptions(options);
    const log = this.logs.get(id) ?? { records: [], metadata: {} };
    const version = log.records.length;
    if (expected !== undefined && expected !== version) throw conflictError(id, expected, version);
    const time = Date.now();
    if (lines.length === 0) return { first: version, version, time };
    lines.forEach((json, i) => log.records.push({ seq: version + i, time, json }));
    for (const entry of entries) log.metadata = metadataOf(entry) ?? log.metadata;
    log.metadata = JSON.parse(JSON.stringify(log.metadata)) as Record<string, unknown>;
    this.logs.set(id, log);
    return { first: version, version: log.records.length, time };
  }

  async read(id: string, from?: number): Promise<SessionRecord[]> {
    checkSessionId(id);
    const start = checkFrom(from);
    const log = this.logs.get(id);
    if (!log) return [];
    return log.records.slice(start).map((r) => ({ seq: r.seq, time: r.time, entry: JSON.parse(r.json) as SessionEntry }));
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
    };
  }

  async close(): Promise<void> {}
}
