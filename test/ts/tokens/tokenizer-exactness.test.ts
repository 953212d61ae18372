// Differential tests: ctxwin's counts and tokens against OpenAI's tiktoken (WASM build of the Rust
// core) on the whole test corpus (real prose, code, CJK and accented text from the repository and
// node_modules: support/corpus.ts) and on generated adversarial strings. 0 mismatches expected.
import fc from "fast-check";
import { get_encoding, type Tiktoken } from "tiktoken";
import { afterAll, describe, expect, it } from "vitest";
import { TiktokenCounter } from "ctxwin";
import type { EncodingName } from "ctxwin/tokens";
import { CATEGORIES, documents } from "../support/corpus.js";

const ENCODINGS: EncodingName[] = ["cl100k_base", "o200k_base"];
const references = new Map<EncodingName, Tiktoken>(ENCODINGS.map((e) => [e, get_encoding(e)]));
afterAll(() => references.forEach((r) => r.free()));

// Strings built to hit every branch of the pretokenizer patterns.
const pieces = [
  "'s",
  "'S",
  "'ſ",
  "'t",
  "'T",
  "'re",
  "'RE",
  "'Ve",
  "'m",
  "'ll",
  "'LL",
  "'d",
  "'D",
  "'x",
  " ",
  "  ",
  "   ",
  "\t",
  "\n",
  "\r\n",
  "\r",
  "\n\n",
  " \n ",
  "\u0085",
  "\u00A0",
  "\u2028",
  "\u2029",
  "\u3000",
  "\u200B",
  "\uFEFF",
  "\u1680",
  "\u202F",
  "a",
  "Z",
  "hello",
  "HELLO",
  "Hello",
  "hELLO",
  "HTTPServer",
  "camelCase",
  ".method",
  "_id",
  "é",
  "e\u0301",
  "\u0301",
  "ß",
  "ǅ",
  "ʰ",
  "日本語",
  "한국어",
  "Ελληνικά",
  "Кириллица",
  "עברית",
  "العربية",
  "हिन्दी",
  "ไทย",
  "0",
  "12",
  "123",
  "1234",
  "١٢٣",
  "Ⅻ",
  "½",
  "²",
  "3.14",
  "1,000",
  "!",
  "?!",
  "...",
  "/",
  "//",
  "\\",
  "(",
  ")",
  "{}",
  "[]",
  "<|endoftext|>",
  "<|fim_prefix|>",
  "$",
  "€",
  "@",
  "#",
  "%",
  "&&",
  "|",
  "->",
  "=>",
  "/*",
  "*/",
  "😀",
  "👨‍👩‍👧",
  "🇫🇷",
  "👍🏽",
  "\uD800",
  "\uDC00",
  "\uDBFF\uDFFF",
  "\u0000",
  "\u001F",
  "\u007F",
  "\uFFFD",
  "\uFFFF",
];
const adversarial = fc.array(fc.constantFrom(...pieces), { maxLength: 40 }).map((parts) => parts.join(""));
const anyString = fc.oneof(
  fc.string({ unit: "binary", maxLength: 80 }),
  fc.string({ unit: "grapheme", maxLength: 80 }),
  fc.string({ maxLength: 80 }),
);

describe("the test corpus", () => {
  it("is real text of every kind: prose, code, CJK, accented Latin and Cyrillic", () => {
    const joined = Object.fromEntries(CATEGORIES.map((c) => [c, documents(c).join("\n")])) as Record<(typeof CATEGORIES)[number], string>;
    for (const category of CATEGORIES) expect(joined[category].length).toBeGreaterThan(250_000);
    expect(joined.prose).toMatch(/\b(the|and|with)\b/);
    expect(joined.code).toMatch(/\bfunction\b|\bconst\b|#include/);
    for (const script of [/\p{Script=Han}/u, /\p{Script=Hiragana}/u, /\p{Script=Katakana}/u, /\p{Script=Hangul}/u])
      expect(joined.cjk).toMatch(script);
    for (const letter of ["é", "ü", "ñ", "ç", "ł", "ř", "ş", "ã", "д"]) expect(joined.euro).toContain(letter);
  });
});

describe.each(ENCODINGS)("%s matches tiktoken", (encoding) => {
  const ours = new TiktokenCounter({ encoding });
  const reference = references.get(encoding) as Tiktoken;

  it("on generated adversarial strings (tokens, not only counts)", () => {
    fc.assert(
      fc.property(fc.oneof(adversarial, anyString), (text) => {
        expect(Array.from(ours.encode(text))).toEqual(Array.from(reference.encode_ordinary(text)));
        expect(ours.count(text)).toBe(reference.encode_ordinary(text).length);
      }),
      { numRuns: 3000 },
    );
  });

  it("on long runs of one character, whitespace and digits", () => {
    for (const unit of ["a", " ", "\n", "0", "é", "日", "😀", "!", " a", "\t\n"]) {
      const text = unit.repeat(5000);
      expect(ours.count(text)).toBe(reference.encode_ordinary(text).length);
    }
  });

  it("on every document of the test corpus", () => {
    for (const category of CATEGORIES) {
      const docs = documents(category);
      const counts = ours.countMany(docs);
      let mismatches = 0;
      docs.forEach((doc, i) => {
        if (counts[i] !== reference.encode_ordinary(doc).length) mismatches++;
      });
      expect({ category, mismatches }).toEqual({ category, mismatches: 0 });
    }
  });
});
