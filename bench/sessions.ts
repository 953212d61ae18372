// Session stores: appends per second (one record per append, each durable before the next), blind
// and the retry-safe way (an appendId and the expected version, what a writer that must not lose
// or double a message names), the same through MessageContextManager (a burst of addMessage calls
// is one append), the time to open a 10,000-message session (read the log, replay it, count every
// message), to read its log, to read its info (the end of the log only), and to read from its last
// snapshot instead of from the start. The file store fsyncs each append; the Redis server (started
// here, on a Unix socket) runs with appendonly yes and appendfsync always, so both acknowledge only
// what is on disk.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileSessionStore, MemorySessionStore, MessageContextManager, type MessageLike, type SessionStore } from "ctxwin";
import { RedisSessionStore } from "ctxwin/session";
import { startRedisServer } from "../test/ts/support/redis-server.js";
import { formatTime, printTable, type Result } from "./harness.js";

const message = (i: number): MessageLike => ({
  role: i % 2 ? "assistant" : "user",
  content: `message ${i}: ${"the quick brown fox jumps over the lazy dog ".repeat(6)}`,
});

/** ns per append, blind and retry-safe, in alternating rounds so that both see the same machine. */
async function appendsPerSecond(store: SessionStore, id: string, count: number): Promise<{ blind: number; safe: number }> {
  let blind = 0n;
  let safe = 0n;
  let version = (await store.info(`${id}-safe`))?.version ?? 0;
  const rounds = 5;
  for (let round = 0; round < rounds; round++) {
    let start = process.hrtime.bigint();
    for (let i = 0; i < count / rounds; i++) await store.append(id, [{ type: "message", id: `w.${i}`, message: message(i) }]);
    blind += process.hrtime.bigint() - start;
    start = process.hrtime.bigint();
    for (let i = 0; i < count / rounds; i++) {
      version = (
        await store.append(`${id}-safe`, [{ type: "message", id: `s.${i}`, message: message(i) }], {
          appendId: `a.${round}.${i}`,
          expectedVersion: version,
        })
      ).version;
    }
    safe += process.hrtime.bigint() - start;
  }
  return { blind: Number(blind) / count, safe: Number(safe) / count };
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

async function openTime(
  store: SessionStore,
  id: string,
  samples = 5,
): Promise<{ open: number; read: number; info: number; fromSnapshot: number }> {
  const opens: number[] = [];
  const reads: number[] = [];
  const infos: number[] = [];
  const snapshots: number[] = [];
  for (let s = 0; s < samples; s++) {
    let start = process.hrtime.bigint();
    await store.read(id);
    reads.push(Number(process.hrtime.bigint() - start));
    start = process.hrtime.bigint();
    const info = await store.info(id);
    infos.push(Number(process.hrtime.bigint() - start));
    start = process.hrtime.bigint();
    const tail = await store.read(`${id}-snapshot`, (await store.info(`${id}-snapshot`))?.snapshot);
    snapshots.push(Number(process.hrtime.bigint() - start));
    if (info?.version !== 10_000 || tail.length !== 101) throw new Error(`info ${info?.version}, ${tail.length} records from the snapshot`);
    start = process.hrtime.bigint();
    const cm = await MessageContextManager.open({ model: "gpt-4o", session: { store, id }, compaction: { autoTruncate: false } });
    opens.push(Number(process.hrtime.bigint() - start));
    if (cm.getMessages().length !== 10_000) throw new Error(`opened ${cm.getMessages().length} messages, not 10000`);
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  return { open: median(opens), read: median(reads), info: median(infos), fromSnapshot: median(snapshots) };
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
    const infos: Result[] = [];
    const snapshots: Result[] = [];
    for (const [name, store] of stores) {
      await appendsPerSecond(store, "warm-up", 50);
      const a = await appendsPerSecond(store, "appends", name.startsWith("Memory") ? 5000 : 500);
      appends.push({ name, nsPerOp: a.blind }, { name: `${name}, appendId + expectedVersion`, nsPerOp: a.safe });
      turns.push({ name, nsPerOp: await managerTurns(store, "turns", 200, 2) });
      // A 10,000-message session, written in batches of 1,000; the same with a snapshot and 100 more after it.
      for (let b = 0; b < 10; b++) {
        const batch = Array.from({ length: 1000 }, (_, i) => ({
          type: "message",
          id: `b.${b * 1000 + i}`,
          message: message(b * 1000 + i),
        }));
        await store.append("big", batch);
        await store.append("big-snapshot", batch);
      }
      await store.append("big-snapshot", [
        { type: "snapshot", messages: [], marker: null },
        ...Array.from({ length: 100 }, (_, i) => ({ type: "message", id: `t.${i}`, message: message(i) })),
      ]);
      const t = await openTime(store, "big");
      opens.push({ name, nsPerOp: t.open });
      reads.push({ name, nsPerOp: t.read });
      infos.push({ name, nsPerOp: t.info });
      snapshots.push({ name, nsPerOp: t.fromSnapshot });
    }
    printTable("Session store: one durable append of one message", appends, "FileSessionStore (fsync)");
    console.log(appends.map((r) => `${r.name}: ${Math.round(1e9 / r.nsPerOp).toLocaleString("en-US")} appends/s`).join("\n"));
    printTable(
      "MessageContextManager with a session: per message, 2 messages per turn, flush() after each turn",
      turns,
      "FileSessionStore (fsync)",
    );
    printTable("Open a 10,000-message session (MessageContextManager.open: read, replay, count)", opens, "FileSessionStore (fsync)");
    printTable("Read a 10,000-message log (store.read)", reads, "FileSessionStore (fsync)");
    printTable("info() of a 10,000-message session (version, times, metadata, last snapshot)", infos, "FileSessionStore (fsync)");
    printTable(
      "Read a 10,101-record log from its last snapshot (info, then read(id, snapshot): 101 records)",
      snapshots,
      "FileSessionStore (fsync)",
    );
    console.log(`\nopen of 10,000 messages: ${opens.map((r) => `${r.name} ${formatTime(r.nsPerOp)}`).join(", ")}`);
  } finally {
    await Promise.all(stores.map(([, s]) => s.close()));
    await redis.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}
