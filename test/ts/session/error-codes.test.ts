// docs/sessions.md's table of errors is the contract: every code in it exists, every code the
// session modules throw is in it, and each one is made to happen here through the public API.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { FileSessionStore, MemorySessionStore, MessageContextManager } from "ctxwin";
import { RedisSessionStore, parseExport } from "ctxwin/session";
import { startRedisServer, type RedisServer } from "../support/redis-server.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const docs = readFileSync(join(root, "docs", "sessions.md"), "utf8");
const table = docs.slice(docs.indexOf("## Errors"), docs.indexOf("## Benchmarks"));
const documented = new Set(
  [...table.matchAll(/^\| ([^|]+)\|/gm)].flatMap((row) =>
    [...(row[1] as string).matchAll(/`(ERR_CTXWIN_[A-Z_]+)`/g)].map((m) => m[1] as string),
  ),
);
const known = new Set(
  [...readFileSync(join(root, "ts", "runtime", "errors.ts"), "utf8").matchAll(/"(ERR_CTXWIN_[A-Z_]+)"/g)].map((m) => m[1] as string),
);
const sessionSources = readdirSync(join(root, "ts", "session")).filter((f) => f.endsWith(".ts"));
const thrown = new Set(
  sessionSources.flatMap((f) =>
    [...readFileSync(join(root, "ts", "session", f), "utf8").matchAll(/"(ERR_CTXWIN_[A-Z_]+)"/g)].map((m) => m[1] as string),
  ),
);

let directory: string;
let volatile: RedisServer;
beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), "ctxwin-codes-"));
  volatile = await startRedisServer({ persistence: "none" });
});
afterAll(async () => {
  await volatile.stop();
  rmSync(directory, { recursive: true, force: true });
});

const message = { type: "message", id: "m", message: { role: "user", content: "hi" } };

/** One way to get each documented code through the public API. */
const SCENARIOS: Record<string, () => Promise<unknown>> = {
  ERR_CTXWIN_INVALID_EXPORT: async () => parseExport("{ not json"),
  ERR_CTXWIN_SESSION_CONFLICT: async () => {
    const store = new MemorySessionStore();
    await store.append("s", [message]);
    return store.append("s", [message], { expectedVersion: 0 });
  },
  ERR_CTXWIN_SESSION_LOST: async () => new MemorySessionStore().append("s", [message], { expectedVersion: 4 }),
  ERR_CTXWIN_SESSION_CORRUPT: async () => {
    const store = new MemorySessionStore();
    await store.append("s", [{ type: "message", id: "m", message: { role: "user", content: 42 } }]);
    return MessageContextManager.open({ model: "gpt-4o", session: { store, id: "s" } });
  },
  ERR_CTXWIN_SESSION_TOO_LARGE: async () =>
    new MemorySessionStore({ maxLogBytes: 1024 }).append("s", [{ type: "x", text: "t".repeat(2000) }]),
  ERR_CTXWIN_SESSION_UNSAFE_PATH: async () => {
    const store = new FileSessionStore({ directory });
    mkdirSync(directory, { recursive: true });
    writeFileSync(join(directory, "elsewhere"), "");
    symlinkSync(join(directory, "elsewhere"), store.pathOf("linked"));
    return store.append("linked", [message]);
  },
  ERR_CTXWIN_SESSION_BUSY: async () => {
    const store = new FileSessionStore({ directory, staleLockMs: 60_000, lockTimeoutMs: 100 });
    mkdirSync(`${store.pathOf("held")}.lock`, { recursive: true });
    return store.append("held", [message]);
  },
  ERR_CTXWIN_SESSION_IO: async () => {
    // The store's directory under a regular file: the file system says ENOTDIR to anyone, root too.
    mkdirSync(directory, { recursive: true });
    writeFileSync(join(directory, "a-file"), "");
    return new FileSessionStore({ directory: join(directory, "a-file", "sessions") }).append("s", [message]);
  },
  ERR_CTXWIN_SESSION_NOT_DURABLE: async () => {
    const store = new RedisSessionStore({
      clientOptions: { socket: { path: volatile.socket } },
      requireDurable: true,
      logger: { warn: () => {} },
    });
    try {
      return await store.append("s", [message]);
    } finally {
      await store.close();
    }
  },
  ERR_CTXWIN_REDIS_MISSING: async () => {
    // As if the optional peer were not installed.
    vi.doMock("redis", () => {
      throw new Error("Cannot find package 'redis'");
    });
    try {
      return await new RedisSessionStore({ clientOptions: {} }).info("s");
    } finally {
      vi.doUnmock("redis");
    }
  },
  ERR_CTXWIN_INVALID_ARGUMENT: async () => new MemorySessionStore().append(42 as unknown as string, [message]),
  ERR_CTXWIN_OUT_OF_RANGE: async () => new MemorySessionStore().append("tenant-\ud800", [message]),
  ERR_CTXWIN_ORPHAN_TOOL_RESULT: async () =>
    new MessageContextManager({ model: "gpt-4o" }).import({
      metadata: { session_id: "s" },
      turns: [{ role: "tool", tool_call_id: "nowhere", content: "x" }],
    }),
};

describe("docs/sessions.md's table of errors", () => {
  it("lists only codes that exist", () => {
    expect(documented.size).toBeGreaterThanOrEqual(10);
    for (const code of documented) expect(known, code).toContain(code);
  });

  it("lists every code the session modules throw", () => {
    expect(thrown.size).toBeGreaterThanOrEqual(8);
    for (const code of thrown) expect(documented, `${code} is thrown in ts/session but not in the table`).toContain(code);
  });

  it("has a way to make each code happen, and no other", () => {
    expect(Object.keys(SCENARIOS).sort()).toEqual([...documented].sort());
  });

  it.each(Object.entries(SCENARIOS))("%s happens as documented", async (code, scenario) => {
    let caught: unknown;
    try {
      await scenario();
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(Error);
    expect((caught as { code?: unknown }).code).toBe(code);
  });
});
