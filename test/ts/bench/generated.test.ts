// The held-out bench's text generators (bench/text/), on a small word list written here: the same
// seed gives the same text, another seed other text, each category comes out near the size asked,
// with the shapes it is there for (JSON that parses, log lines with their timestamps and levels,
// code with indented blocks). Nothing here reads the dictionary, the corpus or a clone.
import { describe, expect, it } from "vitest";
import { identifier, codeText } from "../../../bench/text/code.js";
import { chunks } from "../../../bench/text/chunks.js";
import { firstBytes } from "../../../bench/text/corpus.js";
import { GENERATED_CATEGORIES, generateTexts } from "../../../bench/text/generated.js";
import { jsonText } from "../../../bench/text/json.js";
import { LEVELS, logsText } from "../../../bench/text/logs.js";
import { Prng } from "../../../bench/text/prng.js";
import { loadWordList, syntheticWords, wordsText } from "../../../bench/text/words.js";

const WORDS = ["apple", "Banana", "cherry's", "delta", "echo", "foxtrot", "golf", "hotel", "India", "juliet", "kilo", "lima"];
const BYTES = 20_000;

describe("Prng", () => {
  it("draws the same sequence for the same seed and another for another seed", () => {
    const draw = (seed: number) => {
      const rng = new Prng(seed);
      return Array.from({ length: 50 }, () => rng.uint32());
    };
    expect(draw(7)).toEqual(draw(7));
    expect(draw(7)).not.toEqual(draw(8));
    // Pinned: a change of the generator changes the text behind every published held-out figure,
    // which then have to be measured again.
    expect(draw(40).slice(0, 3)).toEqual([1045093250, 1653810258, 469591287]);
  });

  it("keeps int, range and hex within their bounds", () => {
    const rng = new Prng(1);
    for (let i = 0; i < 2000; i++) {
      const n = rng.int(10);
      expect(n).toBeGreaterThanOrEqual(0);
      expect(n).toBeLessThan(10);
      const r = rng.range(3, 5);
      expect(r === 3 || r === 4 || r === 5).toBe(true);
    }
    expect(rng.hex(13)).toMatch(/^[0-9a-f]{13}$/);
    expect(() => rng.pick([])).toThrow(RangeError);
  });
});

describe("generateTexts", () => {
  it("is deterministic for a seed and word list, and differs with the seed", () => {
    const a = generateTexts(WORDS, BYTES, 40);
    const b = generateTexts(WORDS, BYTES, 40);
    const c = generateTexts(WORDS, BYTES, 41);
    for (const category of GENERATED_CATEGORIES) {
      expect(a[category]).toBe(b[category]);
      expect(a[category]).not.toBe(c[category]);
    }
  });

  it("makes every category non-empty and about the size asked", () => {
    const texts = generateTexts(WORDS, BYTES);
    expect(Object.keys(texts)).toEqual([...GENERATED_CATEGORIES]);
    for (const category of GENERATED_CATEGORIES) {
      const size = Buffer.byteLength(texts[category]);
      expect(size).toBeGreaterThanOrEqual(BYTES);
      expect(size).toBeLessThan(BYTES + 5_000);
    }
  });

  it("refuses an empty word list", () => {
    expect(() => generateTexts([], BYTES)).toThrow(RangeError);
  });
});

describe("the categories' shapes", () => {
  it("words: only words of the list, spaces, commas, full stops and newlines", () => {
    const text = wordsText(new Prng(3), WORDS, BYTES);
    const tokens = text.split(/[\s,.]+/).filter((w) => w.length > 0);
    expect(tokens.length).toBeGreaterThan(1000);
    for (const w of tokens) expect(WORDS).toContain(w);
  });

  it("json: the whole text parses, to an array of objects with an id", () => {
    const parsed = JSON.parse(jsonText(new Prng(5), WORDS, BYTES)) as Array<{ id: number }>;
    expect(parsed.length).toBeGreaterThan(5);
    for (const doc of parsed) expect(typeof doc.id).toBe("number");
  });

  it("logs: every line has a timestamp, in order, and a level", () => {
    const lines = logsText(new Prng(9), WORDS, BYTES).trimEnd().split("\n");
    expect(lines.length).toBeGreaterThan(50);
    const times = lines.map((line) => {
      const match = /(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d\.\d{3})/.exec(line);
      expect(match).not.toBeNull();
      expect(LEVELS.some((level) => line.includes(level) || line.includes(`level=${level.toLowerCase()}`))).toBe(true);
      return Date.parse(`${match?.[1]}T${match?.[2]}Z`);
    });
    for (let i = 1; i < times.length; i++) expect(times[i]).toBeGreaterThanOrEqual(times[i - 1] as number);
  });

  it("code: blocks open and close in balance, with indented lines and identifiers of letters and digits", () => {
    const text = codeText(new Prng(11), WORDS, BYTES);
    expect(text.split("{").length).toBe(text.split("}").length);
    expect(text).toMatch(/\n( {2}|\t)\S/);
    const rng = new Prng(12);
    for (let i = 0; i < 200; i++) expect(identifier(rng, WORDS)).toMatch(/^[A-Za-z][A-Za-z0-9_]*$/);
  });
});

describe("word lists and cutting", () => {
  it("falls back to synthetic words when the dictionary is missing, deterministically", () => {
    const list = loadWordList(new Prng(1), "/nonexistent/words");
    expect(list.source).toMatch(/synthetic/);
    expect(list.words.length).toBeGreaterThan(1000);
    expect(syntheticWords(new Prng(2), 100)).toEqual(syntheticWords(new Prng(2), 100));
    for (const w of list.words.slice(0, 500)) expect(w).toMatch(/^[A-Za-z']+$/);
  });

  it("firstBytes never cuts a character and stays within the bytes", () => {
    const text = "aé日😀".repeat(100);
    for (const bytes of [0, 1, 2, 3, 5, 6, 9, 10, 11, 13, 100]) {
      const start = firstBytes(text, bytes);
      expect(Buffer.byteLength(start)).toBeLessThanOrEqual(bytes);
      expect(Buffer.byteLength(start)).toBeGreaterThan(bytes - 4);
      expect(text.startsWith(start)).toBe(true);
      expect(start).toBe(Buffer.from(start, "utf8").toString("utf8"));
    }
  });

  it("chunks never split a surrogate pair and join back to the text", () => {
    const text = "ab😀".repeat(1000);
    const parts = chunks(text, 7);
    expect(parts.join("")).toBe(text);
    for (const p of parts) expect(/[\uD800-\uDBFF]$/.test(p)).toBe(false);
  });
});
