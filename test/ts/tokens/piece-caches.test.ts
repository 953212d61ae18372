// Counters share their thread's piece caches: creating many costs no memory, clearing changes no
// count, and two encodings never see each other's entries.
import { describe, expect, it } from "vitest";
import { TiktokenCounter } from "ctxwin";
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
});
