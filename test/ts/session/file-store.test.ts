// FileSessionStore's crash handling, made deterministic: a torn last line (a writer died in the
// middle of its write) and a lock left behind by a dead writer.
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileSessionStore } from "ctxwin";

let directory: string;
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "ctxwin-file-"));
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

const entry = (i: number) => ({ type: "message", i });

describe("FileSessionStore", () => {
  it("writes one JSON line per record into <directory>/<id>.jsonl", async () => {
    const store = new FileSessionStore({ directory });
    await store.append("a b", [entry(0), entry(1)]);
    const lines = readFileSync(store.pathOf("a b"), "utf8").split("\n");
    expect(store.pathOf("a b")).toBe(join(directory, "a%20b.jsonl"));
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe("");
    expect(JSON.parse(lines[1]!)).toMatchObject({ seq: 1, entry: entry(1) });
  });

  it("ignores a torn last line on read, and the next append cuts it off", async () => {
    const store = new FileSessionStore({ directory });
    await store.append("s", [entry(0), entry(1)]);
    appendFileSync(store.pathOf("s"), '{"seq":2,"time":17000,"entry":{"type":"mess');
    expect((await store.read("s")).map((r) => r.entry)).toEqual([entry(0), entry(1)]);
    expect(await store.info("s")).toMatchObject({ version: 2 });
    // A second store (another process) appends: the torn bytes go, the record lands on its own line.
    const other = new FileSessionStore({ directory });
    expect(await other.append("s", [entry(2)], { expectedVersion: 2 })).toMatchObject({ first: 2, version: 3 });
    expect((await store.read("s")).map((r) => r.entry)).toEqual([entry(0), entry(1), entry(2)]);
    // The first store's view of the file is stale now; its next append still counts right.
    expect(await store.append("s", [entry(3)])).toMatchObject({ first: 3, version: 4 });
    expect(readFileSync(store.pathOf("s"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l).seq)).toEqual([0, 1, 2, 3]);
  });

  it("counts from the last line, however long, and whatever another process did to the file", async () => {
    const store = new FileSessionStore({ directory });
    const big = (i: number) => ({ type: "message", i, text: "y".repeat(200_000) });
    await store.append("s", [big(0), big(1)]);
    appendFileSync(store.pathOf("s"), '{"seq":2,"time":1,"entry":{"type":"message","text":"' + "z".repeat(100_000));
    expect(await store.append("s", [entry(2)])).toMatchObject({ first: 2, version: 3 });
    expect(await store.append("s", [big(3)])).toMatchObject({ first: 3, version: 4 });
    expect((await store.read("s")).map((r) => r.seq)).toEqual([0, 1, 2, 3]);
    // Deleted and written again by another store: this one starts counting from the new file.
    const other = new FileSessionStore({ directory });
    await other.delete("s");
    await other.append("s", [entry(0)]);
    expect(await store.append("s", [entry(1)], { expectedVersion: 1 })).toMatchObject({ first: 1, version: 2 });
  });

  it("a file that is only a torn line reads as empty", async () => {
    const store = new FileSessionStore({ directory });
    appendFileSync(store.pathOf("s"), '{"seq":0,"ti');
    expect(await store.read("s")).toEqual([]);
    expect(await store.append("s", [entry(0)], { expectedVersion: 0 })).toMatchObject({ first: 0, version: 1 });
  });

  it("reports a corrupt line in the middle of a log with its line number", async () => {
    const store = new FileSessionStore({ directory });
    await store.append("s", [entry(0)]);
    appendFileSync(store.pathOf("s"), "not json\n");
    await expect(store.read("s")).rejects.toMatchObject({ code: "ERR_CTXWIN_SESSION_CORRUPT", message: expect.stringContaining("s.jsonl:2") });
  });

  it("takes over the lock of a writer that died holding it, once the lock is stale", async () => {
    const store = new FileSessionStore({ directory, staleLockMs: 2000 });
    await store.append("s", [entry(0)]);
    const lock = `${store.pathOf("s")}.lock`;
    mkdirSync(lock);
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    expect(await store.append("s", [entry(1)])).toMatchObject({ first: 1, version: 2 });
  });

  it("waits for a live lock and gives up after lockTimeoutMs", async () => {
    const store = new FileSessionStore({ directory, staleLockMs: 60_000, lockTimeoutMs: 200 });
    mkdirSync(`${store.pathOf("s")}.lock`);
    await expect(store.append("s", [entry(0)])).rejects.toMatchObject({ code: "ELOCKED" });
  });
});
