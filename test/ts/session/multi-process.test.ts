// Many processes, one session: 4 forked writers append 500 entries each to the same session, on
// the file store and on a real Redis server; nothing is lost, nothing interleaves, each writer's
// order is kept. A writer killed with SIGKILL in the middle of its appends leaves whole records.
import { fork, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FileSessionStore, type SessionStore } from "ctxwin";
import { RedisSessionStore, type SessionRecord } from "ctxwin/session";
import { startRedisServer, type RedisServer } from "../support/redis-server.js";

const WRITER = fileURLToPath(new URL("./fixtures/writer.mjs", import.meta.url));
let redis: RedisServer;
let directory: string;

beforeAll(async () => {
  redis = await startRedisServer();
  directory = mkdtempSync(join(tmpdir(), "ctxwin-mp-"));
});
afterAll(async () => {
  await redis.stop();
  rmSync(directory, { recursive: true, force: true });
});

type Kind = "file" | "redis";
const location = (kind: Kind) => (kind === "file" ? directory : redis.socket);
const storeFor = (kind: Kind): SessionStore =>
  kind === "file"
    ? new FileSessionStore({ directory, staleLockMs: 2000 })
    : new RedisSessionStore({ clientOptions: { socket: { path: redis.socket } } });

function start(
  kind: Kind,
  session: string,
  writer: number,
  count: number,
  mode: "plain" | "versioned",
  entryBytes = 0,
  stallAt = -1,
): ChildProcess {
  return fork(WRITER, [kind, location(kind), session, String(writer), String(count), mode, String(entryBytes), String(stallAt)], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
}

function finished(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null; conflicts: number }> {
  let conflicts = 0;
  child.on("message", (m: { conflicts?: number }) => {
    if (m.conflicts !== undefined) conflicts = m.conflicts;
  });
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal, conflicts })));
}

function checkWhole(records: SessionRecord[]): void {
  expect(records.map((r) => r.seq)).toEqual(records.map((_, i) => i));
  for (const r of records) expect(r.entry).toMatchObject({ type: "message", writer: expect.any(Number), i: expect.any(Number) });
}

/** Each writer's entries appear in its order, without gaps. */
function perWriter(records: SessionRecord[], writers: number): number[][] {
  return Array.from({ length: writers }, (_, w) => records.filter((r) => r.entry.writer === w).map((r) => r.entry.i as number));
}

describe.each(["file", "redis"] as const)("%s store, 4 processes", (kind) => {
  it("4 writers x 500 appends to one session: nothing lost, nothing interleaved, each writer's order kept", async () => {
    const session = `shared-${kind}`;
    // Two writers append blindly, two name the version they expect and retry when stale.
    const children = [0, 1, 2, 3].map((w) => start(kind, session, w, 500, w % 2 ? "versioned" : "plain"));
    const results = await Promise.all(children.map(finished));
    expect(results.map((r) => r.code)).toEqual([0, 0, 0, 0]);
    const store = storeFor(kind);
    const records = await store.read(session);
    await store.close();
    expect(records).toHaveLength(2000);
    checkWhole(records);
    const ordered = Array.from({ length: 500 }, (_, i) => i);
    expect(perWriter(records, 4)).toEqual([ordered, ordered, ordered, ordered]);
  }, 120_000);

  it("a writer killed with SIGKILL mid-append leaves only whole records, and the next writer goes on", async () => {
    const session = `killed-${kind}`;
    // Large entries (256 KB) make each write long enough to be cut by the signal.
    const child = start(kind, session, 0, 1000, "plain", 256 * 1024);
    const exit = finished(child);
    await new Promise<void>((resolve) =>
      child.on("message", (m: { appended?: number }) => {
        if (m.appended === 5) {
          // Kill during the next appends, not between them: let it start one first.
          setTimeout(() => {
            child.kill("SIGKILL");
            resolve();
          }, 3);
        }
      }),
    );
    expect((await exit).signal).toBe("SIGKILL");
    const store = storeFor(kind);
    const before = await store.read(session);
    expect(before.length).toBeGreaterThanOrEqual(5);
    expect(before.length).toBeLessThan(1000);
    checkWhole(before);
    expect(perWriter(before, 1)[0]).toEqual(before.map((_, i) => i));
    // Another writer continues the same session (the file store waits out the dead writer's lock).
    const next = await finished(start(kind, session, 1, 3, "versioned"));
    expect(next.code).toBe(0);
    const after = await store.read(session);
    await store.close();
    checkWhole(after);
    expect(after.length).toBe(before.length + 3);
    expect(after.slice(before.length).map((r) => r.entry.writer)).toEqual([1, 1, 1]);
  }, 60_000);
});

/** Whether a process is stopped (SIGSTOP took effect): state T in /proc/<pid>/stat. */
function stopped(pid: number): boolean {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).startsWith("T");
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("file store, a writer stalled past the lock's stale time", () => {
  // The failure this guards against: the stalled writer resumed and wrote at the size it had
  // measured before it stalled, over the records the other writer appended meanwhile (records
  // acknowledged and then lost, duplicated, a torn line that made the file unreadable).
  it.each(["plain", "versioned"] as const)(
    "%s appends: its late write is fenced, it acknowledges only an append that won, nothing acknowledged is lost or doubled",
    async (mode) => {
      const session = `stalled-${mode}`;
      // Writer 0 appends 3 entries and stops itself inside the second append, holding the lock,
      // after counting the file and before writing.
      const stalled = start("file", session, 0, 3, mode, 0, 1);
      const acked = new Map<number, number[]>([
        [0, []],
        [1, []],
      ]);
      stalled.on("message", (m: { appended?: number; first?: number }) => {
        if (m.appended !== undefined) acked.get(0)!.push(m.appended - 1);
      });
      const stalledExit = finished(stalled);
      await new Promise<void>((resolve) => stalled.on("message", (m: { stalling?: boolean }) => m.stalling && resolve()));
      while (!stopped(stalled.pid!)) await sleep(5);
      // Past the stale time (2 s), writer 1 takes the lock over and appends 5 entries.
      await sleep(2600);
      const other = start("file", session, 1, 5, mode);
      other.on("message", (m: { appended?: number }) => {
        if (m.appended !== undefined) acked.get(1)!.push(m.appended - 1);
      });
      expect((await finished(other)).code).toBe(0);
      expect(stopped(stalled.pid!)).toBe(true);
      stalled.kill("SIGCONT");
      expect((await stalledExit).code).toBe(0);
      expect(acked.get(0)).toEqual([0, 1, 2]);
      expect(acked.get(1)).toEqual([0, 1, 2, 3, 4]);

      const store = storeFor("file");
      const records = await store.read(session);
      await store.close();
      checkWhole(records);
      // Every acknowledged entry exactly once, each writer's in its order.
      expect(perWriter(records, 2)).toEqual([
        [0, 1, 2],
        [0, 1, 2, 3, 4],
      ]);
      // The stalled writer's late line is in the file, for a version the other writer had taken.
      const lines = readFileSync(new FileSessionStore({ directory }).pathOf(session), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { seq: number; entries: Array<{ writer: number; i: number }> });
      const late = lines.filter((l, k) => lines.findIndex((o) => o.seq === l.seq) !== k);
      expect(late).toHaveLength(1);
      expect(late[0]!.entries).toEqual([expect.objectContaining({ writer: 0, i: 1 })]);
    },
    60_000,
  );
});
