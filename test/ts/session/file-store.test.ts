// FileSessionStore's file, made deterministic: the line format, torn writes, late lines of a writer
// that lost its lock (written here by hand where the multi-process tests make a real one), the
// first format, corruption, symbolic links, long ids, locks.
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileSessionStore, isCtxwinError } from "ctxwin";

let directory: string;
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "ctxwin-file-"));
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

const entry = (i: number) => ({ type: "message", i });
const linesOf = (path: string) => readFileSync(path, "utf8").split("\n");
const seqs = async (store: FileSessionStore, id: string) => (await store.read(id)).map((r) => r.seq);
const entries = async (store: FileSessionStore, id: string) => (await store.read(id)).map((r) => r.entry);

/** A line as a writer that counted `seq` at checkpoint `after` would write it. */
const lineFor = (seq: number, after: number, items: object[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ seq, version: seq + items.length, after, log: "L", append: `hand-${seq}-${after}`, time: 1, ...extra, entries: items });

// The Node `nobody` runs: the test runner's own, unless it lives where nobody cannot read it (the
// newer Nodes CI installs under /root/.cache), then the system's.
const nodeForNobody = process.execPath.startsWith("/root/") && existsSync("/usr/bin/node") ? "/usr/bin/node" : process.execPath;

describe("FileSessionStore", () => {
  it("writes one line per append into <directory>/<id>.jsonl, each write starting with a newline", async () => {
    const store = new FileSessionStore({ directory });
    const first = await store.append("a b", [entry(0), entry(1)]);
    await store.append("a b", [entry(2)], { appendId: "mine" });
    const path = store.pathOf("a b");
    expect(path).toBe(join(directory, "a%20b.jsonl"));
    const lines = linesOf(path);
    expect(lines.map((l) => l === "")).toEqual([true, false, true, false, true]);
    expect(JSON.parse(lines[1]!)).toMatchObject({ seq: 0, version: 2, after: 0, log: first.logId, entries: [entry(0), entry(1)] });
    // `after` is where the log it extends ended: the byte after the first line's newline.
    expect(JSON.parse(lines[3]!)).toMatchObject({ seq: 2, version: 3, after: lines[1]!.length + 2, append: "mine", entries: [entry(2)] });
  });

  it("ignores a torn last line on read; the next append's newline ends it and the log reads on", async () => {
    const store = new FileSessionStore({ directory });
    await store.append("s", [entry(0), entry(1)]);
    appendFileSync(store.pathOf("s"), '\n{"seq":2,"version":3,"after":99,"log":"L","append":"x","time":1,"entries":[{"type":"mess');
    expect(await entries(store, "s")).toEqual([entry(0), entry(1)]);
    expect(await store.info("s")).toMatchObject({ version: 2 });
    // Another store (another process) appends: the torn bytes stay, a line of their own, skipped.
    const other = new FileSessionStore({ directory });
    expect(await other.append("s", [entry(2)], { expectedVersion: 2 })).toMatchObject({ first: 2, version: 3 });
    expect(await store.append("s", [entry(3)])).toMatchObject({ first: 3, version: 4 });
    expect(await entries(store, "s")).toEqual([0, 1, 2, 3].map(entry));
    expect(linesOf(store.pathOf("s")).filter((l) => l.includes('"mess') && !l.endsWith("}"))).toHaveLength(1);
  });

  it("a whole append left without its newline (the writer died right before it) counts once a later write ends it", async () => {
    const store = new FileSessionStore({ directory });
    await store.append("s", [entry(0)]);
    const after = readFileSync(store.pathOf("s")).length;
    appendFileSync(store.pathOf("s"), `\n${lineFor(1, after, [entry(1)])}`);
    expect(await seqs(store, "s")).toEqual([0]); // a reader cannot tell it from a write under way
    expect(await store.append("s", [entry(2)])).toMatchObject({ first: 2, version: 3 });
    expect(await entries(store, "s")).toEqual([0, 1, 2].map(entry));
  });

  it("fencing: a late line for a version another line already took is skipped by every reader and writer", async () => {
    const store = new FileSessionStore({ directory });
    await store.append("s", [entry(0)]);
    const checkpoint = readFileSync(store.pathOf("s")).length; // where a stalled writer counted (version 1)
    await store.append("s", [entry(1)]); // the writer that took the lock over: version 1 is its
    await store.append("s", [entry(2), entry(3)]);
    // The stalled writer resumes and writes what it prepared: three records from version 1.
    appendFileSync(
      store.pathOf("s"),
      `\n${lineFor(1, checkpoint, [
        { type: "late", i: 1 },
        { type: "late", i: 2 },
        { type: "late", i: 3 },
      ])}\n`,
    );
    expect(await entries(store, "s")).toEqual([0, 1, 2, 3].map(entry));
    expect(await store.info("s")).toMatchObject({ version: 4 });
    // The next writer counts 4 (not the 4 the late line claims after a gap), and so do readers from anywhere.
    expect(await store.append("s", [entry(4)])).toMatchObject({ first: 4, version: 5 });
    expect((await store.read("s", 2)).map((r) => r.entry)).toEqual([2, 3, 4].map(entry));
    expect((await store.read("s", 4)).map((r) => r.entry)).toEqual([entry(4)]);
  });

  it("reads and goes on with a file of the first format (one record per line, no leading newline)", async () => {
    const store = new FileSessionStore({ directory });
    const old =
      [0, 1, 2]
        .map((i) => JSON.stringify({ seq: i, time: 1000 + i, entry: i === 1 ? { type: "metadata", metadata: { v: 1 } } : entry(i) }))
        .join("\n") + "\n";
    writeFileSync(store.pathOf("s"), old);
    expect(await seqs(store, "s")).toEqual([0, 1, 2]);
    expect(await store.info("s")).toMatchObject({ version: 3, createdAt: 1000, updatedAt: 1002, metadata: { v: 1 }, logId: "legacy-1000" });
    expect(await store.append("s", [entry(3)], { expectedVersion: 3, logId: "legacy-1000" })).toMatchObject({
      first: 3,
      version: 4,
      logId: "legacy-1000",
    });
    expect(await store.append("s", [entry(4)])).toMatchObject({ first: 4 });
    expect((await store.read("s")).map((r) => r.seq)).toEqual([0, 1, 2, 3, 4]);
    expect(await store.info("s")).toMatchObject({ version: 5, metadata: { v: 1 }, logId: "legacy-1000" });
  });

  it("reports a corrupt line with its line number, and refuses appends to a log whose end is corrupt", async () => {
    const store = new FileSessionStore({ directory });
    await store.append("s", [entry(0)]);
    appendFileSync(store.pathOf("s"), "not json\n");
    const corrupt = { code: "ERR_CTXWIN_SESSION_CORRUPT", message: expect.stringContaining("s.jsonl:3") };
    await expect(store.read("s")).rejects.toMatchObject(corrupt);
    await expect(store.append("s", [entry(1)])).rejects.toMatchObject({ code: "ERR_CTXWIN_SESSION_CORRUPT" });
    await expect(store.info("s")).rejects.toMatchObject({ code: "ERR_CTXWIN_SESSION_CORRUPT" });
    // In the middle, after appends that went on elsewhere (a copy put back, an edit):
    writeFileSync(store.pathOf("m"), "");
    await store.append("m", [entry(0)]);
    await store.append("m", [entry(1)]);
    const text = readFileSync(store.pathOf("m"), "utf8").split("\n");
    text[1] = text[1]!.replace('"entries":[', '"entries":[oops');
    writeFileSync(store.pathOf("m"), text.join("\n"));
    await expect(store.read("m")).rejects.toMatchObject({
      code: "ERR_CTXWIN_SESSION_CORRUPT",
      message: expect.stringContaining("m.jsonl:2"),
    });
    // A record that leaves a gap (one went missing) is corruption too.
    writeFileSync(store.pathOf("g"), `\n${lineFor(0, 0, [entry(0)])}\n\n${lineFor(2, 1, [entry(2)])}\n`);
    await expect(store.read("g")).rejects.toMatchObject({ code: "ERR_CTXWIN_SESSION_CORRUPT", message: expect.stringContaining("gap") });
  });

  it("refuses a session file that is a symbolic link, or not a regular file, and writes nothing through it", async () => {
    const store = new FileSessionStore({ directory });
    const outside = mkdtempSync(join(tmpdir(), "ctxwin-outside-"));
    try {
      const target = join(outside, "victim.txt");
      writeFileSync(target, "keep me\n");
      mkdirSync(directory, { recursive: true });
      symlinkSync(target, store.pathOf("linked"));
      symlinkSync(join(outside, "missing.txt"), store.pathOf("dangling"));
      const unsafe = { code: "ERR_CTXWIN_SESSION_UNSAFE_PATH" };
      for (const id of ["linked", "dangling"]) {
        await expect(store.append(id, [entry(0)])).rejects.toMatchObject(unsafe);
        await expect(store.read(id)).rejects.toMatchObject(unsafe);
        await expect(store.info(id)).rejects.toMatchObject(unsafe);
        await expect(store.delete(id)).rejects.toMatchObject(unsafe);
      }
      expect(readFileSync(target, "utf8")).toBe("keep me\n");
      expect(existsSync(join(outside, "missing.txt"))).toBe(false);
      expect(await store.list()).toEqual([]);
      // A FIFO named like a session: refused at once, not waited on.
      execFileSync("mkfifo", [store.pathOf("fifo")]);
      await expect(store.read("fifo")).rejects.toMatchObject(unsafe);
      await expect(store.append("fifo", [entry(0)])).rejects.toMatchObject(unsafe);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("ids whose file name would pass 255 bytes are named by their hash and listed by the id the file keeps", async () => {
    const store = new FileSessionStore({ directory });
    const ids = ["x".repeat(256), "é".repeat(128), "/".repeat(82), "/".repeat(81), "a".repeat(245), "a".repeat(244)];
    // Each append lands (the lock's name and the file's fit): no ENAMETOOLONG after the lock's retries.
    for (const id of ids) {
      expect(await store.append(id, [entry(0)])).toMatchObject({ first: 0 });
      expect(await store.append(id, [entry(1)])).toMatchObject({ first: 1 });
    }
    const names = readdirSync(directory).filter((n) => n.endsWith(".jsonl"));
    for (const name of names) expect(Buffer.byteLength(name) + ".lock".length).toBeLessThanOrEqual(255);
    expect(names.filter((n) => n.startsWith("#"))).toHaveLength(4);
    expect(names).toContain(`${"%2F".repeat(81)}.jsonl`);
    expect(names).toContain(`${"a".repeat(244)}.jsonl`);
    expect((await store.list()).sort()).toEqual([...ids].sort());
    for (const id of ids) expect(await entries(store, id)).toEqual([entry(0), entry(1)]);
    expect(await store.delete("x".repeat(256))).toBe(true);
    expect(await store.list()).toHaveLength(5);
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

  it("waits for a live lock and gives up after lockTimeoutMs with ERR_CTXWIN_SESSION_BUSY", async () => {
    const store = new FileSessionStore({ directory, staleLockMs: 60_000, lockTimeoutMs: 200 });
    mkdirSync(`${store.pathOf("s")}.lock`);
    await expect(store.append("s", [entry(0)])).rejects.toMatchObject({
      code: "ERR_CTXWIN_SESSION_BUSY",
      cause: { code: "ELOCKED" },
      message: expect.stringContaining("last refreshed"),
    });
  });

  describe("a directory the writer cannot write (a read-only file system; here, one without write permission)", () => {
    /** One append by a user for whom `dir` is not writable: another user when this one is root (whom permissions do not stop). */
    function appendAsOutsider(
      dir: string,
      staleLockMs: number,
      lockTimeoutMs: number,
    ): { ok?: boolean; code?: string; systemCode?: string; causeCode?: string; message?: string } {
      const fixture = join(import.meta.dirname, "fixtures", "append-once.mjs");
      const args = [fixture, dir, "s", String(staleLockMs), String(lockTimeoutMs)];
      const asNobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
      return JSON.parse(execFileSync(nodeForNobody, args, { encoding: "utf8", ...asNobody })) as {
        ok?: boolean;
        code?: string;
        systemCode?: string;
        causeCode?: string;
        message?: string;
      };
    }

    /** A session whose directory is readable by everyone, writable by no one, with a lock left in it `age` ms ago. */
    async function lockedAndReadOnly(age: number): Promise<string> {
      chmodSync(directory, 0o755);
      const dir = join(directory, "sessions");
      const store = new FileSessionStore({ directory: dir });
      await store.append("s", [entry(0)]);
      const lock = `${store.pathOf("s")}.lock`;
      mkdirSync(lock);
      const when = new Date(Date.now() - age);
      utimesSync(lock, when, when);
      chmodSync(dir, 0o555);
      return dir;
    }

    it("a lock left by a writer that stopped, still fresh: the directory's error (ERR_CTXWIN_SESSION_IO, EACCES), not ERR_CTXWIN_SESSION_BUSY", async () => {
      const dir = await lockedAndReadOnly(0);
      const outcome = appendAsOutsider(dir, 60_000, 300);
      expect(outcome).toMatchObject({
        code: "ERR_CTXWIN_SESSION_IO",
        systemCode: "EACCES",
        causeCode: "EACCES",
        message: expect.stringContaining("its directory is not writable"),
      });
      chmodSync(dir, 0o755);
    });

    it("a stale lock that cannot be removed: the removal's error, saying so", async () => {
      const dir = await lockedAndReadOnly(60_000);
      const outcome = appendAsOutsider(dir, 2000, 300);
      expect(outcome).toMatchObject({
        code: "ERR_CTXWIN_SESSION_IO",
        systemCode: "EACCES",
        causeCode: "EACCES",
        message: expect.stringContaining("cannot take the session's lock"),
      });
      chmodSync(dir, 0o755);
    });
  });

  it("a failure of the file system is ERR_CTXWIN_SESSION_IO from every operation, the system's code as systemCode and the failure as cause", async () => {
    // A directory under a regular file: every operation meets ENOTDIR, whoever runs the test.
    const file = join(directory, "not-a-directory");
    writeFileSync(file, "");
    const store = new FileSessionStore({ directory: join(file, "sessions") });
    const failures = [
      await store.append("s", [entry(0)]).catch((e: unknown) => e),
      await store.read("s").catch((e: unknown) => e),
      await store.info("s").catch((e: unknown) => e),
      await store.list().catch((e: unknown) => e),
      await store.delete("s").catch((e: unknown) => e),
      await (async () => {
        for await (const record of store.scan("s")) void record;
      })().catch((e: unknown) => e),
    ];
    for (const failure of failures) {
      expect(isCtxwinError(failure, "ERR_CTXWIN_SESSION_IO"), String(failure)).toBe(true);
      expect(failure).toMatchObject({ systemCode: "ENOTDIR", cause: { code: "ENOTDIR" } });
    }
  });

  it("a file that is only a torn line reads as empty, and the first append starts the log", async () => {
    const store = new FileSessionStore({ directory });
    appendFileSync(store.pathOf("s"), '\n{"seq":0,"ti');
    expect(await store.read("s")).toEqual([]);
    expect(await store.info("s")).toBeUndefined();
    expect(await store.append("s", [entry(0)], { expectedVersion: 0 })).toMatchObject({ first: 0, version: 1 });
    expect(await entries(store, "s")).toEqual([entry(0)]);
  });
});
