// `ctxwin count` reads its inputs as a stream (issue 39: a text file over about 536 MB failed with
// an uncoded "Invalid string length"): counted part by part, cut where every OpenAI encoding ends
// a piece, the sum is the whole text's count, whatever the sizes of the chunks the bytes arrive in
// (cut inside a UTF-8 sequence, a CRLF, a run of spaces), in memory that does not grow with the file.
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { ClaudeCounter, TiktokenCounter } from "ctxwin";
import { countStream, lastPieceBoundary } from "../../../ts/cli/count.js";
import { offlineEnv, runCtxwin } from "../support/cli.js";

const dir = mkdtempSync(join(tmpdir(), "ctxwin-count-stream-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const pieces = [
  "lorem ipsum dolor\n",
  "}\n\n// a comment\n",
  "日本語のテキスト。\n",
  "emoji 👩‍💻\r\n",
  "   \n\n\t x\n",
  "'s contraction\n",
  "1234\n5678\n",
  "/path/to\n",
  "\u0085NEL \u00a0 nbsp\n",
];

/** `bytes` in chunks cut at `cuts` (byte offsets, anywhere: inside a UTF-8 sequence too). */
async function* inChunks(bytes: Buffer, cuts: number[]): AsyncGenerator<Buffer> {
  let at = 0;
  for (const cut of [...new Set(cuts)].sort((a, b) => a - b)) {
    if (cut <= at || cut >= bytes.length) continue;
    yield bytes.subarray(at, cut);
    at = cut;
  }
  yield bytes.subarray(at);
}

describe("counting a stream", () => {
  for (const encoding of ["o200k_base", "cl100k_base"] as const) {
    const counter = new TiktokenCounter({ encoding });
    it(`${encoding}: the sum of the parts is the whole text's count, however the bytes arrive and wherever it cuts`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 300 }),
          fc.array(fc.nat({ max: 10_000 }), { maxLength: 20 }),
          fc.integer({ min: 2, max: 400 }),
          async (parts, cuts, chunkChars) => {
            const text = parts.join("");
            const bytes = Buffer.from(text);
            const counted = await countStream(counter, inChunks(bytes, cuts), "(test)", () => {}, chunkChars);
            expect(counted).toEqual({ tokens: counter.count(text), bytes: bytes.length, characters: text.length });
          },
        ),
        { numRuns: 150 },
      );
    });
  }

  it("a counter of another tokenizer counts the input whole, off the main thread past the synchronous bound", async () => {
    const claude = new ClaudeCounter({ family: "v5" });
    const text = "a few words of prose\n".repeat(800_000); // 16.8 M units: past count()'s 2^24
    const counted = await countStream(claude, inChunks(Buffer.from(text), [1000, 5_000_000]), "(test)", () => {});
    expect(counted.tokens).toBe(await claude.countAsync(text));
  });

  it("finds the last place a count may be cut", () => {
    expect(lastPieceBoundary("abc\ndef")).toBe(4);
    expect(lastPieceBoundary("abc\n/def")).toBe(0);
    expect(lastPieceBoundary("abc\n def\n")).toBe(0);
    expect(lastPieceBoundary("\nx")).toBe(1);
  });

  // Memory bounded by a few chunks, whatever the size: a file 3 times the heap counts, so one past a
  // string's bound does (a 600 MB file took 53 s on the loaded development machine: not in every run).
  it("ctxwin count: a 128 MB file, in a process whose heap holds 48 MB, is counted to the sum of its blocks' counts", async () => {
    // Whole lines: a block starts with a letter and ends with a newline, so the count may be cut between blocks.
    const text = Array.from({ length: 19_000 }, (_, i) => `line ${i}: the quick brown fox jumps over the lazy dog\n`).join("");
    const block = Buffer.from(text);
    expect(block.length).toBeGreaterThan(1 << 20);
    const file = join(dir, "huge.txt");
    const blocks = 128;
    await new Promise<void>((resolve, reject) => {
      const out = createWriteStream(file);
      out.on("error", reject);
      let written = 0;
      const more = () => {
        while (written < blocks) {
          written++;
          if (!out.write(block)) return void out.once("drain", more);
        }
        out.end(resolve);
      };
      more();
    });
    const result = await runCtxwin(["count", file, "--json", "--model", "gpt-4o"], {
      env: offlineEnv({ NODE_OPTIONS: "--max-old-space-size=48" }),
    });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const o200k = new TiktokenCounter({ encoding: "o200k_base" });
    expect(JSON.parse(result.stdout)).toMatchObject({ files: [{ bytes: blocks * block.length, tokens: blocks * o200k.count(text) }] });
    rmSync(file);
  }, 300_000);
});
