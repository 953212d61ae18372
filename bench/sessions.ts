// Session stores: appends per second (one record per append, each durable before the next), the
// same through MessageContextManager (a burst of addMessage calls is one append), and the time
// to open a 10,000-message session (read the log, replay it, count every message). The file
// store fsyncs each append; the Redis server (started here, on a Unix socket) runs with
// appendonly yes and appendfsync always, so both acknowledge only what is on disk.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileSessionStore, MemorySessionStore, MessageContextManager, RedisSessionStore, type MessageLike, type SessionStore } from "ctxwin";
import { startRedisServer } from "../test/ts/support/redis-server.js";
import { formatTime, printTable, type Result } from "./harness.js";

const message = (i: number): MessageLike => ({ role: i % 2 ? "assistant" : "user", content: `message ${i}: ${"the quick brown fox jumps over the lazy dog ".repeat(6)}` });

async function appendsPerSecond(store: SessionStore, id: string, count: number): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < count; i++) await store.append(id, [{ type: "message", id: `w.${i}`, message: message(i) }]);
  return Number(process.hrtime.bigint() - start) / count;
}

/** A writer that adds `perTurn` messages per turn and waits for durability after each turn. */
async function managerTurns(store: SessionStore, id: string, turns: number, perTurn: number): Promise<number> {
  const cm = await MessageContextManager.open({ model: "gpt-4o", session: { store, id } });
  const start = process.hrtime.bigint();
  for (let t = 0; t < turns; t++) {
    for (let k = 0; k < perTurn; k++) cm.addMessage(message(t * perTurn + k));
    await cm.flush();
  }
  return Number(process.hrtime.bigint() - start) / (turns * perTurn);
}

async function openTime(store: SessionStore, id: string, samples = 5): Promise<{ open: number; read: number }> {
  const opens: number[] = [];
  const reads: number[] = [];
  for (let s = 0; s < samples; s++) {
    let start = process.hrtime.bigint();
    await store.read(id);
    reads.push(Number(process.hrtime.bigint() - start));
    start = process.hrtime.bigint();
    const cm = await MessageContextManager.open({ model: "gpt-4o", session: { store, id }, autoTruncate: false });
    opens.push(Number(process.hrtime.bigint() - start));
    if (cm.getMessages().length !== 10_000) throw new Error(`opened ${cm.getMessages().length} messages, not 10000`);
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  return { open: median(opens), read: median(reads) };
}

export async function benchSessions(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), "ctxwin-bench-sessions-"));
  const redis = await startRedisServer();
  const stores: Array<[string, SessionStore]> = [
    ["MemorySessionStore", new MemorySessionStore()],
    ["FileSessionStore (fsync)", new FileSessionStore({ directory })],
    ["RedisSessionStore (unix socket, appendfsync always)", new RedisSessionStore({ clientOptions: { socket: { path: redis.socket } } })],
  ];
  try {
    const appends: Result[] = [];
    const turns: Result[] = [];
    const opens: Result[] = [];
    const reads: Result[] = [];
    for (const [name, store] of stores) {
      await appendsPerSecond(store, "warm-up", 50);
      appends.push({ name, nsPerOp: await appendsPerSecond(store, "appends", name.startsWith("File") ? 500 : 2000) });
      turns.push({ name, nsPerOp: await managerTurns(store, "turns", 200, 2) });
      // A 10,000-message session, written in batches of 1,000.
      for (let b = 0; b < 10; b++) {
        await store.append("big", Array.from({ length: 1000 }, (_, i) => ({ type: "message", id: `b.${b * 1000 + i}`, message: message(b * 1000 + i) })));
      }
      const t = await openTime(store, "big");
      opens.push({ name, nsPerOp: t.open });
      reads.push({ name, nsPerOp: t.read });
    }
    printTable("Session store: one durable append of one message", appends, "FileSessionStore (fsync)");
    console.log(appends.map((r) => `${r.name}: ${Math.round(1e9 / r.nsPerOp).toLocaleString("en-US")} appends/s`).join("\n"));
    printTable("MessageContextManager with a session: per message, 2 messages per turn, flush() after each turn", turns, "FileSessionStore (fsync)");
    printTable("Open a 10,000-message session (MessageContextManager.open: read, replay, count)", opens, "FileSessionStore (fsync)");
    printTable("Read a 10,000-message log (store.read)", reads, "FileSessionStore (fsync)");
    console.log(`\nopen of 10,000 messages: ${opens.map((r) => `${r.name} ${formatTime(r.nsPerOp)}`).join(", ")}`);
  } finally {
    await Promise.all(stores.map(([, s]) => s.close()));
    await redis.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}
