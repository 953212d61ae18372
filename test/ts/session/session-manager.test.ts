// MessageContextManager with a session: each message and each trim or compaction goes to the
// session's append-only log, and a restarted worker, or another worker, continues the same context.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ContextLimits,
  FileSessionStore,
  MemorySessionStore,
  MessageContextManager,
  TruncationMode,
  extractiveSummarizer,
  type MessageContextManagerOptions,
  type MessageLike,
  type SessionStore,
} from "ctxwin";
import { RedisSessionStore } from "ctxwin/session";
import { startRedisServer, type RedisServer } from "../support/redis-server.js";

/** The context's stats without the request accounting (getStats().cache), which the view's own getContextForRequest() calls change. */
const contextStats = (cm: MessageContextManager) => {
  const { cache: _cache, ...stats } = cm.getStats();
  return stats;
};

const quiet = { warn: () => {} };
const limits = (n: number) => new ContextLimits({ model: "gpt-4o", maxTokens: n, maxOutputTokens: 0, reservedTokens: 0 });
const say = (i: number, words = 20): MessageLike => ({
  role: i % 2 ? "assistant" : "user",
  content: `message ${i}: ${"lorem ipsum dolor ".repeat(words)}`,
});
const base = (extra: Partial<MessageContextManagerOptions<MessageLike>> = {}): MessageContextManagerOptions<MessageLike> => ({
  model: "gpt-4o",
  logger: quiet,
  limits: limits(100_000),
  ...extra,
});

/** What a worker sees: everything the request and the stats depend on. */
const viewOf = (cm: MessageContextManager) => ({ request: cm.getContextForRequest(), stats: contextStats(cm), metadata: cm.metadata });

let redis: RedisServer;
let directory: string;
beforeAll(async () => {
  redis = await startRedisServer();
  directory = mkdtempSync(join(tmpdir(), "ctxwin-sm-"));
});
afterAll(async () => {
  await redis.stop();
  rmSync(directory, { recursive: true, force: true });
});

const STORES: Array<[string, () => SessionStore]> = [
  ["memory", () => new MemorySessionStore()],
  ["file", () => new FileSessionStore({ directory })],
  ["redis", () => new RedisSessionStore({ clientOptions: { socket: { path: redis.socket } } })],
];

describe.each(STORES)("a session on the %s store", (_name, makeStore) => {
  it("a restarted worker continues the same context: messages, trims, compactions, system prompt, metadata", async () => {
    const store = makeStore();
    const id = `restart-${Math.random().toString(36).slice(2)}`;
    const options = base({
      session: { store, id },
      mode: TruncationMode.SUMMARIZE,
      limits: limits(2500),
      compaction: { summarizer: extractiveSummarizer(), preserveLast: 6 },
    });
    const first = await MessageContextManager.open(options);
    first.setSystemPrompt("You are terse.");
    first.metadata = { agent: "coder" };
    for (let i = 0; i < 60; i++) first.addMessage(say(i)); // trims automatically at 80%
    await first.compactIfNeeded({ threshold: 0.5 }); // a summary
    for (let i = 60; i < 70; i++) first.addMessage(say(i));
    first.truncate(1200); // an omission marker after the summary
    await first.flush();

    const second = await MessageContextManager.open(options);
    expect(viewOf(second)).toEqual(viewOf(first));
    expect(second.export()).toEqual(first.export());
    // Nothing was destroyed: every original message is still in the log.
    const records = await store.read(id);
    const messages = records.filter((r) => r.entry.type === "message" && r.entry.summary !== true);
    expect(messages.map((r) => (r.entry.message as MessageLike).content)).toEqual(Array.from({ length: 70 }, (_, i) => say(i).content));
    expect(records.some((r) => r.entry.type === "boundary" && (r.entry.boundary as { kind: string }).kind === "trim")).toBe(true);
    expect(records.some((r) => r.entry.type === "boundary" && (r.entry.boundary as { kind: string }).kind === "summary")).toBe(true);
    expect((await store.info(id))?.metadata).toEqual({ agent: "coder" });

    // The second worker goes on; a third sees both.
    second.addMessage(say(70));
    await second.flush();
    const third = await MessageContextManager.open(options);
    expect(viewOf(third)).toEqual(viewOf(second));
    await store.close();
  });
});

describe("session semantics", () => {
  it("two workers appending to one session at once both end up with every message, each worker's in order", async () => {
    const store = new MemorySessionStore();
    const session = { store, id: "shared" };
    const a = await MessageContextManager.open(base({ session }));
    const b = await MessageContextManager.open(base({ session }));
    for (let i = 0; i < 20; i++) {
      a.addMessage({ role: "user", content: `a${i}` });
      b.addMessage({ role: "user", content: `b${i}` });
      if (i % 5 === 4) await Promise.all([a.flush(), b.flush()]);
    }
    await Promise.all([a.flush(), b.flush()]);
    const c = await MessageContextManager.open(base({ session }));
    const contents = c.getMessages().map((m) => m.content as string);
    expect(contents).toHaveLength(40);
    expect(contents.filter((t) => t.startsWith("a"))).toEqual(Array.from({ length: 20 }, (_, i) => `a${i}`));
    expect(contents.filter((t) => t.startsWith("b"))).toEqual(Array.from({ length: 20 }, (_, i) => `b${i}`));
    // The last writer to flush took the other's messages into its view when its append was stale.
    const last = [a, b].map((m) => m.getMessages().length);
    expect(Math.max(...last)).toBe(40);
  });

  it("/clear is a boundary: the view starts again, the log keeps everything, metadata stays", async () => {
    const store = new MemorySessionStore();
    const cm = await MessageContextManager.open(base({ session: { store, id: "c" } }));
    cm.metadata = { agent: "x" };
    for (let i = 0; i < 5; i++) cm.addMessage(say(i));
    cm.clear();
    cm.addMessage(say(5));
    await cm.flush();
    const again = await MessageContextManager.open(base({ session: { store, id: "c" } }));
    expect(again.getMessages()).toEqual([say(5)]);
    expect(again.metadata).toEqual({ agent: "x" });
    expect((await store.read("c")).filter((r) => r.entry.type === "message")).toHaveLength(6);
    again.reset();
    await again.flush();
    const reset = await MessageContextManager.open(base({ session: { store, id: "c" } }));
    expect(reset.getMessages()).toEqual([]);
    expect(reset.metadata).toEqual({});
  });

  it("import into a session-backed manager is recorded and reopens as imported", async () => {
    const source = new MessageContextManager(base({ limits: limits(100_000) }));
    for (let i = 0; i < 30; i++) source.addMessage(say(i));
    source.truncate(600);
    const store = new MemorySessionStore();
    const cm = await MessageContextManager.open(base({ session: { store, id: "imp" } }));
    cm.addMessage(say(99));
    cm.import(source.export());
    await cm.flush();
    const again = await MessageContextManager.open(base({ session: { store, id: "imp" } }));
    expect(again.getContextForRequest()).toEqual(source.getContextForRequest());
    // fromExport with a session writes the file's context into that session.
    const seeded = MessageContextManager.fromExport(source.export(), base({ session: { store, id: "seeded" } }));
    await seeded.ready;
    await seeded.flush();
    expect(seeded.sessionId).toBe("seeded");
    expect((await MessageContextManager.open(base({ session: { store, id: "seeded" } }))).getContextForRequest()).toEqual(
      source.getContextForRequest(),
    );
  });

  it("new MessageContextManager({ session }) works before `ready`: messages added early follow the stored ones", async () => {
    const store = new MemorySessionStore();
    await store.append("early", [{ type: "message", id: "x.0", message: say(0) }]);
    const cm = new MessageContextManager(base({ session: { store, id: "early" } }));
    cm.addMessage(say(1));
    await cm.ready;
    expect(cm.getMessages()).toEqual([say(0), say(1)]);
    await cm.flush();
    expect((await store.read("early")).map((r) => r.entry.type)).toEqual(["message", "message"]);
  });

  it("a failing store rejects flush(); the changes stay queued and the next flush writes them", async () => {
    const inner = new MemorySessionStore();
    let down = false;
    const flaky: SessionStore = {
      append: (id, entries, options) => (down ? Promise.reject(new Error("store down")) : inner.append(id, entries, options)),
      read: (id, from) => inner.read(id, from),
      scan: (id, from) => inner.scan(id, from),
      list: () => inner.list(),
      delete: (id) => inner.delete(id),
      info: (id) => inner.info(id),
      close: () => inner.close(),
    };
    const cm = await MessageContextManager.open(base({ session: { store: flaky, id: "f" } }));
    down = true;
    cm.addMessage(say(0));
    await expect(cm.flush()).rejects.toThrow("store down");
    down = false;
    cm.addMessage(say(1));
    await cm.flush();
    expect((await inner.read("f")).map((r) => (r.entry.message as MessageLike).content)).toEqual([say(0).content, say(1).content]);
  });

  it("a manager without a session: ready and flush resolve at once, addMessage stays synchronous", async () => {
    const cm = new MessageContextManager(base());
    cm.addMessage(say(0));
    expect(cm.getMessages()).toHaveLength(1);
    await cm.ready;
    await cm.flush();
  });

  it("rejects a bad session option with a coded error", () => {
    expect(() => new MessageContextManager(base({ session: { store: {} as SessionStore, id: "x" } }))).toThrow(
      expect.objectContaining({ code: "ERR_CTXWIN_INVALID_ARGUMENT" }),
    );
    expect(() => new MessageContextManager(base({ session: { store: new MemorySessionStore(), id: "" } }))).toThrow(
      expect.objectContaining({ code: "ERR_CTXWIN_OUT_OF_RANGE" }),
    );
  });
});
