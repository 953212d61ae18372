// RedisSessionStore: the SessionStore contract on Redis >= 7, for agents that run as many workers.
//
// Per session: a list of record JSON (`<prefix>{<id>}:log`, position = seq) and a hash with the
// version, the times and the metadata (`<prefix>{<id>}:meta`); one sorted set indexes the
// sessions (`<prefix>index`, scored by expiry). Every write is one Lua script, so it is atomic:
// the version check, the records, the hash, the index and the expiry land together or not at all
// (LangChain's Redis history sets its expiry in a second command). Durability is the server's:
// with `appendonly yes` and `appendfsync always` an acknowledged append is on disk.
//
// `redis` (node-redis) is an optional peer dependency: pass a connected client, or client options
// (`{ socket: { path: "/run/redis/redis.sock" } }`, `{ url }`) and the store connects itself.
import { createHash } from "node:crypto";
import { describe, plainError, rangeError, requireString, typeError } from "../runtime/errors.js";
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

/** The one method the store needs of a client: node-redis's `sendCommand`. */
export interface RedisCommandClient {
  sendCommand(args: string[]): Promise<unknown>;
}

interface ClosableClient extends RedisCommandClient {
  connect(): Promise<unknown>;
  close?(): Promise<unknown>;
  quit?(): Promise<unknown>;
  on?(event: "error", listener: (error: Error) => void): unknown;
}

export interface RedisSessionStoreOptions {
  /** A connected node-redis client (the store does not close it). */
  client?: RedisCommandClient;
  /** Options for node-redis's `createClient` when no client is given (the store closes that one). */
  clientOptions?: Record<string, unknown>;
  /** Key prefix (default "ctxwin:session:"). */
  prefix?: string;
  /** Sessions expire this many seconds after their last append (set in the same script). */
  ttlSeconds?: number;
}

const APPEND = `
local version = tonumber(redis.call('HGET', KEYS[2], 'version') or '0')
if ARGV[1] ~= '' and tonumber(ARGV[1]) ~= version then return {0, version, version} end
local n = #ARGV - 4
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if n == 0 then return {1, version, version, now} end
local batch = {}
for i = 1, n do
  batch[#batch + 1] = '{"seq":' .. string.format('%d', version + i - 1) .. ',"time":' .. string.format('%d', now) .. ',"entry":' .. ARGV[i + 4] .. '}'
  if #batch == 500 then redis.call('RPUSH', KEYS[1], unpack(batch)); batch = {} end
end
if #batch > 0 then redis.call('RPUSH', KEYS[1], unpack(batch)) end
redis.call('HSET', KEYS[2], 'version', string.format('%d', version + n), 'updated', string.format('%d', now))
redis.call('HSETNX', KEYS[2], 'created', string.format('%d', now))
if ARGV[4] ~= '' then redis.call('HSET', KEYS[2], 'metadata', ARGV[4]) end
local ttl = tonumber(ARGV[2])
if ttl > 0 then
  redis.call('PEXPIRE', KEYS[1], ttl)
  redis.call('PEXPIRE', KEYS[2], ttl)
  redis.call('ZADD', KEYS[3], string.format('%d', now + ttl), ARGV[3])
else
  redis.call('ZADD', KEYS[3], '+inf', ARGV[3])
end
return {1, version + n, version, now}
`;

const DELETE = `
local existed = redis.call('DEL', KEYS[1], KEYS[2])
redis.call('ZREM', KEYS[3], ARGV[1])
return existed
`;

// Expired sessions leave the index here, lazily: their keys are already gone.
const LIST = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. string.format('%d', now))
return redis.call('ZRANGE', KEYS[1], 0, -1)
`;

const sha1 = (text: string) => createHash("sha1").update(text).digest("hex");
const SCRIPTS = { APPEND: { text: APPEND, sha: sha1(APPEND) }, DELETE: { text: DELETE, sha: sha1(DELETE) }, LIST: { text: LIST, sha: sha1(LIST) } };

export class RedisSessionStore implements SessionStore {
  readonly prefix: string;
  readonly ttlSeconds: number | undefined;
  private client: Promise<RedisCommandClient> | undefined;
  private readonly owned: boolean;
  private readonly clientOptions: Record<string, unknown> | undefined;

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
    if (options.ttlSeconds !== undefined && (typeof options.ttlSeconds !== "number" || !(options.ttlSeconds > 0) || !Number.isFinite(options.ttlSeconds))) {
      throw rangeError(`options.ttlSeconds must be a number > 0, got ${describe(options.ttlSeconds)}`);
    }
    this.ttlSeconds = options.ttlSeconds;
  }

  async append(id: string, entries: readonly SessionEntry[], options?: AppendOptions): Promise<AppendResult> {
    checkSessionId(id);
    const lines = serializeEntries(entries);
    const expected = checkAppendOptions(options);
    let metadata = "";
    for (const entry of entries) {
      const m = metadataOf(entry);
      if (m) metadata = JSON.stringify(m);
    }
    const ttl = this.ttlSeconds === undefined ? "0" : String(Math.ceil(this.ttlSeconds * 1000));
    const reply = await this.script(SCRIPTS.APPEND, [this.key(id, "log"), this.key(id, "meta"), this.indexKey()], [expected === undefined ? "" : String(expected), ttl, id, metadata, ...lines]);
    const [ok, version, first, time] = (reply as unknown[]).map(Number) as [number, number, number, number];
    if (ok !== 1) throw conflictError(id, expected ?? 0, version);
    return { first, version, time };
  }

  async read(id: string, from?: number): Promise<SessionRecord[]> {
    checkSessionId(id);
    const start = checkFrom(from);
    const client = await this.connected();
    const lines = (await client.sendCommand(["LRANGE", this.key(id, "log"), String(start), "-1"])) as string[];
    return lines.map((line, i) => {
      let record: SessionRecord;
      try {
        record = JSON.parse(String(line)) as SessionRecord;
      } catch (error) {
        throw corruptError(`${this.key(id, "log")}[${start + i}]: not a JSON record (${(error as Error).message})`);
      }
      if (record?.seq !== start + i) throw corruptError(`${this.key(id, "log")}[${start + i}]: not the session record with seq ${start + i}`);
      return record;
    });
  }

  async list(): Promise<string[]> {
    const ids = (await this.script(SCRIPTS.LIST, [this.indexKey()], [])) as unknown[];
    return ids.map(String);
  }

  async delete(id: string): Promise<boolean> {
    checkSessionId(id);
    const removed = await this.script(SCRIPTS.DELETE, [this.key(id, "log"), this.key(id, "meta"), this.indexKey()], [id]);
    return Number(removed) > 0;
  }

  async info(id: string): Promise<SessionInfo | undefined> {
    checkSessionId(id);
    const client = await this.connected();
    const [version, created, updated, metadata] = (await client.sendCommand(["HMGET", this.key(id, "meta"), "version", "created", "updated", "metadata"])) as Array<string | null>;
    if (version === null || version === undefined) return undefined;
    return {
      id,
      version: Number(version),
      createdAt: Number(created),
      updatedAt: Number(updated),
      metadata: metadata ? (JSON.parse(metadata) as Record<string, unknown>) : {},
    };
  }

  /** Closes the connection if the store opened it; a client passed in is left to its owner. */
  async close(): Promise<void> {
    if (!this.owned || this.client === undefined) return;
    const client = (await this.client.catch(() => undefined)) as ClosableClient | undefined;
    this.client = undefined;
    if (client) await (client.close?.() ?? client.quit?.());
  }

  private key(id: string, part: "log" | "meta"): string {
    // The hash tag keeps a session's two keys in one slot.
    return `${this.prefix}{${id}}:${part}`;
  }

  private indexKey(): string {
    return `${this.prefix}index`;
  }

  private connected(): Promise<RedisCommandClient> {
    this.client ??= this.connect();
    return this.client;
  }

  private async connect(): Promise<RedisCommandClient> {
    let createClient: (options?: Record<string, unknown>) => ClosableClient;
    try {
      ({ createClient } = (await import("redis")) as unknown as { createClient: typeof createClient });
    } catch (error) {
      this.client = undefined;
      throw plainError(`RedisSessionStore needs the "redis" package (an optional peer dependency): npm install redis (${(error as Error).message})`, "ERR_CTXWIN_REDIS_MISSING");
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
    return client;
  }

  /** EVALSHA, loading the script with EVAL the first time a server does not know it. */
  private async script(script: { text: string; sha: string }, keys: string[], args: string[]): Promise<unknown> {
    const client = await this.connected();
    try {
      return await client.sendCommand(["EVALSHA", script.sha, String(keys.length), ...keys, ...args]);
    } catch (error) {
      if (!String((error as Error).message).startsWith("NOSCRIPT")) throw error;
      return client.sendCommand(["EVAL", script.text, String(keys.length), ...keys, ...args]);
    }
  }
}
