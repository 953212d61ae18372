// RedisSessionStore against a real redis-server when things go wrong: a reply lost after the script
// ran (a proxy cuts the connection), the server killed and restarted with and without persistence,
// reconnectStrategy: false, an expired session under a live writer, a TTL out of range.
import { createClient } from "redis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { SessionStore } from "ctxwin";
import { RedisSessionStore } from "ctxwin/session";
import { startRedisServer, type RedisServer } from "../support/redis-server.js";
import { startReplyDroppingProxy, type ReplyDroppingProxy } from "../support/reply-dropping-proxy.js";

const message = (n: number) => ({ type: "message", id: `m${n}`, message: { role: "user", content: `hello ${n}` } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const opened: SessionStore[] = [];
const track = <S extends SessionStore>(store: S): S => {
  opened.push(store);
  return store;
};
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close().catch(() => undefined)));
});

/** An append that may meet a dropped connection: tried again (same id) until it resolves. */
async function appendRetrying(
  store: SessionStore,
  id: string,
  entries: Array<{ type: string }>,
  options: { appendId: string; expectedVersion?: number },
) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await store.append(id, entries, options);
    } catch (error) {
      if (attempt === 20 || (error as { code?: string }).code?.startsWith("ERR_CTXWIN_")) throw error;
      await sleep(50);
    }
  }
}

describe("a reply lost after the script ran", () => {
  let redis: RedisServer;
  let proxy: ReplyDroppingProxy;
  beforeAll(async () => {
    redis = await startRedisServer();
    proxy = await startReplyDroppingProxy(redis.socket);
  });
  afterAll(async () => {
    await proxy.close();
    await redis.stop();
  });

  it("the retry under the same appendId changes nothing and answers as the first attempt would have", async () => {
    const store = track(new RedisSessionStore({ clientOptions: { socket: { host: proxy.host, port: proxy.port } }, prefix: "lost:" }));
    await store.append("warm", [message(0)]); // loads the script: the next EVALSHA runs it
    const dropped = proxy.dropNextReply("EVALSHA");
    await expect(store.append("s", [message(0), message(1)], { appendId: "turn-1", expectedVersion: 0 })).rejects.toThrow();
    await dropped;
    expect(proxy.dropped).toBe(1);
    // The script ran: the records are there, though the writer was told nothing.
    const direct = track(new RedisSessionStore({ clientOptions: { socket: { path: redis.socket } }, prefix: "lost:" }));
    expect(await direct.read("s")).toHaveLength(2);
    const retry = await appendRetrying(store, "s", [message(0), message(1)], { appendId: "turn-1", expectedVersion: 0 });
    expect(retry).toMatchObject({ first: 0, version: 2, alreadyApplied: true });
    expect((await store.read("s")).map((r) => r.entry)).toEqual([message(0), message(1)]);
    // The same for a blind append (no expected version).
    const again = proxy.dropNextReply("EVALSHA");
    await expect(store.append("s", [message(2)], { appendId: "turn-2" })).rejects.toThrow();
    await again;
    expect(await appendRetrying(store, "s", [message(2)], { appendId: "turn-2" })).toMatchObject({ first: 2, alreadyApplied: true });
    expect((await store.read("s")).map((r) => r.entry)).toEqual([message(0), message(1), message(2)]);
  });
});

describe("the server killed and restarted", () => {
  it("with persistence (appendonly, fsync always): every acknowledged append survives; a store with reconnectStrategy: false connects again on next use", async () => {
    const redis = await startRedisServer();
    try {
      const store = track(new RedisSessionStore({ clientOptions: { socket: { path: redis.socket, reconnectStrategy: false } } }));
      for (let i = 0; i < 30; i++) await store.append("s", [message(i)], { appendId: `a${i}` });
      await redis.restart("SIGKILL");
      const after = await appendRetrying(store, "s", [message(30)], { appendId: "a30", expectedVersion: 30 });
      expect(after).toMatchObject({ first: 30, version: 31, alreadyApplied: false });
      expect((await store.read("s")).map((r) => r.entry)).toEqual(Array.from({ length: 31 }, (_, i) => message(i)));
      // Once more, and the next call needs no retry: the dropped client is replaced on next use.
      await redis.restart("SIGKILL");
      await sleep(100);
      expect(await store.append("s", [message(31)], { appendId: "a31" })).toMatchObject({ first: 31 });
    } finally {
      await redis.stop();
    }
  }, 30_000);

  it("without persistence: the store says so when it opens, requireDurable refuses, and a writer whose log vanished gets ERR_CTXWIN_SESSION_LOST", async () => {
    const redis = await startRedisServer({ persistence: "none" });
    try {
      const warnings: string[] = [];
      const store = track(
        new RedisSessionStore({ clientOptions: { socket: { path: redis.socket } }, logger: { warn: (m) => warnings.push(m) } }),
      );
      const first = await store.append("s", [message(0), message(1)]);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/cannot promise durability: appendonly no and no RDB save points/);
      await store.append("s", [message(2)]);
      expect(warnings).toHaveLength(1); // said once
      expect(await store.durability()).toMatchObject({ durable: false, appendonly: "no" });
      const strict = track(
        new RedisSessionStore({ clientOptions: { socket: { path: redis.socket } }, requireDurable: true, logger: { warn: () => {} } }),
      );
      await expect(strict.append("t", [message(0)])).rejects.toMatchObject({ code: "ERR_CTXWIN_SESSION_NOT_DURABLE" });
      expect(await strict.read("t")).toEqual([]);

      await redis.restart("SIGKILL");
      // A live writer names the version and log it extends: told, not reset to an empty log.
      const lost = { code: "ERR_CTXWIN_SESSION_LOST", actualVersion: 0, actualLog: undefined };
      await expect(appendRetrying(store, "s", [message(3)], { appendId: "x", expectedVersion: 3 })).rejects.toMatchObject(lost);
      await expect(store.append("s", [message(3)], { logId: first.logId! })).rejects.toMatchObject(lost);
      expect(await store.read("s")).toEqual([]);
    } finally {
      await redis.stop();
    }
  }, 30_000);
});

describe("expiry and its bounds", () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis.stop();
  });

  it("a writer whose session expired under it gets ERR_CTXWIN_SESSION_LOST, not an empty log to write on", async () => {
    const store = track(new RedisSessionStore({ clientOptions: { socket: { path: redis.socket } }, prefix: "exp:", ttlSeconds: 0.3 }));
    const first = await store.append("s", [message(0), message(1)], { appendId: "one" });
    await sleep(450);
    await expect(store.append("s", [message(2)], { expectedVersion: 2, logId: first.logId! })).rejects.toMatchObject({
      code: "ERR_CTXWIN_SESSION_LOST",
      actualVersion: 0,
    });
    // The applied ids expired with the log: a late retry is not taken for done.
    await expect(
      store.append("s", [message(0), message(1)], { appendId: "one", expectedVersion: 0, logId: first.logId! }),
    ).rejects.toMatchObject({ code: "ERR_CTXWIN_SESSION_LOST" });
    expect(await store.read("s")).toEqual([]);
    expect(await store.info("s")).toBeUndefined();
  });

  it("ttlSeconds must be between 1 ms and 1e9 s; the script checks it again before its first write", async () => {
    const socket = { path: redis.socket };
    for (const bad of [1e15, 1e9 + 1, 0, -1, 0.0001, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => new RedisSessionStore({ clientOptions: { socket }, ttlSeconds: bad }), String(bad)).toThrow(
        expect.objectContaining({ name: "RangeError", code: "ERR_CTXWIN_OUT_OF_RANGE" }),
      );
    }
    expect(() => new RedisSessionStore({ clientOptions: { socket }, ttlSeconds: "60" as never })).toThrow(
      expect.objectContaining({ code: "ERR_CTXWIN_INVALID_ARGUMENT" }),
    );
    expect(new RedisSessionStore({ clientOptions: { socket }, ttlSeconds: 1e9 }).ttlSeconds).toBe(1e9);
    // A store whose bound was got around: the script refuses the append whole, before any write.
    const store = track(new RedisSessionStore({ clientOptions: { socket }, prefix: "ttl15:", ttlSeconds: 60 }));
    Object.assign(store, { ttlSeconds: 1e15 });
    for (let i = 0; i < 3; i++) await expect(store.append("s", [message(0)])).rejects.toThrow(/ttl must be a whole number of ms/);
    const client = createClient({ socket: { path: redis.socket, tls: false } });
    await client.connect();
    try {
      expect(await client.sendCommand(["LLEN", "ttl15:{s}:log"])).toBe(0);
      expect(await client.sendCommand(["EXISTS", "ttl15:{s}:meta"])).toBe(0);
    } finally {
      await client.close();
    }
  });

  it("says the server is durable when the append-only file is on", async () => {
    const store = track(new RedisSessionStore({ clientOptions: { socket: { path: redis.socket } } }));
    expect(await store.durability()).toMatchObject({ durable: true, appendonly: "yes", appendfsync: "always" });
  });
});
