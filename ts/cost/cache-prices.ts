// The four prices of a prompt, in US dollars per million tokens (the catalog's unit): plain input,
// output, cache read and cache write. Where the catalog lists no cache price the provider's
// documented multiplier of the input price stands in: Anthropic reads at 0.1x and writes at
// 1.25x (5-minute entries) or 2x (1-hour entries); OpenAI reads at the model's cached-input price
// (half the input price where none is listed) and bills no write.
import { defaultModelRegistry } from "../catalog/model-registry.js";
import type { ModelPrices } from "../catalog/model-entry.js";
import { describe, rangeError, typeError } from "../runtime/errors.js";
import { CACHE_PROVIDERS, type AnthropicCacheTtl, type CacheProvider, type CacheUse } from "./provider-cache.js";

export interface CachePrices {
  /** USD per million uncached prompt tokens. */
  input: number;
  /** USD per million output tokens. */
  output: number;
  /** USD per million prompt tokens read from the cache. */
  cacheRead: number;
  /** USD per million prompt tokens written to the cache. */
  cacheWrite: number;
}

const PRICE_KEYS = ["input", "output", "cacheRead", "cacheWrite"] as const;

/** The provider whose cache semantics apply to a catalog entry (Claude on Bedrock or Vertex caches as Anthropic does). */
export function cacheProviderOf(model: string): CacheProvider {
  const entry = defaultModelRegistry.resolve(model);
  const id = `${entry?.provider ?? ""}/${entry?.id ?? model}`.toLowerCase();
  if (id.includes("anthropic") || id.includes("claude")) return "anthropic";
  if (/openai|azure|\/gpt-|\/o\d|\/chatgpt/.test(id)) return "openai";
  return "none";
}

/** Checks a caller's price list: four numbers >= 0 (USD per million tokens). */
export function checkPrices(prices: unknown, name: string): CachePrices {
  if (prices === null || typeof prices !== "object" || Array.isArray(prices))
    throw typeError(`${name} must be an object, got ${describe(prices)}`);
  const out: Partial<CachePrices> = {};
  for (const key of PRICE_KEYS) {
    const value = (prices as Record<string, unknown>)[key];
    if (typeof value !== "number") throw typeError(`${name}.${key} must be a number (USD per million tokens), got ${describe(value)}`);
    if (!Number.isFinite(value) || value < 0)
      throw rangeError(`${name}.${key} must be a price >= 0 (USD per million tokens), got ${value}`);
    out[key] = value;
  }
  return out as CachePrices;
}

/** The prices to bill a session with, from the catalog's entry and the provider's multipliers; undefined when the catalog lists none. */
export function cachePricesFor(
  catalogPrices: ModelPrices | undefined,
  provider: CacheProvider,
  ttl: AnthropicCacheTtl = "5m",
): CachePrices | undefined {
  if (!CACHE_PROVIDERS.includes(provider))
    throw rangeError(`provider must be one of ${CACHE_PROVIDERS.join(", ")}, got ${describe(provider)}`);
  if (ttl !== "5m" && ttl !== "1h") throw rangeError(`ttl must be "5m" or "1h", got ${describe(ttl)}`);
  if (catalogPrices === undefined) return undefined;
  if (catalogPrices === null || typeof catalogPrices !== "object")
    throw typeError(`catalogPrices must be the catalog's prices (an object) or undefined, got ${describe(catalogPrices)}`);
  for (const key of PRICE_KEYS) {
    const value = catalogPrices[key];
    if (value === undefined && (key === "cacheRead" || key === "cacheWrite")) continue;
    if (typeof value !== "number") throw typeError(`catalogPrices.${key} must be a number, got ${describe(value)}`);
    if (!Number.isFinite(value) || value < 0) throw rangeError(`catalogPrices.${key} must be a price >= 0, got ${value}`);
  }
  const { input, output } = catalogPrices;
  switch (provider) {
    case "anthropic":
      return {
        input,
        output,
        cacheRead: catalogPrices.cacheRead ?? input / 10,
        cacheWrite: ttl === "1h" ? input * 2 : (catalogPrices.cacheWrite ?? input * 1.25),
      };
    case "openai":
      return { input, output, cacheRead: catalogPrices.cacheRead ?? input * 0.5, cacheWrite: input };
    case "none":
      return { input, output, cacheRead: input, cacheWrite: input };
  }
}

/** What one request's prompt (and `outputTokens` of reply) costs at `prices`, in US dollars. */
export function requestDollars(use: CacheUse, prices: CachePrices, outputTokens = 0): number {
  if (use === null || typeof use !== "object") throw typeError(`use must be an object, got ${describe(use)}`);
  for (const [name, value] of [
    ["use.cachedTokens", use.cachedTokens],
    ["use.writtenTokens", use.writtenTokens],
    ["use.uncachedTokens", use.uncachedTokens],
    ["outputTokens", outputTokens],
  ] as const) {
    if (typeof value !== "number") throw typeError(`${name} must be a number, got ${describe(value)}`);
    if (!Number.isSafeInteger(value) || value < 0) throw rangeError(`${name} must be an integer >= 0, got ${value}`);
  }
  checkPrices(prices, "prices");
  return (
    (use.uncachedTokens * prices.input +
      use.cachedTokens * prices.cacheRead +
      use.writtenTokens * prices.cacheWrite +
      outputTokens * prices.output) /
    1e6
  );
}
