// The provider cache models and the dollars they bill, through the public API: the documented
// semantics request by request, and the invariants every request keeps (cached + written +
// uncached = input; dollars never fall when a price rises).
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  CompactionTiming,
  CostLedger,
  ProviderCache,
  anthropicMinimumPrefix,
  cachePricesFor,
  requestDollars,
  type CacheProvider,
} from "ctxwin/cost";

const PROVIDERS: CacheProvider[] = ["anthropic", "openai", "none"];

/** A session: each request grows the last by `grow` tokens, or is cut at `cut` (an edit) first. */
const requests = fc.array(
  fc.record({
    grow: fc.integer({ min: 0, max: 5000 }),
    cut: fc.option(fc.integer({ min: 0, max: 20_000 })),
    gapMs: fc.integer({ min: 0, max: 2 * 3600_000 }),
  }),
  { minLength: 1, maxLength: 40 },
);

function replay(cache: ProviderCache, steps: Array<{ grow: number; cut: number | null; gapMs: number }>) {
  let previous = 0;
  let at = 0;
  return steps.map(({ grow, cut, gapMs }) => {
    const shared = cut === null ? previous : Math.min(previous, cut);
    const input = shared + grow;
    at += gapMs;
    const use = cache.serve({
      inputTokens: input,
      sharedPrefixTokens: shared,
      breakpoints: input > 0 ? [Math.floor(input / 2), input] : [],
      at,
    });
    previous = input;
    return { input, shared, use };
  });
}

describe("ProviderCache", () => {
  it("splits every request into cached + written + uncached = input, reading no more than the shared prefix", () => {
    fc.assert(
      fc.property(fc.constantFrom(...PROVIDERS), fc.constantFrom<"5m" | "1h">("5m", "1h"), requests, (provider, ttl, steps) => {
        for (const { input, shared, use } of replay(new ProviderCache(provider, { ttl }), steps)) {
          expect(use.cachedTokens + use.writtenTokens + use.uncachedTokens).toBe(input);
          expect(use.cachedTokens).toBeLessThanOrEqual(shared);
          for (const v of Object.values(use)) expect(v).toBeGreaterThanOrEqual(0);
          if (provider !== "anthropic") expect(use.writtenTokens).toBe(0);
        }
      }),
    );
  });

  it("OpenAI: caches prefixes from 1,024 tokens in 128-token steps, writes nothing", () => {
    const cache = new ProviderCache("openai");
    expect(cache.serve({ inputTokens: 5000, sharedPrefixTokens: 0 })).toEqual({ cachedTokens: 0, writtenTokens: 0, uncachedTokens: 5000 });
    expect(cache.serve({ inputTokens: 5100, sharedPrefixTokens: 1023 })).toEqual({
      cachedTokens: 0,
      writtenTokens: 0,
      uncachedTokens: 5100,
    });
    expect(cache.serve({ inputTokens: 5100, sharedPrefixTokens: 1024 })).toEqual({
      cachedTokens: 1024,
      writtenTokens: 0,
      uncachedTokens: 4076,
    });
    expect(cache.serve({ inputTokens: 6000, sharedPrefixTokens: 5100 })).toEqual({
      cachedTokens: 5120 - 128,
      writtenTokens: 0,
      uncachedTokens: 6000 - 4992,
    });
  });

  it("Anthropic: writes up to the last breakpoint, reads the longest entry still a prefix, forgets it after its TTL", () => {
    const cache = new ProviderCache("anthropic", { ttl: "5m", minimumPrefix: 1024 });
    // First request: nothing to read; the breakpoints at 2,000 and 5,000 are written.
    expect(cache.serve({ inputTokens: 5000, sharedPrefixTokens: 0, breakpoints: [2000, 5000], at: 0 })).toEqual({
      cachedTokens: 0,
      writtenTokens: 5000,
      uncachedTokens: 0,
    });
    // Grows at its end: reads 5,000, writes the new 1,000.
    expect(cache.serve({ inputTokens: 6000, sharedPrefixTokens: 5000, breakpoints: [2000, 6000], at: 60_000 })).toEqual({
      cachedTokens: 5000,
      writtenTokens: 1000,
      uncachedTokens: 0,
    });
    // An edit at 3,000: the entry at 2,000 is the longest left.
    expect(cache.serve({ inputTokens: 4000, sharedPrefixTokens: 3000, breakpoints: [2000, 4000], at: 120_000 })).toEqual({
      cachedTokens: 2000,
      writtenTokens: 2000,
      uncachedTokens: 0,
    });
    // Six minutes idle: every 5-minute entry is gone.
    expect(cache.serve({ inputTokens: 4100, sharedPrefixTokens: 4000, breakpoints: [4100], at: 120_000 + 6 * 60_000 })).toEqual({
      cachedTokens: 0,
      writtenTokens: 4100,
      uncachedTokens: 0,
    });
    // Below the minimum, nothing is written.
    expect(new ProviderCache("anthropic").serve({ inputTokens: 900, sharedPrefixTokens: 0, breakpoints: [900] })).toEqual({
      cachedTokens: 0,
      writtenTokens: 0,
      uncachedTokens: 900,
    });
  });

  it("knows each Claude model's minimum cacheable prefix", () => {
    expect(anthropicMinimumPrefix("claude-sonnet-4-5")).toBe(1024);
    expect(anthropicMinimumPrefix("claude-opus-4-5")).toBe(4096);
    expect(anthropicMinimumPrefix("claude-haiku-4-5")).toBe(4096);
    expect(anthropicMinimumPrefix("claude-3-5-haiku-latest")).toBe(2048);
  });

  it("rejects bad input with a coded error and keeps its state", () => {
    const cache = new ProviderCache("anthropic");
    cache.serve({ inputTokens: 3000, sharedPrefixTokens: 0 });
    const bad: unknown[] = [
      null,
      { inputTokens: "1", sharedPrefixTokens: 0 },
      { inputTokens: 10, sharedPrefixTokens: 11 },
      { inputTokens: -1, sharedPrefixTokens: 0 },
      { inputTokens: 10, sharedPrefixTokens: 0, breakpoints: [1, 2, 3, 4, 5] },
      { inputTokens: 10, sharedPrefixTokens: 0, breakpoints: [11] },
      { inputTokens: 10, sharedPrefixTokens: 0, breakpoints: "x" },
      { inputTokens: 10, sharedPrefixTokens: 0, at: Number.NaN },
    ];
    for (const request of bad) {
      let error: unknown;
      try {
        cache.serve(request as never);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(Error);
      expect(error instanceof TypeError || error instanceof RangeError).toBe(true);
      expect((error as { code?: string }).code).toMatch(/^ERR_CTXWIN_/);
    }
    // The entry written before the bad calls still serves the next request.
    expect(cache.serve({ inputTokens: 3100, sharedPrefixTokens: 3000 }).cachedTokens).toBe(3000);
    expect(() => new ProviderCache("gemini" as never)).toThrow(expect.objectContaining({ code: "ERR_CTXWIN_OUT_OF_RANGE" }));
    expect(() => new ProviderCache("anthropic", { ttl: "2h" as never })).toThrow(RangeError);
    expect(() => new ProviderCache("anthropic", { minimumPrefix: 0 })).toThrow(RangeError);
  });
});

describe("prices", () => {
  it("fills cache prices from the providers' multipliers where the catalog lists none", () => {
    expect(cachePricesFor({ unit: "USD per 1M tokens", input: 3, output: 15 }, "anthropic")).toEqual({
      input: 3,
      output: 15,
      cacheRead: 0.3,
      cacheWrite: 3.75,
    });
    expect(cachePricesFor({ unit: "USD per 1M tokens", input: 3, output: 15 }, "anthropic", "1h")).toEqual({
      input: 3,
      output: 15,
      cacheRead: 0.3,
      cacheWrite: 6,
    });
    expect(cachePricesFor({ unit: "USD per 1M tokens", input: 2.5, output: 10, cacheRead: 1.25 }, "openai")).toEqual({
      input: 2.5,
      output: 10,
      cacheRead: 1.25,
      cacheWrite: 2.5,
    });
    expect(cachePricesFor(undefined, "openai")).toBeUndefined();
  });

  it("dollars never fall when a price rises", () => {
    const price = fc.double({ min: 0, max: 100, noNaN: true });
    fc.assert(
      fc.property(
        fc.nat(1e7),
        fc.nat(1e7),
        fc.nat(1e7),
        fc.nat(1e6),
        fc.record({ input: price, output: price, cacheRead: price, cacheWrite: price }),
        fc.constantFrom("input", "output", "cacheRead", "cacheWrite" as const),
        price,
        (cached, written, uncached, output, p, key, more) => {
          const use = { cachedTokens: cached, writtenTokens: written, uncachedTokens: uncached };
          expect(requestDollars(use, { ...p, [key]: p[key] + more }, output)).toBeGreaterThanOrEqual(requestDollars(use, p, output));
        },
      ),
    );
  });
});

describe("CostLedger", () => {
  it("bills a session with the catalog's Claude Sonnet prices, beside no cache and a trim before every request", () => {
    const ledger = new CostLedger("claude-sonnet-4-5", 20_000, { now: () => 0 });
    expect(ledger.provider).toBe("anthropic");
    let previous = 0;
    for (let i = 0; i < 30; i++) {
      const input = 2000 + i * 1500;
      const cost = ledger.record({ inputTokens: input, sharedPrefixTokens: previous, fixedTokens: 2000, breakpoints: [2000, input] });
      expect(cost.cachedTokens + cost.writtenTokens + cost.uncachedTokens).toBe(input);
      expect(cost.dollars).toBeCloseTo(requestDollars(cost, ledger.prices), 12);
      previous = input;
    }
    const { session, requests } = ledger.stats;
    expect(session.requests).toBe(30);
    expect(requests).toHaveLength(30);
    expect(session.cachedTokens + session.writtenTokens + session.uncachedTokens).toBe(session.inputTokens);
    // A conversation that only grows is read from the cache: far cheaper than no cache.
    expect(session.dollars).toBeLessThan(session.noCacheDollars / 3);
    // The trimmed baseline sends fewer tokens but re-writes its cut prefix every request once full.
    expect(session.trimEveryRequestDollars).toBeGreaterThan(0);
  });

  it("refuses a model it cannot price, and bad requests, with coded errors and nothing changed", () => {
    expect(() => new CostLedger("no-such-model-xyz", 1000)).toThrow(expect.objectContaining({ code: "ERR_CTXWIN_UNKNOWN_MODEL" }));
    expect(() => new CostLedger("gpt-4o", 0)).toThrow(RangeError);
    expect(() => new CostLedger("gpt-4o", 1000, { prices: { input: -1, output: 1, cacheRead: 1, cacheWrite: 1 } })).toThrow(
      expect.objectContaining({ code: "ERR_CTXWIN_OUT_OF_RANGE" }),
    );
    expect(() => new CostLedger("gpt-4o", 1000, { provider: "x" as never })).toThrow(RangeError);
    const ledger = new CostLedger("gpt-4o", 1000);
    ledger.record({ inputTokens: 2000, sharedPrefixTokens: 0 });
    const before = ledger.stats;
    expect(() => ledger.record({ inputTokens: 100, sharedPrefixTokens: 0, fixedTokens: 200 })).toThrow(RangeError);
    expect(() => ledger.record({ inputTokens: 100, sharedPrefixTokens: 0, outputTokens: 1.5 })).toThrow(RangeError);
    expect(() => ledger.record({ inputTokens: 100, sharedPrefixTokens: 0, addedTokens: "3" as never })).toThrow(TypeError);
    expect(ledger.stats).toEqual(before);
    expect(CostLedger.canPrice("no-such-model-xyz")).toBe(false);
    expect(CostLedger.canPrice("gpt-4o")).toBe(true);
  });
});

describe("bad input to the price and timing functions", () => {
  const use = { cachedTokens: 1, writtenTokens: 2, uncachedTokens: 3 };
  const prices = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
  const rows: Array<[string, () => unknown, "TypeError" | "RangeError"]> = [
    ["requestDollars: use null", () => requestDollars(null as never, prices), "TypeError"],
    ["requestDollars: NaN tokens", () => requestDollars({ ...use, cachedTokens: Number.NaN }, prices), "RangeError"],
    ["requestDollars: negative output", () => requestDollars(use, prices, -1), "RangeError"],
    ["requestDollars: a price missing", () => requestDollars(use, { input: 1 } as never), "TypeError"],
    ["requestDollars: an infinite price", () => requestDollars(use, { ...prices, input: Number.POSITIVE_INFINITY }), "RangeError"],
    ["cachePricesFor: unknown provider", () => cachePricesFor(undefined, "bedrock" as never), "RangeError"],
    ["cachePricesFor: bad ttl", () => cachePricesFor(undefined, "anthropic", "1d" as never), "RangeError"],
    ["cachePricesFor: prices a string", () => cachePricesFor("3" as never, "openai"), "TypeError"],
    ["cachePricesFor: negative input", () => cachePricesFor({ unit: "USD per 1M tokens", input: -3, output: 1 }, "openai"), "RangeError"],
    ["anthropicMinimumPrefix: a number", () => anthropicMinimumPrefix(4 as never), "TypeError"],
    ["CompactionTiming: unknown provider", () => new CompactionTiming("x" as never, prices), "RangeError"],
    ["CompactionTiming: prices missing", () => new CompactionTiming("openai", {} as never), "TypeError"],
  ];
  for (const [name, call, kind] of rows) {
    it(name, () => {
      let error: unknown;
      try {
        call();
      } catch (e) {
        error = e;
      }
      expect((error as Error)?.name).toBe(kind);
      expect((error as { code?: string }).code).toMatch(/^ERR_CTXWIN_/);
    });
  }

  it("CompactionTiming refuses bad observations and lines, and keeps what it learned", () => {
    const timing = new CompactionTiming("openai", prices);
    timing.observe(500, 10_000, false);
    expect(() => timing.observe(-1, 10, false)).toThrow(RangeError);
    expect(() => timing.observe(1.5, 10, false)).toThrow(RangeError);
    expect(() => timing.observe(1, 10, "yes" as never)).toThrow(TypeError);
    expect(() => timing.trimLine(1000, 2000, 800)).toThrow(RangeError);
    expect(() => timing.trimLine(Number.NaN, 0, 0)).toThrow(RangeError);
    expect(timing.growth).toBe(500);
  });
});
