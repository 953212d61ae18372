// One contract, every SessionStore: the same tests run against the memory, file and Redis stores
// (hono's router tests are the model). A new store joins with one line in STORES.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FileSessionStore, MemorySessionStore, type SessionStore } from "ctxwin";
import { RedisSessionStore, type SessionRecord } from "ctxwin/session";
import { IDEMPOTENCY_WINDOW, isConflict, isLost } from "../../../ts/session/store.js";
import { startRedisServer, type RedisServer } from "../support/redis-server.js";

let redis: RedisServer;
const directories: string[] = [];
const opened: SessionStore[] = [];
let prefixes = 0;

beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
  await redis.stop();
  for (const d of directories) rmSync(d, { recursive: true, force: true });
});

function track<S extends SessionStore>(store: S): S {
  opened.push(store);
  return store;
}

interface StoreOptions {
  maxLogBytes?: number;
}

/** Each factory gives a fresh, empty store. */
const STORES: Array<[string, (options?: StoreOptions) => SessionStore]> = [
  ["MemorySessionStore", (options = {}) => new MemorySessionStore(options)],
  [
    "FileSessionStore",
    (options = {}) => {
      const directory = mkdtempSync(join(tmpdir(), "ctxwin-store-"));
      directories.push(directory);
      return track(new FileSessionStore({ directory, ...options }));
    },
  ],
  [
    "RedisSessionStore",
    (options = {}) =>
      track(new RedisSessionStore({ clientOptions: { socket: { path: redis.socket } }, prefix: `test${prefixes++}:`, ...options })),
  ],
];

const collect = async (records: AsyncIterable<SessionRecord>) => {
  const out: SessionRecord[] = [];
  for await (const r of records) out.push(r);
  return out;
};

const message = (n: number) => ({ type: "message", id: `m${n}`, message: { role: "user", content: `hello ${n}` } });

describe.each(STORES)("%s conforms to SessionStore", (_name, make) => {
  it("appends records with gapless seqs and reads them back in order", async () => {
    const store = make();
    expect(await store.append("s1", [message(0), message(1)])).toMatchObject({ first: 0, version: 2 });
    expect(await store.append("s1", [message(2)])).toMatchObject({ first: 2, version: 3 });
    const records = await store.read("s1");
    const third = await store.append("s1", [message(3)]);
    expect((await store.read("s1", 3))[0]!.time).toBe(third.time);
    expect(records.map((r) => r.seq)).toEqual([0, 1, 2]);
    expect(records.map((r) => r.entry)).toEqual([message(0), message(1), message(2)]);
    for (const r of records) expect(r.time).toBeGreaterThan(1_600_000_000_000);
  });

  it("reads from a position", async () => {
    const store = make();
    await store.append("s", [0, 1, 2, 3, 4].map(message));
    expect((await store.read("s", 3)).map((r) => r.seq)).toEqual([3, 4]);
    expect(await store.read("s", 5)).toEqual([]);
    expect(await store.read("s", 99)).toEqual([]);
  });

  it("reads an unknown session as empty and has no info for it", async () => {
    const store = make();
    expect(await store.read("nobody")).toEqual([]);
    expect(await store.info("nobody")).toBeUndefined();
    expect(await store.delete("nobody")).toBe(false);
  });

  it("rejects a stale writer with ERR_CTXWIN_SESSION_CONFLICT and appends at the expected version", async () => {
    const store = make();
    await store.append("s", [message(0)], { expectedVersion: 0 });
    const stale = store.append("s", [message(9)], { expectedVersion: 0 });
    await expect(stale).rejects.toMatchObject({ code: "ERR_CTXWIN_SESSION_CONFLICT", expectedVersion: 0, actualVersion: 1 });
    await stale.catch((error: unknown) => expect(isConflict(error)).toBe(true));
    expect(await store.append("s", [message(1)], { expectedVersion: 1 })).toMatchObject({ first: 1, version: 2 });
    // A version the log never reached is not a race: the log the writer saw is gone.
    await expect(store.append("new", [message(0)], { expectedVersion: 3 })).rejects.toMatchObject({
      code: "ERR_CTXWIN_SESSION_LOST",
      actualVersion: 0,
    });
    expect((await store.read("s")).map((r) => r.entry)).toEqual([message(0), message(1)]);
    expect(await store.read("new")).toEqual([]);
  });

  it("keeps the session's version, times and last metadata", async () => {
    const store = make();
    await store.append("s", [{ type: "metadata", metadata: { agent: "a1" } }, message(0)]);
    await store.append("s", [message(1), { type: "metadata", metadata: { agent: "a2", n: 2 } }]);
    const info = await store.info("s");
    expect(info).toMatchObject({ id: "s", version: 4, metadata: { agent: "a2", n: 2 } });
    expect(info!.updatedAt).toBeGreaterThanOrEqual(info!.createdAt);
    const records = await store.read("s");
    expect(info!.createdAt).toBe(records[0]!.time);
    expect(info!.updatedAt).toBe(records[3]!.time);
  });

  it("lists and deletes sessions", async () => {
    const store = make();
    await store.append("a", [message(0)]);
    await store.append("b/with:odd chars{}", [message(0)]);
    expect((await store.list()).sort()).toEqual(["a", "b/with:odd chars{}"]);
    expect(await store.delete("a")).toBe(true);
    expect(await store.list()).toEqual(["b/with:odd chars{}"]);
    expect(await store.read("a")).toEqual([]);
    expect((await store.append("a", [message(5)])).first).toBe(0);
  });

  it("an empty append writes nothing and creates no session", async () => {
    const store = make();
    expect(await store.append("s", [])).toMatchObject({ first: 0, version: 0 });
    expect(await store.list()).toEqual([]);
  });

  it("copies entries: a later edit by the caller never reaches the log", async () => {
    const store = make();
    const entry = message(0);
    await store.append("s", [entry]);
    entry.message.content = "edited";
    const [record] = await store.read("s");
    expect(record!.entry).toEqual(message(0));
    record!.entry.type = "changed";
    expect((await store.read("s"))[0]!.entry.type).toBe("message");
  });

  it("rejects bad input with coded errors and writes nothing", async () => {
    const store = make();
    const cyclic: Record<string, unknown> = { type: "x" };
    cyclic.self = cyclic;
    await expect(store.append("", [message(0)])).rejects.toMatchObject({ name: "RangeError", code: "ERR_CTXWIN_OUT_OF_RANGE" });
    await expect(store.append(42 as unknown as string, [message(0)])).rejects.toMatchObject({
      name: "TypeError",
      code: "ERR_CTXWIN_INVALID_ARGUMENT",
    });
    await expect(store.append("s", [message(0), { kind: "no type" } as never])).rejects.toThrow(/entries\[1\]\.type must be a string/);
    await expect(store.append("s", [message(0), cyclic as never])).rejects.toThrow(/entries\[1\] is not serializable/);
    await expect(store.append("s", "nope" as never)).rejects.toMatchObject({ code: "ERR_CTXWIN_INVALID_ARGUMENT" });
    await expect(store.append("s", [message(0)], { expectedVersion: -1 })).rejects.toMatchObject({ code: "ERR_CTXWIN_OUT_OF_RANGE" });
    await expect(store.read("s", 1.5)).rejects.toMatchObject({ code: "ERR_CTXWIN_OUT_OF_RANGE" });
    expect(await store.read("s")).toEqual([]);
  });

  it("keeps concurrent appends from one process whole and ordered per caller", async () => {
    const store = make();
    await Promise.all(
      [0, 1, 2, 3].map(async (w) => {
        for (let i = 0; i < 25; i++) await store.append("s", [{ type: "message", writer: w, i }]);
      }),
    );
    const records = await store.read("s");
    expect(records.map((r) => r.seq)).toEqual(records.map((_, i) => i));
    for (let w = 0; w < 4; w++) {
      expect(records.filter((r) => r.entry.writer === w).map((r) => r.entry.i)).toEqual(Array.from({ length: 25 }, (_, i) => i));
    }
  });

  it("round-trips unicode, large and nested entries exactly", async () => {
    const store = make();
    const entry = {
      type: "message",
      message: {
        role: "assistant",
        content: [{ type: "text", text: '😀 é \u2028 "quoted"\n' + "x".repeat(100_000) }],
        n: [1, 2.5, null, true],
      },
    };
    await store.append("s", [entry]);
    expect((await store.read("s"))[0]!.entry).toEqual(entry);
  });

  it("a retried append (same appendId) whose first attempt landed changes nothing and answers as the first did", async () => {
    const store = make();
    const first = await store.append("s", [message(0), message(1)], { appendId: "a-0", expectedVersion: 0 });
    expect(first).toMatchObject({ first: 0, version: 2, alreadyApplied: false });
    // The reply was lost; others appended meanwhile; the retry names the same id and version.
    await store.append("s", [message(2)]);
    for (let i = 0; i < 3; i++) {
      expect(await store.append("s", [message(0), message(1)], { appendId: "a-0", expectedVersion: 0 })).toEqual({
        ...first,
        alreadyApplied: true,
      });
    }
    // Without expectedVersion: recognized among the last IDEMPOTENCY_WINDOW appends.
    const blind = await store.append("s", [message(3)], { appendId: "b-3" });
    for (let i = 0; i < 40; i++) await store.append("s", [{ type: "filler", i }], { appendId: `f-${i}` });
    expect(await store.append("s", [message(3)], { appendId: "b-3" })).toEqual({ ...blind, alreadyApplied: true });
    expect(await store.append("s", [{ type: "filler", i: 39 }], { appendId: "f-39" })).toMatchObject({ alreadyApplied: true });
    const records = await store.read("s");
    expect(records).toHaveLength(44);
    expect(records.filter((r) => r.entry.id === "m3")).toHaveLength(1);
    // An id that did not land is appended; the same id in another session is another append.
    expect(await store.append("s", [message(4)], { appendId: "new", expectedVersion: 44 })).toMatchObject({
      first: 44,
      alreadyApplied: false,
    });
    expect(await store.append("other", [message(0)], { appendId: "a-0" })).toMatchObject({ first: 0, alreadyApplied: false });
    expect(IDEMPOTENCY_WINDOW).toBeGreaterThanOrEqual(1000);
  });

  it("a retry whose first attempt did not land is a conflict if another writer took its version", async () => {
    const store = make();
    await store.append("s", [message(0)], { appendId: "other-writer", expectedVersion: 0 });
    await expect(store.append("s", [message(9)], { appendId: "mine", expectedVersion: 0 })).rejects.toMatchObject({
      code: "ERR_CTXWIN_SESSION_CONFLICT",
      actualVersion: 1,
    });
    expect(await store.read("s")).toHaveLength(1);
  });

  it("names its log: a writer whose log is gone, replaced or behind gets ERR_CTXWIN_SESSION_LOST and nothing is written", async () => {
    const store = make();
    const created = await store.append("s", [message(0), message(1)]);
    expect(created.logId).toMatch(/^[\w-]{8,}$/);
    expect((await store.info("s"))?.logId).toBe(created.logId);
    expect(await store.append("s", [message(2)], { logId: created.logId, expectedVersion: 2 })).toMatchObject({
      first: 2,
      logId: created.logId,
    });
    // Deleted (or expired) and created again by another writer: another log.
    await store.delete("s");
    const again = await store.append("s", [message(0)]);
    expect(again.logId).not.toBe(created.logId);
    const lost = store.append("s", [message(3)], { logId: created.logId, expectedVersion: 3 });
    await expect(lost).rejects.toMatchObject({ code: "ERR_CTXWIN_SESSION_LOST", expectedLog: created.logId, actualLog: again.logId });
    await lost.catch((error: unknown) => expect(isLost(error) && !isConflict(error)).toBe(true));
    // Behind the version the writer saw (records it saw are gone), same log or not named.
    await expect(store.append("s", [message(3)], { expectedVersion: 3 })).rejects.toMatchObject({
      code: "ERR_CTXWIN_SESSION_LOST",
      expectedVersion: 3,
      actualVersion: 1,
    });
    // Gone altogether.
    await store.delete("s");
    await expect(store.append("s", [message(3)], { logId: again.logId })).rejects.toMatchObject({
      code: "ERR_CTXWIN_SESSION_LOST",
      actualLog: undefined,
    });
    expect(await store.read("s")).toEqual([]);
    expect(await store.list()).toEqual([]);
  });

  it("ids: 1 to 256 bytes of UTF-8, well-formed, without control characters, the same rule everywhere", async () => {
    const store = make();
    const ok = [
      "a",
      "x".repeat(256),
      "😀".repeat(64),
      "é".repeat(128),
      "/".repeat(256),
      "%".repeat(100),
      "tenant-\ufffd",
      ".",
      "..",
      "#hash",
      "~tilde",
      "a b/c:d{e}",
    ];
    for (const id of ok) {
      expect(await store.append(id, [message(0)]), id).toMatchObject({ first: 0, version: 1 });
      expect(
        (await store.read(id)).map((r) => r.entry),
        id,
      ).toEqual([message(0)]);
    }
    expect((await store.list()).sort()).toEqual([...ok].sort());
    const bad: Array<[unknown, string]> = [
      ["", "ERR_CTXWIN_OUT_OF_RANGE"],
      ["x".repeat(257), "ERR_CTXWIN_OUT_OF_RANGE"],
      ["😀".repeat(64) + "a", "ERR_CTXWIN_OUT_OF_RANGE"],
      ["é".repeat(129), "ERR_CTXWIN_OUT_OF_RANGE"],
      ["tenant-\ud800", "ERR_CTXWIN_OUT_OF_RANGE"],
      ["tenant-\udbff", "ERR_CTXWIN_OUT_OF_RANGE"],
      ["\udc00tenant", "ERR_CTXWIN_OUT_OF_RANGE"],
      ["a\u0000b", "ERR_CTXWIN_OUT_OF_RANGE"],
      ["a\nb", "ERR_CTXWIN_OUT_OF_RANGE"],
      ["a\u007fb", "ERR_CTXWIN_OUT_OF_RANGE"],
      ["a\u0085b", "ERR_CTXWIN_OUT_OF_RANGE"],
      [7, "ERR_CTXWIN_INVALID_ARGUMENT"],
    ];
    for (const [id, code] of bad) {
      await expect(store.append(id as string, [message(0)]), String(id)).rejects.toMatchObject({ code });
      await expect(store.read(id as string), String(id)).rejects.toMatchObject({ code });
      expect(() => store.scan(id as string), String(id)).toThrow(expect.objectContaining({ code }));
    }
    expect(await store.list()).toHaveLength(ok.length);
    // Append and log ids follow the same rule, up to 128 bytes.
    await expect(store.append("s", [message(0)], { appendId: "x".repeat(129) })).rejects.toMatchObject({ code: "ERR_CTXWIN_OUT_OF_RANGE" });
    await expect(store.append("s", [message(0)], { appendId: "\ud800" })).rejects.toMatchObject({ code: "ERR_CTXWIN_OUT_OF_RANGE" });
    await expect(store.append("s", [message(0)], { logId: 5 as never })).rejects.toMatchObject({ code: "ERR_CTXWIN_INVALID_ARGUMENT" });
    expect(await store.read("s")).toEqual([]);
  });

  it("scan() streams the records read() returns, from any position", async () => {
    const store = make();
    for (let b = 0; b < 12; b++)
      await store.append(
        "s",
        Array.from({ length: (b % 3) + 1 }, (_, i) => message(b * 10 + i)),
      );
    const all = await store.read("s");
    expect(all).toHaveLength(24);
    for (const from of [0, 1, 2, 5, 11, 23, 24, 40]) {
      expect(await collect(store.scan("s", from)), `from ${from}`).toEqual(all.slice(from));
      expect(await store.read("s", from), `from ${from}`).toEqual(all.slice(from));
    }
    expect(await collect(store.scan("nobody"))).toEqual([]);
  });

  it("knows where the last snapshot is, so that a reader can start there", async () => {
    const store = make();
    await store.append("s", [message(0), message(1)]);
    expect((await store.info("s"))?.snapshot).toBeUndefined();
    await store.append("s", [message(2), { type: "snapshot", messages: [], marker: null }, message(3)]);
    await store.append("s", [message(4)]);
    expect((await store.info("s"))?.snapshot).toBe(3);
    await store.append("s", [
      { type: "snapshot", messages: [], marker: null },
      { type: "snapshot", messages: [], marker: null },
      { type: "metadata", metadata: { m: 1 } },
    ]);
    expect(await store.info("s")).toMatchObject({ snapshot: 7, metadata: { m: 1 }, version: 9 });
    expect((await store.read("s", 7)).map((r) => r.entry.type)).toEqual(["snapshot", "metadata"]);
  });

  it("refuses an append that would pass maxLogBytes with ERR_CTXWIN_SESSION_TOO_LARGE, and every one after it", async () => {
    const store = make({ maxLogBytes: 4096 });
    const big = (i: number) => ({ type: "message", i, text: "z".repeat(600) });
    let appended = 0;
    let refused: unknown;
    for (let i = 0; i < 20 && refused === undefined; i++) {
      try {
        await store.append("s", [big(i)]);
        appended++;
      } catch (error) {
        refused = error;
      }
    }
    expect(refused).toMatchObject({ name: "RangeError", code: "ERR_CTXWIN_SESSION_TOO_LARGE" });
    expect(appended).toBeGreaterThanOrEqual(3);
    await expect(store.append("s", [big(99)])).rejects.toMatchObject({ code: "ERR_CTXWIN_SESSION_TOO_LARGE" });
    expect((await store.read("s")).map((r) => r.entry.i)).toEqual(Array.from({ length: appended }, (_, i) => i));
    // Another session has its own budget.
    expect(await store.append("t", [big(0)])).toMatchObject({ first: 0 });
  });
});

describe("RedisSessionStore specifics", () => {
  it("sets the TTL in the same script as the append, and list() forgets expired sessions", async () => {
    const { createClient } = await import("redis");
    const client = createClient({ socket: { path: redis.socket, tls: false } });
    await client.connect();
    try {
      const store = new RedisSessionStore({ client, prefix: "ttl:", ttlSeconds: 0.3 });
      await store.append("s", [message(0)]);
      const ttl = Number(await client.sendCommand(["PTTL", "ttl:{s}:log"]));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(300);
      expect(Number(await client.sendCommand(["PTTL", "ttl:{s}:meta"]))).toBeGreaterThan(0);
      expect(await store.list()).toEqual(["s"]);
      await new Promise((r) => setTimeout(r, 450));
      expect(await store.list()).toEqual([]);
      expect(await store.read("s")).toEqual([]);
      await store.close(); // a client passed in stays open
      expect(await client.sendCommand(["PING"])).toBe("PONG");
    } finally {
      await client.close();
    }
  });

  it("reloads its scripts when the server has forgotten them", async () => {
    const store = track(new RedisSessionStore({ clientOptions: { socket: { path: redis.socket } }, prefix: "flush:" }));
    await store.append("s", [message(0)]);
    const { createClient } = await import("redis");
    const client = createClient({ socket: { path: redis.socket, tls: false } });
    await client.connect();
    await client.sendCommand(["SCRIPT", "FLUSH"]);
    await client.close();
    expect(await store.append("s", [message(1)])).toMatchObject({ first: 1, version: 2 });
  });

  it("needs a client or client options", () => {
    expect(() => new RedisSessionStore({} as never)).toThrow(/options.client or options.clientOptions/);
    expect(() => new RedisSessionStore({ client: {} as never })).toThrow(/sendCommand/);
  });
});
