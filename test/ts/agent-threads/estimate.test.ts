import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ContextManager, estimateTokens } from "ctxwin";

// Strings of every kind of UTF-16 content: ASCII, BMP, astral pairs and lone surrogates.
const anyUtf16 = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 200 }),
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 300 }).map((units) => String.fromCharCode(...units)),
  fc.array(fc.integer({ min: 0xd800, max: 0xdfff }), { maxLength: 50 }).map((units) => String.fromCharCode(...units)),
);

describe("estimateTokens", () => {
  it("returns a reasonable estimate for hello", () => {
    expect(estimateTokens("hello")).toBe(2);
    expect(estimateTokens("")).toBe(0);
    expect(estimateTokens("a")).toBe(1);
    expect(estimateTokens("1234567")).toBe(2);
    expect(estimateTokens("12345678")).toBe(3);
  });

  it("counts UTF-16 code units: an astral character counts 2", () => {
    expect("😀".length).toBe(2);
    expect(estimateTokens("😀")).toBe(1);
    expect(estimateTokens("😀😀😀😀")).toBe(Math.ceil(8 / 3.5));
  });

  it("equals Math.ceil(text.length / 3.5) for every string (property)", () => {
    fc.assert(
      fc.property(anyUtf16, (text) => {
        expect(estimateTokens(text)).toBe(Math.ceil(text.length / 3.5));
      }),
      { numRuns: 2000 },
    );
  });

  it("is exact for long strings", () => {
    for (const n of [1e6, 3_500_001, 7_777_777]) {
      const text = "x".repeat(n);
      expect(estimateTokens(text)).toBe(Math.ceil(n / 3.5));
    }
  });

  it("is the method of ContextManager too, unless a tokenEstimator replaces it", () => {
    const cm = new ContextManager();
    fc.assert(fc.property(anyUtf16, (text) => cm.estimateTokens(text) === Math.ceil(text.length / 3.5)));
    const words = new ContextManager({ tokenEstimator: (text) => text.split(/\s+/).filter(Boolean).length });
    expect(words.estimateTokens("one two three")).toBe(3);
  });
});
