// A session log larger than a JavaScript string can hold (about 512 MB): it must open and stream
// with memory bounded by a line, not by the file (reading it whole used to fail with an uncoded
// "RangeError: Invalid string length" while appends went on), and every bound on sizes is coded.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FileSessionStore, MemorySessionStore } from "ctxwin";
import { MAX_APPEND_BYTES, MAX_READ_BYTES } from "../../../ts/session/store.js";
import { ctxwinBin } from "../support/cli.js";

const SCAN = fileURLToPath(new URL("./fixtures/scan-log.mjs", import.meta.url));
const OPEN = fileURLToPath(new URL("./fixtures/open-log.mjs", import.meta.url));
// Each message under the largest text a synchronous count takes (2^24 UTF-16 units): 42 of 15 MiB.
const APPENDS = 42;
const TEXT = 15 * 1024 * 1024;

let directory: string;
beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), "ctxwin-large-"));
  const store = new FileSessionStore({ directory, fsync: false });
  const text = "t".repeat(TEXT);
  // What a manager that trims as it goes writes: each message, then a trim that drops the one before.
  for (let i = 0; i < APPENDS; i++) {
    const message = { type: "message", id: `m${i}`, i, message: { role: "user", content: `${i}:${text}` } };
    await store.append(
      "big",
      i === 0 ? [message] : [message, { type: "boundary", boundary: { kind: "trim", removed: [`m${i - 1}`], marker: null } }],
    );
  }
}, 120_000);
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe("a 600 MB session file", () => {
  it("a manager opens it in a 96 MB heap: memory bounded by the messages it keeps, not by the file", () => {
    const out = execFileSync(process.execPath, ["--max-old-space-size=96", OPEN, directory, "big"], {
      encoding: "utf8",
      maxBuffer: 1 << 20,
    });
    expect(JSON.parse(out)).toEqual({ messages: 1, last: String(APPENDS - 1), length: `${APPENDS - 1}:`.length + TEXT });
  }, 120_000);

  it("streams whole through scan() in a 96 MB heap, and knows its version from its end", () => {
    const store = new FileSessionStore({ directory });
    expect(statSync(store.pathOf("big")).size).toBeGreaterThan(600 * 1024 * 1024);
    const out = execFileSync(process.execPath, ["--max-old-space-size=96", SCAN, directory, "big"], {
      encoding: "utf8",
      maxBuffer: 1 << 20,
    });
    const seen = JSON.parse(out) as { records: number; bytes: number; ordered: boolean; version: number; peakRss: number };
    expect(seen).toMatchObject({ records: 2 * APPENDS - 1, ordered: true, version: 2 * APPENDS - 1 });
    expect(seen.bytes).toBeGreaterThan(APPENDS * TEXT);
  }, 120_000);

  it("read() refuses more than MAX_READ_BYTES at once with ERR_CTXWIN_SESSION_TOO_LARGE naming scan(); from near the end it reads", async () => {
    const store = new FileSessionStore({ directory });
    await expect(store.read("big")).rejects.toMatchObject({
      name: "RangeError",
      code: "ERR_CTXWIN_SESSION_TOO_LARGE",
      message: expect.stringContaining("store.scan(id, from)"),
    });
    const tail = await store.read("big", 2 * APPENDS - 5);
    expect(tail.map((r) => r.entry.i)).toEqual([APPENDS - 2, undefined, APPENDS - 1, undefined]);
    expect(MAX_READ_BYTES).toBe(128 * 1024 * 1024);
  }, 60_000);

  it("appends go on, and info() answers from the end of the file", async () => {
    const store = new FileSessionStore({ directory, fsync: false });
    const version = 2 * APPENDS - 1;
    expect(await store.append("big", [{ type: "note", i: APPENDS }], { expectedVersion: version })).toMatchObject({ first: version });
    expect(await store.info("big")).toMatchObject({ version: version + 1 });
  }, 60_000);
});

describe("size bounds, each with its code", () => {
  it("an append larger than MAX_APPEND_BYTES is refused before anything is written", async () => {
    for (const store of [new MemorySessionStore(), new FileSessionStore({ directory, fsync: false })]) {
      const huge = { type: "message", text: "h".repeat(MAX_APPEND_BYTES) };
      await expect(store.append("huge", [huge])).rejects.toMatchObject({ name: "RangeError", code: "ERR_CTXWIN_SESSION_TOO_LARGE" });
      const halves = [
        { type: "message", text: "h".repeat(MAX_APPEND_BYTES / 2) },
        { type: "message", text: "h".repeat(MAX_APPEND_BYTES / 2) },
      ];
      await expect(store.append("huge", halves)).rejects.toMatchObject({
        code: "ERR_CTXWIN_SESSION_TOO_LARGE",
        message: expect.stringContaining("entries[1]"),
      });
      expect(await store.read("huge")).toEqual([]);
    }
  }, 60_000);

  it("a line longer than any the store writes is ERR_CTXWIN_SESSION_TOO_LARGE, not a string the engine cannot make", async () => {
    const store = new FileSessionStore({ directory });
    writeFileSync(
      store.pathOf("long-line"),
      `\n{"seq":0,"version":1,"after":0,"log":"L","append":"a","time":1,"entries":[{"type":"x","t":"${"l".repeat(MAX_APPEND_BYTES + 128 * 1024)}"}]}\n`,
    );
    await expect(store.read("long-line")).rejects.toMatchObject({ code: "ERR_CTXWIN_SESSION_TOO_LARGE" });
    await expect(store.info("long-line")).rejects.toMatchObject({ code: "ERR_CTXWIN_SESSION_TOO_LARGE" });
    await expect(store.append("long-line", [{ type: "x" }])).rejects.toMatchObject({ code: "ERR_CTXWIN_SESSION_TOO_LARGE" });
  }, 60_000);
});

describe("the CLI on a session file larger than its heap", () => {
  it("`ctxwin inspect` replays it as it streams, in a 40 MB heap (reading it whole ran out of memory)", async () => {
    const store = new FileSessionStore({ directory, fsync: false });
    const words = Array.from({ length: 1 << 17 }, (_, k) => `w${k % 997}`).join(" ");
    // 110 messages of 0.75 MB, each trimming the one before: a 70 MB log whose view is one message.
    for (let i = 0; i < 110; i++) {
      const message = { type: "message", id: `m${i}`, message: { role: i % 2 ? "assistant" : "user", content: `${i}: ${words}` } };
      await store.append(
        "cli",
        i === 0 ? [message] : [message, { type: "boundary", boundary: { kind: "trim", removed: [`m${i - 1}`], marker: null } }],
      );
    }
    const path = store.pathOf("cli");
    expect(statSync(path).size).toBeGreaterThan(64 * 1024 * 1024);
    const out = execFileSync(process.execPath, ["--max-old-space-size=40", ctxwinBin, "inspect", path, "--json"], {
      encoding: "utf8",
      maxBuffer: 1 << 24,
    });
    expect(JSON.parse(out)).toMatchObject({ model: "gpt-4o", messages: 1 });
    const text = execFileSync(process.execPath, ["--max-old-space-size=40", ctxwinBin, "inspect", path], {
      encoding: "utf8",
      maxBuffer: 1 << 24,
    });
    expect(text).toContain(`${path}: 1 messages (session log, 219 records)`);
  }, 120_000);
});
