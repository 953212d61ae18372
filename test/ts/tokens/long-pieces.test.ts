// Long single pieces (a run of one character, random text over a small alphabet) through the
// public API: the backtracking search the core uses from 512 bytes on gives tiktoken's tokens.
import fc from "fast-check";
import { get_encoding, type Tiktoken } from "tiktoken";
import { afterAll, describe, expect, it } from "vitest";
import { TiktokenCounter } from "ctxwin";
import type { EncodingName } from "ctxwin/tokens";
import { seededText } from "../support/adversarial-text.js";

describe.each(["cl100k_base", "o200k_base"] as EncodingName[])("%s: long single pieces, exactly as tiktoken", (encoding) => {
  const ours = new TiktokenCounter({ encoding });
  const reference: Tiktoken = get_encoding(encoding);
  afterAll(() => reference.free());
  const check = (text: string) => {
    const expected = Array.from(reference.encode_ordinary(text));
    expect(Array.from(ours.encode(text))).toEqual(expected);
    expect(ours.count(text)).toBe(expected.length);
  };

  it("runs of one character or unit, of every length around the search's threshold and beyond", () => {
    for (const unit of ["a", "z", "ab", "aab", "é", "日", "😀", "=", "-", " ", "\n", "Ω"]) {
      for (const n of [1, 2, 255, 511, 512, 513, 1024, 4000]) check(unit.repeat(n));
    }
  });

  it("random long pieces over small alphabets (the most overlapping tokens)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("ab", "abc", "eé", "xyz", "日本", "=-", "aA"),
        fc.integer({ min: 500, max: 4000 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        (alphabet, length, seed) => check(seededText(alphabet, length, seed)),
      ),
      { numRuns: 40, seed: 20261125 },
    );
  });

  it("a megabyte of one character: count = encode length, decode round-trips, the same async", async () => {
    const run = "a".repeat(1_000_000);
    const tokens = ours.encode(run);
    expect(ours.count(run)).toBe(tokens.length);
    expect(ours.decode(tokens)).toBe(run);
    expect(await ours.countAsync(run)).toBe(tokens.length);
  });
});
