// RedisSessionStore: the SessionStore contract on Redis >= 7, for agents that run as many workers.
//
// Per session: a list of record JSON (`<prefix>{<id>}:log`, position = seq), a hash with the
// version, the times, the log's identity, its size, its last metadata and snapshot
// (`<prefix>{<id>}:meta`), and a hash of the append ids it applied (`<prefix>{<id>}:applied`),
// all with the session's expiry; one sorted set indexes the sessions (`<prefix>index`, scored by
// expiry). Every write is one Lua script (redis-scripts.ts) that checks everything before it
// writes, so it lands whole or not at all, and a retry whose first attempt landed (the reply was
// lost: a dropped connection, a restarted server) finds its append id and changes nothing.
//
// Durability is the server's. When the store first connects it asks the server how it persists
// and says so through the logger when it cannot keep what it acknowledges across a restart
// (`requireDurable: true` refuses to append instead). A store that opened its own client
// connects again on next use after the connection dropped, whatever the client's reconnect
// strategy. `redis` (node-redis) is an optional peer dependency.
import { describe, plainError, rangeError, requireString, typeError } from "../runtime/errors.js";
import { consoleLogger, type Logger } from "../runtime/logger.js";
import { MAX_TTL_MS, SCRIPTS, type Script } from "./redis-scripts.js";
import {
  SNAPSHOT_TYPE,
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
  type SessionEntry,
  type SessionInfo,
  type SessionRecord,
  type SessionStore,
} from "./store.js";

/** The one method the store needs of a client: node-redis's `sendCommand`. */
export interface RedisCommandClient {
  sendCommand(args: string[]): Promise<unknown>;
}

interface ClosableClient extends RedisCommandClient {
  connect(): Promise<unknown>;
  close?(): Promise<unknown>;
  quit?(): Promise<unknown>;
  on?(event: "error", listener: (error: Error) => void): unknown;
  readonly isOpen?: boolean;
}

export interface RedisSessionStoreOptions {
  /** A connected node-redis client (the store does not close it). */
  client?: RedisCommandClient;
  /** Options for node-redis's `createClient` when no client is given (the store closes that one). */
  clientOptions?: Record<string, unknown>;
  /** Key prefix (default "ctxwin:session:"). */
  prefix?: string;
  /** Sessions expire this many seconds after their last append (0.001 to 1e9; set in the same script). */
  ttlSeconds?: number;
  /** Appends that would take a log past this many bytes are refused (default 1 GiB). */
  maxLogBytes?: number;
  /** Refuse to append (ERR_CTXWIN_SESSION_NOT_DURABLE) to a server that keeps nothing across a restart. */
  requireDurable?: boolean;
  /** Where the store says what a caller should know (a server without persistence). */
  logger?: Logger;
}

/** What the server promises about acknowledged appends, as its configuration says. */
export interface RedisDurability {
  /** Appends survive a restart of the server (the append-only file is on). */
  durable: boolean;
  /** Why not, or what to know ("unknown" when the server does not tell its configuration). */
  reason: string;
  appendonly: string | undefined;
  appendfsync: string | undefined;
  save: string | undefined;
}

/** Records per LRANGE while scanning. */
const PAGE = 1000;

export class RedisSessionStore implements SessionStore {
  readonly prefix: string;
  readonly ttlSeconds: number | undefined;
  private client: Promise<RedisCommandClient> | undefined;
  private current: ClosableClient | undefined;
  private readonly owned: boolean;
  private readonly clientOptions: Record<string, unknown> | undefined;
  private readonly maxLogBytes: number;
  private readonly requireDurable: boolean;
  private readonly logger: Logger;
  private durabilityChecked: Promise<RedisDurability> | undefined;

  constructor(options: RedisSessionStoreOptions) {
    if (options === null || typeof options !== "object") throw typeError(`options must be an object, got ${describe(options)}`);
    if (options.client !== undefined) {
      if (options.client === null || typeof (options.client as { sendCommand?: unknown }).sendCommand !== "function") {
        throw typeError(`options.client must be a node-redis client (with sendCommand), got ${describe(options.client)}`);
      }
      this.client = Promise.resolve(options.client);
    } else if (options.clientOptions === undefined || options.clientOptions === null || typeof options.clientOptions !== "object") {
      throw typeError(`options.client or options.clientOptions is required, got ${describe(options.clientOptions)}`);
    }
    this.owned = options.client === undefined;
    this.clientOptions = options.clientOptions;
    this.prefix = options.prefix === undefined ? "ctxwin:session:" : requireString(options.prefix, "options.prefix");
    const ttl = options.ttlSeconds;
    if (ttl !== undefined) {
      if (typeof ttl !== "number") throw typeError(`options.ttlSeconds must be a number, got ${describe(ttl)}`);
      if (!(ttl >= 0.001 && ttl <= MAX_TTL_MS / 1000))
        throw rangeError(`options.ttlSeconds must be between 0.001 and ${MAX_TTL_MS / 1000} seconds, got ${ttl}`);
    }
    this.ttlSeconds = ttl;
    this.maxLogBytes = checkMaxLogBytes(options.maxLogBytes);
    this.requireDurable = options.requireDurable === true;
    this.logger = options.logger ?? consoleLogger;
  }

  async append(id: string, entries: readonly SessionEntry[], options?: AppendOptions): Promise<AppendResult> {
    checkSessionId(id);
    const lines = serializeEntries(entries);
    const { expected, appendId, logId } = checkAppendOptions(options);
    let metadata = "";
    for (const entry of entries) {
      const m = metadataOf(entry);
      if (m) metadata = JSON.stringify(m);
    }
    const snapshotAt = entries.findLastIndex((e) => e.type === SNAPSHOT_TYPE);
    const durability = await this.checkDurability();
    if (this.requireDurable && !durability.durable) {
      throw plainError(
        `RedisSessionStore: the server cannot keep acknowledged appends across a restart (${durability.reason}); nothing was appended`,
        "ERR_CTXWIN_SESSION_NOT_DURABLE",
      );
    }
    const ttl = this.ttlSeconds === undefined ? "0" : String(Math.ceil(this.ttlSeconds * 1000));
    const args = [
      expected === undefined ? "" : String(expected),
      ttl,
      id,
      metadata,
      appendId ?? "",
      logId ?? "",
      newLogId(),
      String(this.maxLogBytes),
      String(snapshotAt),
      ...lines,
    ];
    const reply = (await this.script(SCRIPTS.APPEND, this.keys(id), args)) as unknown[];
    const log = (value: unknown) => (value === "" || value === undefined ? undefined : String(value));
    switch (Number(reply[0])) {
      case 1:
        return { first: Number(reply[2]), version: Number(reply[1]), time: Number(reply[3]), logId: log(reply[4]), alreadyApplied: false };
      case 2: {
        const [first, version, time] = String(reply[1]).split(" ").map(Number) as [number, number, number];
        return { first, version, time, logId: log(reply[2]), alreadyApplied: true };
      }
      case 0:
        throw conflictError(id, expected ?? 0, Number(reply[1]));
      case 3:
        throw lostError(id, { expectedVersion: expected, actualVersion: Number(reply[1]), expectedLog: logId, actualLog: log(reply[2]) });
      default:
        throw tooLargeError(
          `session ${JSON.stringify(id)}: the log would pass maxLogBytes (${this.maxLogBytes} bytes); start a new session (e.g. from an export)`,
        );
    }
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

  /** The records from `from` up to the version of the moment the scan starts, a page at a time. */
  private async *records(id: string, from: number): AsyncGenerator<SessionRecord & { bytes: number }> {
    const client = await this.connected();
    const key = this.key(id, "log");
    const version = Number((await client.sendCommand(["HGET", this.key(id, "meta"), "version"])) ?? 0);
    for (let start = from; start < version; start += PAGE) {
      const lines = (await client.sendCommand(["LRANGE", key, String(start), String(Math.min(start + PAGE, version) - 1)])) as unknown[];
      if (lines.length === 0) return; // expired or deleted meanwhile
      for (let i = 0; i < lines.length; i++) {
        const text = String(lines[i]);
        let record: SessionRecord;
        try {
          record = JSON.parse(text) as SessionRecord;
        } catch (error) {
          throw corruptError(`${key}[${start + i}]: not a JSON record (${(error as Error).message})`);
        }
        if (
          record === null ||
          typeof record !== "object" ||
          record.seq !== start + i ||
          typeof record.time !== "number" ||
          typeof record.entry?.type !== "string"
        ) {
          throw corruptError(`${key}[${start + i}]: not the session record with seq ${start + i}`);
        }
        yield { seq: record.seq, time: record.time, entry: record.entry, bytes: text.length };
      }
    }
  }

  async list(): Promise<string[]> {
    const ids = (await this.script(SCRIPTS.LIST, [this.indexKey()], [])) as unknown[];
    return ids.map(String);
  }

  async delete(id: string): Promise<boolean> {
    checkSessionId(id);
    const removed = await this.script(SCRIPTS.DELETE, this.keys(id), [id]);
    return Number(removed) > 0;
  }

  async info(id: string): Promise<SessionInfo | undefined> {
    checkSessionId(id);
    const client = await this.connected();
    const [version, created, updated, metadata, log, snapshot] = (await client.sendCommand([
      "HMGET",
      this.key(id, "meta"),
      "version",
      "created",
      "updated",
      "metadata",
      "log",
      "snapshot",
    ])) as Array<string | null>;
    if (version === null || version === undefined) return undefined;
    let parsed: Record<string, unknown> = {};
    if (metadata) {
      try {
        parsed = JSON.parse(metadata) as Record<string, unknown>;
      } catch (error) {
        throw corruptError(`${this.key(id, "meta")}: metadata is not JSON (${(error as Error).message})`);
      }
    }
    return {
      id,
      version: Number(version),
      createdAt: Number(created),
      updatedAt: Number(updated),
      metadata: parsed,
      logId: log ?? `legacy-${created ?? 0}`,
      snapshot: snapshot === null || snapshot === undefined ? undefined : Number(snapshot),
    };
  }

  /**
   * How the server persists what it acknowledges (CONFIG GET appendonly, appendfsync, save). The
   * store asks once when it first connects and warns through its logger when the answer is not
   * durable; call it again to ask anew.
   */
  async durability(): Promise<RedisDurability> {
    const client = await this.connected();
    const config = async (name: string): Promise<string | undefined> => {
      const reply = (await client.sendCommand(["CONFIG", "GET", name])) as unknown;
      if (Array.isArray(reply)) return reply.length >= 2 ? String(reply[1]) : undefined;
      if (reply && typeof reply === "object") return String((reply as Record<string, unknown>)[name] ?? "");
      return undefined;
    };
    let appendonly: string | undefined;
    let appendfsync: string | undefined;
    let save: string | undefined;
    try {
      [appendonly, appendfsync, save] = [await config("appendonly"), await config("appendfsync"), await config("save")];
    } catch (error) {
      return {
        durable: false,
        reason: `unknown: the server does not tell its configuration (${(error as Error).message})`,
        appendonly,
        appendfsync,
        save,
      };
    }
    if (appendonly === "yes") {
      const reason =
        appendfsync === "always"
          ? "appendonly yes, appendfsync always"
          : `appendonly yes, appendfsync ${appendfsync}: a crash of the machine (not of the server) can lose the last second`;
      return { durable: true, reason, appendonly, appendfsync, save };
    }
    const reason = save
      ? `appendonly no: only RDB snapshots (save ${save}); appends since the last one are lost when the server stops`
      : "appendonly no and no RDB save points: the server keeps nothing across a restart";
    return { durable: false, reason, appendonly, appendfsync, save };
  }

  /** Closes the connection if the store opened it; a client passed in is left to its owner. */
  async close(): Promise<void> {
    if (!this.owned || this.client === undefined) return;
    const client = (await this.client.catch(() => undefined)) as ClosableClient | undefined;
    this.client = undefined;
    this.current = undefined;
    if (client?.isOpen !== false) await (client?.close?.() ?? client?.quit?.());
  }

  private checkDurability(): Promise<RedisDurability> {
    this.durabilityChecked ??= this.durability().then(
      (report) => {
        if (!report.durable)
          this.logger.warn(
            `ctxwin: RedisSessionStore cannot promise durability: ${report.reason}. Turn on appendonly (appendfsync always) to keep every acknowledged append; writers that lose their log get ERR_CTXWIN_SESSION_LOST.`,
          );
        return report;
      },
      (error: unknown) => {
        this.durabilityChecked = undefined; // not connected: ask again next time
        throw error;
      },
    );
    return this.durabilityChecked;
  }

  private keys(id: string): string[] {
    return [this.key(id, "log"), this.key(id, "meta"), this.indexKey(), this.key(id, "applied")];
  }

  private key(id: string, part: "log" | "meta" | "applied"): string {
    // The hash tag keeps a session's keys in one slot.
    return `${this.prefix}{${id}}:${part}`;
  }

  private indexKey(): string {
    return `${this.prefix}index`;
  }

  private connected(): Promise<RedisCommandClient> {
    // A client of ours whose connection dropped for good (reconnectStrategy: false, a restarted
    // server): connect again now rather than failing every call from here on.
    if (this.owned && this.current?.isOpen === false) {
      this.client = undefined;
      this.current = undefined;
    }
    this.client ??= this.connect();
    return this.client;
  }

  private async connect(): Promise<RedisCommandClient> {
    let createClient: (options?: Record<string, unknown>) => ClosableClient;
    try {
      ({ createClient } = (await import("redis")) as unknown as { createClient: typeof createClient });
    } catch (error) {
      this.client = undefined;
      throw plainError(
        `RedisSessionStore needs the "redis" package (an optional peer dependency): npm install redis (${(error as Error).message})`,
        "ERR_CTXWIN_REDIS_MISSING",
      );
    }
    const client = createClient(this.clientOptions);
    // Without a listener an 'error' event (a dropped connection) would end the process.
    client.on?.("error", () => {});
    try {
      await client.connect();
    } catch (error) {
      this.client = undefined;
      throw error;
    }
    this.current = client;
    return client;
  }

  /** EVALSHA, loading the script with EVAL the first time a server does not know it. */
  private async script(script: Script, keys: string[], args: string[]): Promise<unknown> {
    const client = await this.connected();
    try {
      return await client.sendCommand(["EVALSHA", script.sha, String(keys.length), ...keys, ...args]);
    } catch (error) {
      if (!String((error as Error).message).startsWith("NOSCRIPT")) throw error;
      return client.sendCommand(["EVAL", script.text, String(keys.length), ...keys, ...args]);
    }
  }
}
