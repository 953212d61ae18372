// The chaos test of the session stores (npm run chaos; .ci/run runs it): writer processes append
// to one session on each store (through the store, blind or naming their version, and through a
// MessageContextManager) while the test, once a writer is appending, kills it (SIGKILL) or stops
// it for longer than the file lock's stale time (SIGSTOP, and writers that stop themselves inside
// an append, after the store counted the file and before it writes), drops Redis replies after
// the command ran (a TCP proxy cuts the connection) and kills and restarts redis-server. Then it reads the log and counts
// the acknowledged messages lost, the messages duplicated and the writers' orders broken, and
// prints `lost 0 / duplicated 0 / reordered 0` per store or exits 1. One manager writer per store
// is hostile (issue 39): most turns its caller also tries a message its log cannot hold, which
// must be refused with a code, and the session must open afterwards. A case restarts a server
// without persistence under writers: each must get ERR_CTXWIN_SESSION_LOST, none may write on.
// The last runs generated plans of concurrent async turns on one manager (in process) and counts
// the messages added that the log misses, doubles or reorders.
// A watchdog bounds the whole run (CI must not hang on a writer that never finishes): past
// CHAOS_SECONDS x 2 + 90 s per store (and 120 s + 0.5 s a plan of turns) it kills every process it
// started and exits 1.
//
//   CHAOS_SECONDS=50 (per store) CHAOS_TURN_PLANS=1000 CHAOS_ONLY=file|redis|turns node --import tsx test/ts/session/chaos.ts
import { fork, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FileSessionStore, MemorySessionStore, MessageContextManager, type SessionStore } from "ctxwin";
import { RedisSessionStore, type SessionRecord } from "ctxwin/session";
import fc from "fast-check";
import { runConcurrentTurns, turnPlans } from "./support/concurrent-turns.js";
import { startRedisServer, type RedisServer, type RedisServerOptions } from "../support/redis-server.js";
import { startReplyDroppingProxy } from "../support/reply-dropping-proxy.js";

const WRITER = fileURLToPath(new URL("./fixtures/chaos-writer.mjs", import.meta.url));
const SECONDS = Number(process.env.CHAOS_SECONDS ?? 50);
const STALE_LOCK_MS = 2000;
const WRITERS = 4;
const only = process.env.CHAOS_ONLY;
/** Generated plans of concurrent turns (a few seconds per 100 on the memory store). */
const TURN_PLANS = Number(process.env.CHAOS_TURN_PLANS ?? 1000);
const STORES = only === undefined ? 2 : only === "turns" ? 0 : 1;
const WATCHDOG_SECONDS = STORES * (SECONDS * 2 + 90) + (only === undefined || only === "turns" ? 120 + TURN_PLANS / 2 : 0);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const between = (low: number, high: number) => low + Math.random() * (high - low);

/** Every process the run started and has not seen exit: the watchdog kills them. */
const started = new Set<{ readonly pid?: number | undefined }>();
let phase = "starting";
const watchdog = setTimeout(() => {
  console.error(`chaos: FAILED: still running after ${WATCHDOG_SECONDS} s (in ${phase}); killing ${started.size} processes`);
  killStarted();
  process.exit(1);
}, WATCHDOG_SECONDS * 1000);
// The run ends by itself when it is done; the watchdog only ever ends one that is not.
watchdog.unref();

/** Starts a redis-server the watchdog can kill (its pid changes on restart: read when killing), and stops it. */
async function withRedisServer<T>(options: RedisServerOptions, run: (redis: RedisServer) => Promise<T>): Promise<T> {
  const redis = await startRedisServer(options);
  const entry = {
    get pid() {
      return redis.pid;
    },
  };
  started.add(entry);
  try {
    return await run(redis);
  } finally {
    await redis.stop();
    started.delete(entry);
  }
}

interface WriterMessage {
  attempt?: number;
  /** A hostile writer's message the manager refused (its code), or one it accepted (a failure). */
  refused?: string;
  acceptedHostile?: string;
  expected?: number;
  acked?: number;
  alreadyApplied?: boolean;
  stalling?: boolean;
  lostLog?: number;
  message?: string;
  error?: string;
  warning?: string;
}

/** One writer id, across the processes that play it (a new one after each SIGKILL). */
class Writer {
  process: ChildProcess | undefined;
  readonly acked = new Set<number>();
  /** The append under way: retried by the next process with the same id and expected version. */
  attempt: { i: number; expected: number | undefined } | undefined;
  next = 0;
  stopped = false;
  /** Its process has started appending (loaded, connected, opened): killing it before tests only start-up. */
  appending = false;
  exited: Promise<void> = Promise.resolve();
  lostLog: string | undefined;

  constructor(
    readonly id: number,
    private readonly config: Record<string, unknown>,
    private readonly tally: Tally,
  ) {}

  /** How it appends: "blind", "versioned" (naming its version and log), "manager" (a MessageContextManager) or "hostile" (one whose caller also tries messages its log cannot hold). */
  get mode(): string {
    return String(this.config.mode);
  }

  start(): void {
    const retry = this.attempt && !this.acked.has(this.attempt.i) ? this.attempt : undefined;
    const from = retry ? retry.i : this.next;
    const child = fork(WRITER, [JSON.stringify({ ...this.config, writer: this.id, from, retry })], {
      stdio: ["ignore", "ignore", "inherit", "ipc"],
    });
    this.process = child;
    this.stopped = false;
    this.appending = false;
    started.add(child);
    child.once("exit", () => started.delete(child));
    child.on("message", (m: WriterMessage) => {
      if (m.attempt !== undefined) {
        this.attempt = { i: m.attempt, expected: m.expected };
        this.appending = true;
      }
      if (m.acked !== undefined) {
        this.acked.add(m.acked);
        this.next = m.acked + 1;
        if (m.alreadyApplied) this.tally.alreadyApplied++;
      }
      if (m.stalling) {
        // It stopped itself holding the lock: let the lock go stale, another writer take it over.
        this.tally.stallsInLock++;
        this.stopped = true;
        setTimeout(() => this.resume(), between(STALE_LOCK_MS + 300, STALE_LOCK_MS + 1500));
      }
      if (m.error !== undefined) this.tally.errors.set(m.error, (this.tally.errors.get(m.error) ?? 0) + 1);
      if (m.lostLog !== undefined) this.lostLog = m.message;
      if (m.warning !== undefined) this.tally.warnings.add(m.warning);
      if (m.refused !== undefined) this.tally.refused.set(m.refused, (this.tally.refused.get(m.refused) ?? 0) + 1);
      if (m.acceptedHostile !== undefined) this.tally.acceptedHostile.push(m.acceptedHostile);
    });
    this.exited = new Promise((resolve) => child.once("exit", () => resolve()));
  }

  resume(): void {
    if (this.stopped && this.process?.exitCode === null) this.process.kill("SIGCONT");
    this.stopped = false;
  }

  async kill(): Promise<void> {
    this.process?.kill("SIGKILL");
    await this.exited;
    this.tally.kills++;
  }

  async finish(): Promise<void> {
    this.resume();
    this.process?.send("stop");
    await this.exited;
  }
}

class Tally {
  kills = 0;
  stops = 0;
  stallsInLock = 0;
  alreadyApplied = 0;
  restarts = 0;
  errors = new Map<string, number>();
  warnings = new Set<string>();
  /** Hostile messages refused, by code (an uncoded refusal is a failure). */
  refused = new Map<string, number>();
  /** Hostile messages a manager accepted (each a failure). */
  acceptedHostile: string[] = [];
}

interface Counts {
  acknowledged: number;
  messages: number;
  lost: number;
  duplicated: number;
  reordered: number;
}

/** Lost: acknowledged but not in the log. Duplicated: in the log twice. Reordered: a writer's messages out of its order. */
function count(records: SessionRecord[], writers: Writer[]): Counts {
  const seen = new Map<string, number>();
  const order = writers.map(() => [] as number[]);
  for (const r of records) {
    if (r.entry.type !== "chaos" && r.entry.type !== "message") continue;
    // A store writer's entry names itself; a manager writer's message says it in its content.
    const managed = /^chaos w(\d+) i(\d+)$/.exec(String((r.entry.message as { content?: unknown } | undefined)?.content));
    const { writer, i, k } = managed
      ? { writer: Number(managed[1]), i: Number(managed[2]), k: 0 }
      : (r.entry as unknown as { writer: number; i: number; k: number });
    const key = `${writer}.${i}.${k}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
    if (k === 0) order[writer]?.push(i);
  }
  let lost = 0;
  let acknowledged = 0;
  for (const w of writers) {
    for (const i of w.acked) {
      acknowledged++;
      if (!seen.has(`${w.id}.${i}.0`)) lost++;
    }
  }
  const duplicated = [...seen.values()].filter((n) => n > 1).length;
  let reordered = 0;
  for (const list of order) for (let j = 1; j < list.length; j++) if ((list[j] as number) <= (list[j - 1] as number)) reordered++;
  return { acknowledged, messages: records.length, lost, duplicated, reordered };
}

async function readAll(store: SessionStore, id: string): Promise<SessionRecord[]> {
  const records: SessionRecord[] = [];
  for await (const r of store.scan(id)) records.push(r);
  return records;
}

/** Kills, stops and resumes writers at random until the time is up. */
async function monkey(writers: Writer[], tally: Tally, until: number, extra?: () => Promise<void>): Promise<void> {
  while (Date.now() < until) {
    await sleep(between(150, 600));
    const w = writers[Math.floor(Math.random() * writers.length)] as Writer;
    const roll = Math.random();
    if (roll < 0.55 && !w.appending) continue;
    if (roll < 0.35) {
      if (w.stopped) continue;
      await w.kill();
      await sleep(between(20, 200));
      w.start();
    } else if (roll < 0.55) {
      if (w.stopped || w.process?.exitCode !== null) continue;
      w.process.kill("SIGSTOP");
      w.stopped = true;
      tally.stops++;
      setTimeout(() => w.resume(), between(STALE_LOCK_MS + 200, STALE_LOCK_MS + 1500));
    } else if (extra) {
      await extra();
    }
  }
}

/** Whether a manager opens the session the writers left (a log nothing may make unopenable). */
async function opens(store: SessionStore, id: string): Promise<boolean> {
  try {
    await MessageContextManager.open({
      model: "gpt-4o",
      logger: { warn: () => {} },
      session: { store, id },
      compaction: { autoTruncate: false },
    });
    return true;
  } catch (error) {
    console.error(`chaos: the session does not open: ${String(error)}`);
    return false;
  }
}

function report(name: string, writers: Writer[], counts: Counts, tally: Tally, notes: string[], opened: boolean): boolean {
  const errors = [...tally.errors].map(([code, n]) => `${code} x${n}`).join(", ") || "none";
  const refused = [...tally.refused].map(([code, n]) => `${code} x${n}`).join(", ") || "none";
  const uncoded = [...tally.refused.keys()].filter((code) => !code.startsWith("ERR_CTXWIN_")).length;
  const perWriter = writers.map((w) => `${w.mode} ${w.acked.size}`).join(", ");
  console.log(
    `${name}: ${counts.acknowledged} appends acknowledged (${perWriter}), ${counts.messages} messages in the log; ` +
      `${tally.kills} SIGKILL, ${tally.stops} SIGSTOP of 2.2-3.5 s (past the file lock's stale time), ${tally.stallsInLock} stops inside an append, ` +
      `${notes.join(", ")}${notes.length ? ", " : ""}${tally.alreadyApplied} retries answered alreadyApplied; errors retried: ${errors}`,
  );
  console.log(
    `${name}: hostile messages refused: ${refused}; accepted: ${tally.acceptedHostile.length}; the session opens: ${opened ? "yes" : "no"}`,
  );
  console.log(`${name}: lost ${counts.lost} / duplicated ${counts.duplicated} / reordered ${counts.reordered}`);
  // Every writer must have got appends through: a writer stuck from the start would pass the counts.
  return (
    counts.lost === 0 &&
    counts.duplicated === 0 &&
    counts.reordered === 0 &&
    writers.every((w) => w.acked.size > 0) &&
    uncoded === 0 &&
    tally.acceptedHostile.length === 0 &&
    opened
  );
}

async function fileChaos(): Promise<boolean> {
  phase = "the file store";
  const directory = mkdtempSync(join(tmpdir(), "ctxwin-chaos-file-"));
  const tally = new Tally();
  try {
    const config = { kind: "file", directory, session: "chaos", staleLockMs: STALE_LOCK_MS, stallProbability: 0.015 };
    const modes = ["blind", "versioned", "hostile", "versioned"];
    const writers = Array.from({ length: WRITERS }, (_, w) => new Writer(w, { ...config, mode: modes[w] }, tally));
    for (const w of writers) w.start();
    await monkey(writers, tally, Date.now() + SECONDS * 1000);
    await Promise.all(writers.map((w) => w.finish()));
    const store = new FileSessionStore({ directory });
    const records = await readAll(store, "chaos");
    const opened = await opens(store, "chaos");
    // Late lines of stalled writers, fenced: lines whose seq another line had taken first.
    const lines = readFileSync(store.pathOf("chaos"), "utf8")
      .split("\n")
      .filter((l) => l.startsWith('{"seq":'));
    const taken = new Set<number>();
    let fenced = 0;
    for (const line of lines) {
      const seq = Number(/^\{"seq":(\d+)/.exec(line)?.[1]);
      if (taken.has(seq)) fenced++;
      taken.add(seq);
    }
    return report("file", writers, count(records, writers), tally, [`${fenced} late lines fenced`], opened);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

function redisChaos(): Promise<boolean> {
  phase = "the Redis store";
  return withRedisServer({}, async (redis) => {
    const proxy = await startReplyDroppingProxy(redis.socket);
    const tally = new Tally();
    try {
      proxy.dropRandomly("EVALSHA", 0.03);
      const base = { kind: "redis", session: "chaos", socket: { host: proxy.host, port: proxy.port } };
      const modes = ["blind", "versioned", "manager", "hostile"];
      const writers = Array.from({ length: WRITERS }, (_, w) => new Writer(w, { ...base, mode: modes[w], noReconnect: w >= 2 }, tally));
      for (const w of writers) w.start();
      let lastRestart = Date.now();
      await monkey(writers, tally, Date.now() + SECONDS * 1000, async () => {
        if (Date.now() - lastRestart < 6000) return;
        await redis.restart("SIGKILL");
        tally.restarts++;
        lastRestart = Date.now();
      });
      proxy.dropRandomly("EVALSHA", 0);
      await Promise.all(writers.map((w) => w.finish()));
      const store = new RedisSessionStore({ clientOptions: { socket: { path: redis.socket } } });
      const records = await readAll(store, "chaos");
      const opened = await opens(store, "chaos");
      await store.close();
      return report(
        "redis",
        writers,
        count(records, writers),
        tally,
        [`${tally.restarts} redis-server SIGKILL + restart`, `${proxy.dropped} replies dropped after the script ran`],
        opened,
      );
    } finally {
      await proxy.close();
    }
  });
}

/** A server that keeps nothing across a restart: every live writer must be told, none may write on. */
function redisWithoutPersistence(): Promise<boolean> {
  phase = "Redis without persistence";
  return withRedisServer({ persistence: "none" }, async (redis) => {
    const tally = new Tally();
    const writers = Array.from(
      { length: WRITERS },
      (_, w) => new Writer(w, { kind: "redis", session: "volatile", socket: { path: redis.socket }, mode: "versioned" }, tally),
    );
    for (const w of writers) w.start();
    while (writers.some((w) => w.acked.size < 20)) await sleep(50);
    await redis.restart("SIGKILL");
    await Promise.all(writers.map((w) => w.exited));
    const store = new RedisSessionStore({ clientOptions: { socket: { path: redis.socket } }, logger: { warn: () => {} } });
    const after = await readAll(store, "volatile");
    await store.close();
    const told = writers.filter((w) => w.lostLog?.includes("its log is gone")).length;
    const warned = [...tally.warnings].some((m) => m.includes("cannot promise durability"));
    console.log(
      `redis without persistence: restarted under ${WRITERS} writers after ${writers.reduce((n, w) => n + w.acked.size, 0)} acknowledged appends; ` +
        `${told} of ${WRITERS} writers got ERR_CTXWIN_SESSION_LOST, ${after.length} records written on the empty log; the store warned when it opened: ${warned ? "yes" : "no"}`,
    );
    return told === WRITERS && after.length === 0 && warned;
  });
}

/**
 * Concurrent async turns on one manager (support/concurrent-turns.ts), generated plans on the
 * memory, file and Redis stores: every message added must be in the log once, in order, and the
 * session must reopen to the manager's view. In-process (no kills): what it checks is the manager.
 */
function turnsChaos(): Promise<boolean> {
  phase = "concurrent turns";
  return withRedisServer({}, async (redis) => {
    const directory = mkdtempSync(join(tmpdir(), "ctxwin-chaos-turns-"));
    const stores: Array<[string, SessionStore]> = [
      ["memory", new MemorySessionStore()],
      ["file", new FileSessionStore({ directory })],
      ["redis", new RedisSessionStore({ clientOptions: { socket: { path: redis.socket } } })],
    ];
    const totals = { plans: 0, messages: 0, missing: 0, duplicated: 0, outOfOrder: 0, reopenedOther: 0 };
    try {
      const plans = fc.sample(turnPlans(40), TURN_PLANS);
      for (const [i, plan] of plans.entries()) {
        // Most plans on memory (fast); every fifth on a file, every fifth on Redis.
        const [, store] = stores[i % 5 === 1 ? 1 : i % 5 === 3 ? 2 : 0] as [string, SessionStore];
        const outcome = await runConcurrentTurns(store, `turns-${i}`, plan);
        totals.plans++;
        totals.messages += outcome.added.length;
        totals.missing += outcome.missing;
        totals.duplicated += outcome.duplicated;
        if (!outcome.inOrder) totals.outOfOrder++;
        if (!outcome.reopenedEqual) totals.reopenedOther++;
      }
    } finally {
      for (const [, store] of stores) await store.close();
      rmSync(directory, { recursive: true, force: true });
    }
    console.log(
      `concurrent turns: ${totals.plans} generated plans (up to 40 turns at once, SUMMARIZE, a 3K window) on memory, file and Redis, ${totals.messages} messages added`,
    );
    console.log(
      `concurrent turns: missing ${totals.missing} / duplicated ${totals.duplicated} / runs out of order ${totals.outOfOrder} / reopened to another view ${totals.reopenedOther}`,
    );
    return totals.missing === 0 && totals.duplicated === 0 && totals.outOfOrder === 0 && totals.reopenedOther === 0;
  });
}

/** Kills what the run started (a run that failed or timed out must not leave writers or servers behind). */
function killStarted(): void {
  for (const p of started) {
    try {
      if (p.pid !== undefined) process.kill(p.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

const began = Date.now();
const results: boolean[] = [];
try {
  if (only === undefined || only === "file") results.push(await fileChaos());
  if (only === undefined || only === "redis") results.push(await redisChaos(), await redisWithoutPersistence());
  if (only === undefined || only === "turns") results.push(await turnsChaos());
} catch (error) {
  killStarted();
  console.error("chaos: FAILED:", error);
  process.exit(1);
}
const took = `${Math.round((Date.now() - began) / 1000)} s`;
if (results.includes(false)) {
  console.error(`chaos: FAILED (${took})`);
  process.exit(1);
}
console.log(`chaos: passed in ${took}`);
