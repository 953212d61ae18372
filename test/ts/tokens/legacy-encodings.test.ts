// Every model id tiktoken maps (its package's model_to_encoding.json, MIT) counts with the encoding
// tiktoken gives it, legacy completion, edit, embedding and search models included. tiktoken's two
// encodings ctxwin has under other names are checked against tiktoken itself: gpt2 is r50k_base,
// token for token; p50k_edit is p50k_base plus three special tokens, whose text counts as text.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { get_encoding } from "tiktoken";
import { describe, expect, it } from "vitest";
import { TiktokenCounter, getCounter } from "ctxwin";
import { encodingForModel } from "ctxwin/tokens";
import { realTexts } from "../support/open-models.js";

const require = createRequire(import.meta.url);
const TIKTOKEN_MODELS = JSON.parse(readFileSync(require.resolve("tiktoken/model_to_encoding.json"), "utf8")) as Record<string, string>;

// The encodings ctxwin counts tiktoken's names with.
const SAME_RANKS: Record<string, string> = { gpt2: "r50k_base", p50k_edit: "p50k_base" };

describe("legacy model ids, as tiktoken maps them", () => {
  it.each(Object.entries(TIKTOKEN_MODELS))("%s counts with %s", (model, encoding) => {
    const expected = SAME_RANKS[encoding] ?? encoding;
    expect(encodingForModel(model)).toEqual({ encoding: expected, exact: true });
    const counter = getCounter(model, { logger: { warn: () => {} } }).inner;
    expect(counter).toBeInstanceOf(TiktokenCounter);
    expect((counter as TiktokenCounter).encoding).toBe(expected);
  });

  // gpt-tokenizer's table (its shipped src/modelsMap.ts, MIT), made from an older model.py: the
  // search models' query halves too. Its o200k_harmony (gpt-oss) is left out: ctxwin counts gpt-oss
  // with gpt-oss's own tokenizer.json when its package is installed, as here.
  it("every model gpt-tokenizer's table lists counts with the encoding it gives", async () => {
    const source = join(dirname(require.resolve("gpt-tokenizer")), "..", "src", "modelsMap.ts");
    const table = (await import(source)) as Record<string, readonly string[]>;
    const models = Object.entries(table)
      .filter(([encoding]) => encoding !== "o200k_harmony")
      .flatMap(([encoding, ids]) => ids.map((id) => [id, SAME_RANKS[encoding] ?? encoding] as const));
    expect(models.length).toBeGreaterThan(50);
    for (const [model, encoding] of models) expect([model, encodingForModel(model)]).toEqual([model, { encoding, exact: true }]);
  });

  const texts = realTexts(20);

  it("tiktoken's gpt2 encoding gives r50k_base's tokens", () => {
    const gpt2 = get_encoding("gpt2");
    const r50k = new TiktokenCounter({ encoding: "r50k_base" });
    try {
      for (const text of texts) expect(Array.from(r50k.encode(text))).toEqual(Array.from(gpt2.encode(text, [], [])));
      // The one special token is the same, at the same id.
      expect(Array.from(r50k.encode("<|endoftext|>", { allowedSpecial: "all" }))).toEqual(Array.from(gpt2.encode("<|endoftext|>", "all")));
    } finally {
      gpt2.free();
    }
  });

  it("tiktoken's p50k_edit counts text as p50k_base does, its fill-in-the-middle markers included as text", () => {
    const edit = get_encoding("p50k_edit");
    const p50k = new TiktokenCounter({ encoding: "p50k_base" });
    try {
      for (const text of [...texts, "<|fim_prefix|>def f():<|fim_suffix|>\n<|fim_middle|>"])
        expect(p50k.count(text)).toBe(edit.encode(text, [], []).length);
    } finally {
      edit.free();
    }
  });
});
