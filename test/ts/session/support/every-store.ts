// The three stores a property runs on, for one test file: memory with `runs` runs, the file and Redis
// stores with a sixth of them (each run there is disk and socket work). Starts its redis-server and
// directory before the file's tests and removes them after.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { FileSessionStore, MemorySessionStore, type SessionStore } from "ctxwin";
import { RedisSessionStore } from "ctxwin/session";
import { startRedisServer, type RedisServer } from "../../support/redis-server.js";

/** [name, a new store, its runs] for describe.each. */
export type StoreCase = [name: string, makeStore: () => SessionStore, runs: number];

export function everyStore(prefix: string, runs: number): StoreCase[] {
  let redis: RedisServer;
  let directory: string;
  beforeAll(async () => {
    redis = await startRedisServer();
    directory = mkdtempSync(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    await redis.stop();
    rmSync(directory, { recursive: true, force: true });
  });
  const slower = Math.max(1, Math.round(runs / 6));
  return [
    ["memory", () => new MemorySessionStore(), runs],
    ["file", () => new FileSessionStore({ directory, fsync: false }), slower],
    ["redis", () => new RedisSessionStore({ clientOptions: { socket: { path: redis.socket } } }), slower],
  ];
}
