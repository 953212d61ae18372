// CachingCounter keys a long text by a sample of it (tokens/text-cache.ts): texts alike at every
// sampled place must still get their own counts, a counter's cache never answers for another's
// texts, and what it forgets or clears is counted again, right.
import { describe, expect, it, vi } from "vitest";
import { MessageContextManager, TiktokenCounter, getCounter } from "ctxwin";
import { CachingCounter } from "ctxwin/tokens";

/** 1,000-character texts that differ from `base` at one place each: most share its sampled key. */
function oneCharacterApart(): string[] {
  const base = "word ".repeat(200);
  const texts = [base];
  for (let p = 0; p < base.length; p += 7) texts.push(`${base.slice(0, p)}\u4e00${base.slice(p + 1)}`);
  return texts;
}

describe("CachingCounter", () => {
  it("counts texts of one length that differ at one character each as its inner counter does, cached or not", () => {
    const plain = new TiktokenCounter({ encoding: "o200k_base" });
    const caching = new CachingCounter(new TiktokenCounter({ encoding: "o200k_base" }), { maxEntries: 50 });
    const texts = oneCharacterApart();
    const expected = texts.map((text) => plain.count(text));
    expect(new Set(expected).size).toBeGreaterThan(1); // a cache that confused them would be caught
    // Forwards, backwards and in batches: each count from the inner counter, from the cache, or both.
    texts.forEach((text, i) => expect(caching.count(text)).toBe(expected[i]));
    for (let i = texts.length - 1; i >= 0; i--) expect(caching.count(texts[i] as string)).toBe(expected[i]);
    expect(Array.from(caching.countMany(texts))).toEqual(expected);
    expect(Array.from(caching.countMany([...texts].reverse()))).toEqual([...expected].reverse());
    expect(caching.size).toBeLessThanOrEqual(50);
  });

  it("keeps each counter's counts to itself: the same texts under cl100k_base and o200k_base", () => {
    const text = "Gràcies! 这是一个测试。 ".repeat(40); // long: keyed by a sample
    const cl100k = getCounter("gpt-4");
    const o200k = getCounter("gpt-4o");
    const expected = [
      new TiktokenCounter({ encoding: "cl100k_base" }).count(text),
      new TiktokenCounter({ encoding: "o200k_base" }).count(text),
    ];
    expect(expected[0]).not.toBe(expected[1]);
    for (let round = 0; round < 2; round++) {
      expect([cl100k.count(text), o200k.count(text)]).toEqual(expected);
      expect([cl100k.countMany(["x", text])[1], o200k.countMany([text, "x"])[0]]).toEqual(expected);
    }
    expect([cl100k.hits, o200k.hits]).toEqual([4, 4]); // "x" new once, the text once
  });

  it("counts a batch's new texts in one call of the inner counter; repeats in the batch are hits", () => {
    const inner = new TiktokenCounter();
    const many = vi.spyOn(inner, "countMany");
    const caching = new CachingCounter(inner);
    const long = "a tool's long output line\n".repeat(30);
    caching.count("seen");
    const counts = caching.countMany(["seen", long, "new", long, "new"]);
    expect(Array.from(counts)).toEqual(["seen", long, "new", long, "new"].map((text) => inner.count(text)));
    expect(many).toHaveBeenCalledTimes(1);
    expect(many.mock.calls[0]?.[0]).toEqual([long, "new", long, "new"]);
    expect([caching.hits, caching.misses, caching.size]).toEqual([3, 3, 3]);
  });

  it("stays right while it grows, evicts and reuses its slots over many texts", () => {
    const plain = new TiktokenCounter();
    const caching = new CachingCounter(new TiktokenCounter(), { maxEntries: 300 });
    const texts = Array.from({ length: 1000 }, (_, i) => `${"line of a tool's output ".repeat(i % 7)}${i}`);
    const expected = texts.map((text) => plain.count(text));
    for (const order of [texts.keys(), [...texts.keys()].reverse(), Array.from(texts.keys(), (i) => (i * 379) % 1000)]) {
      for (const i of order) expect(caching.count(texts[i] as string)).toBe(expected[i]);
      expect(caching.size).toBe(300);
    }
    expect(caching.hits).toBeGreaterThan(0);
  });

  it("counts again, right, what it evicted or cleared", () => {
    const inner = new TiktokenCounter();
    const count = vi.spyOn(inner, "count");
    const caching = new CachingCounter(inner, { maxEntries: 3 });
    const texts = ["one", "x".repeat(100), "y".repeat(100), "z".repeat(101)];
    const expected = texts.map((text) => new TiktokenCounter().count(text));
    texts.forEach((text) => caching.count(text)); // "one" is evicted
    expect(caching.size).toBe(3);
    expect(caching.count("one")).toBe(expected[0]);
    expect(count).toHaveBeenCalledTimes(5);
    caching.clear();
    expect(caching.size).toBe(0);
    expect(texts.map((text) => caching.count(text))).toEqual(expected);
    expect(count).toHaveBeenCalledTimes(9);
  });

  it("gives a managed history the same per-message counts as its inner counter, a message's text added twice included", () => {
    const texts = oneCharacterApart();
    const messages = [...texts, ...texts.slice(0, 20)].map((content, i) => ({ role: i % 2 ? "assistant" : "user", content }));
    const totals = [getCounter("gpt-4o"), new TiktokenCounter({ model: "gpt-4o" })].map((counter) => {
      const cm = new MessageContextManager({ model: "gpt-4o", counter, compaction: { autoTruncate: false } });
      for (const message of messages) cm.addMessage(message);
      return [cm.tokenUsage, cm.getStats().messageCount];
    });
    expect(totals[0]).toEqual(totals[1]);
  });
});
