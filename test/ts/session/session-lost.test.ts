// A MessageContextManager whose session's log vanishes or changes under it, or whose append's
// reply is lost: it never silently starts over on another log, and never writes a message twice.
// Also: a long session opens from its last snapshot, and a log whose view is not a valid history
// is ERR_CTXWIN_SESSION_CORRUPT.
import { mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ContextLimits,
  FileSessionStore,
  MemorySessionStore,
  MessageContextManager,
  type MessageContextManagerOptions,
  type MessageLike,
  type SessionStore,
} from "ctxwin";
import type { SessionLostEvent } from "ctxwin/context";
import { RedisSessionStore, type SessionRecord } from "ctxwin/session";
import { startRedisServer, type RedisServer } from "../support/redis-server.js";
import { startReplyDroppingProxy, type ReplyDroppingProxy } from "../support/reply-dropping-proxy.js";

const quiet = { warn: () => {} };
const say = (i: number): MessageLike => ({ role: i % 2 ? "assistant" : "user", content: `message ${i}` });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const open = (store: SessionStore, id: string, extra: Partial<MessageContextManagerOptions> = {}) =>
  MessageContextManager.open({
    model: "gpt-4o",
    logger: quiet,
    session: { store, id },
    ...extra,
    compaction: { autoTruncate: false, ...extra.compaction },
  });
const contents = (records: SessionRecord[]) =>
  records.filter((r) => r.entry.type === "message").map((r) => (r.entry.message as MessageLike).content);

/** The manager's 'sessionLost' events. */
function lostEvents(cm: MessageContextManager): SessionLostEvent[] {
  const events: SessionLostEvent[] = [];
  cm.on("sessionLost", (event) => events.push(event));
  return events;
}

let redis: RedisServer;
let volatile: RedisServer;
let directory: string;
beforeAll(async () => {
  redis = await startRedisServer();
  volatile = await startRedisServer({ persistence: "none" });
  directory = mkdtempSync(join(tmpdir(), "ctxwin-lost-"));
});
afterAll(async () => {
  await redis.stop();
  await volatile.stop();
  rmSync(directory, { recursive: true, force: true });
});

describe("a manager whose log vanished or changed", () => {
  it("a session that expired under a live manager: the event, a coded error on flush, the view kept (not ['third'])", async () => {
    const store = new RedisSessionStore({ clientOptions: { socket: { path: redis.socket } }, prefix: "expiring:", ttlSeconds: 0.3 });
    try {
      const cm = await open(store, "s");
      const events = lostEvents(cm);
      cm.addMessage(say(0));
      cm.addMessage(say(1));
      await cm.flush();
      await sleep(450);
      cm.addMessage({ role: "user", content: "third" });
      await expect(cm.flush()).rejects.toMatchObject({ code: "ERR_CTXWIN_SESSION_LOST", actualVersion: 0 });
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ sessionId: "s", error: { code: "ERR_CTXWIN_SESSION_LOST" } });
      expect(cm.getMessages()).toEqual([say(0), say(1), { role: "user", content: "third" }]);
      // It stays loud, and nothing is written to a new log in its name.
      await expect(cm.flush()).rejects.toMatchObject({ code: "ERR_CTXWIN_SESSION_LOST" });
      expect(events).toHaveLength(1);
      expect(await store.read("s")).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it("Redis restarted without persistence, and another worker started the session again: LOST, not a merge into the new log", async () => {
    const store = new RedisSessionStore({ clientOptions: { socket: { path: volatile.socket } }, logger: quiet });
    try {
      const a = await open(store, "s");
      const events = lostEvents(a);
      for (let i = 0; i < 3; i++) a.addMessage(say(i));
      await a.flush();
      await volatile.restart("SIGKILL");
      // Another worker opens the (now empty) session and writes more than `a` ever had.
      const b = await open(store, "s").catch(async () => open(store, "s"));
      for (let i = 10; i < 15; i++) b.addMessage(say(i));
      await b.flush();
      a.addMessage(say(3));
      await expect(a.flush()).rejects.toMatchObject({
        code: "ERR_CTXWIN_SESSION_LOST",
        expectedLog: expect.any(String),
        actualLog: expect.any(String),
      });
      expect(events).toHaveLength(1);
      expect(a.getMessages()).toEqual([0, 1, 2, 3].map(say));
      expect(contents(await store.read("s"))).toEqual([10, 11, 12, 13, 14].map((i) => say(i).content));
    } finally {
      await store.close();
    }
  });

  it("a session file replaced under a live manager (another log put in its place): LOST", async () => {
    const store = new FileSessionStore({ directory });
    const a = await open(store, "replaced");
    const events = lostEvents(a);
    a.addMessage(say(0));
    await a.flush();
    const other = await open(store, "elsewhere");
    for (let i = 0; i < 4; i++) other.addMessage(say(i + 20));
    await other.flush();
    renameSync(store.pathOf("elsewhere"), store.pathOf("replaced"));
    a.addMessage(say(1));
    await expect(a.flush()).rejects.toMatchObject({ code: "ERR_CTXWIN_SESSION_LOST" });
    expect(events).toHaveLength(1);
    expect(a.getMessages()).toEqual([say(0), say(1)]);
    expect(contents(await store.read("replaced"))).toEqual([20, 21, 22, 23].map((i) => say(i).content));
  });

  it("a session deleted under a live manager: LOST", async () => {
    const store = new MemorySessionStore();
    const cm = await open(store, "s");
    cm.addMessage(say(0));
    await cm.flush();
    await store.delete("s");
    cm.addMessage(say(1));
    await expect(cm.flush()).rejects.toMatchObject({ code: "ERR_CTXWIN_SESSION_LOST" });
  });
});

describe("a lost reply", () => {
  let proxy: ReplyDroppingProxy;
  beforeAll(async () => {
    proxy = await startReplyDroppingProxy(redis.socket);
  });
  afterAll(async () => {
    await proxy.close();
  });

  it("the manager's append whose reply was dropped after it landed is not written again by the next flush", async () => {
    const store = new RedisSessionStore({ clientOptions: { socket: { host: proxy.host, port: proxy.port } }, prefix: "dropped:" });
    try {
      const cm = await open(store, "s");
      cm.addMessage(say(0));
      await cm.flush(); // the script is loaded: the next append is one EVALSHA
      const dropped = proxy.dropNextReply("EVALSHA");
      cm.addMessage(say(1));
      cm.addMessage(say(2));
      await expect(cm.flush()).rejects.toThrow();
      await dropped;
      // The messages are in the log already; the retry finds its appendId and writes nothing.
      for (let attempt = 0; ; attempt++) {
        try {
          await cm.flush();
          break;
        } catch (error) {
          if (attempt === 20) throw error;
          await sleep(50);
        }
      }
      cm.addMessage(say(3));
      await cm.flush();
      expect(contents(await store.read("s"))).toEqual([0, 1, 2, 3].map((i) => say(i).content));
      const again = await open(store, "s");
      expect(again.getMessages()).toEqual([0, 1, 2, 3].map(say));
    } finally {
      await store.close();
    }
  });
});

describe("opening a long session", () => {
  it("reads from the last snapshot the manager wrote, not from the start, and sees the same context", async () => {
    const inner = new MemorySessionStore();
    const scans: Array<{ from: number; records: number }> = [];
    // The store as a manager sees it, counting what each scan reads.
    const store: SessionStore = {
      append: (id, entries, options) => inner.append(id, entries, options),
      read: (id, from) => inner.read(id, from),
      scan: (id, from) => {
        const scan = { from: from ?? 0, records: 0 };
        scans.push(scan);
        const records = inner.scan(id, from);
        return (async function* () {
          for await (const r of records) {
            scan.records++;
            yield r;
          }
        })();
      },
      list: () => inner.list(),
      delete: (id) => inner.delete(id),
      info: (id) => inner.info(id),
      close: () => inner.close(),
    };
    const limits = new ContextLimits({ model: "gpt-4o", maxTokens: 2000, maxOutputTokens: 0, reservedTokens: 0 });
    const first = await open(store, "long", { compaction: { autoTruncate: true }, limits });
    for (let i = 0; i < 3000; i++) {
      first.addMessage(say(i));
      if (i % 50 === 49) await first.flush();
    }
    await first.flush();
    const info = await inner.info("long");
    expect(info?.version).toBeGreaterThan(3000);
    expect(info?.snapshot).toBeGreaterThan(1000);
    scans.length = 0;
    const second = await open(store, "long", { compaction: { autoTruncate: true }, limits });
    expect(second.getContextForRequest()).toEqual(first.getContextForRequest());
    expect(second.export()).toEqual(first.export());
    expect(scans).toEqual([{ from: info!.snapshot, records: info!.version - info!.snapshot! }]);
    expect(info!.version - info!.snapshot!).toBeLessThan(1100);
  });
});

describe("a log whose view is not a valid history", () => {
  it("is ERR_CTXWIN_SESSION_CORRUPT, not the manager's own check's code", async () => {
    const store = new MemorySessionStore();
    await store.append("s", [
      { type: "message", id: "a", message: { role: "user", content: "hi" } },
      { type: "message", id: "b", message: { role: "tool", tool_call_id: "nowhere", content: "x" } },
    ]);
    await expect(open(store, "s")).rejects.toMatchObject({
      code: "ERR_CTXWIN_SESSION_CORRUPT",
      cause: { code: "ERR_CTXWIN_ORPHAN_TOOL_RESULT" },
    });
  });
});
