// `ctxwin inspect`'s cost: what the inspected request costs at the catalog's prices, through the
// model's provider's prompt cache: sent cold (nothing cached: Anthropic writes it), sent again
// with its prefix cached (the next turn of a loop, which reads it), and the first request after
// the next trim (which rewrites what the trim keeps, beyond the system prompt and tools).
import { defaultModelRegistry } from "../catalog/model-registry.js";
import { cachePricesFor, cacheProviderOf, requestDollars, type CachePrices } from "../cost/cache-prices.js";
import { anthropicMinimumPrefix, ProviderCache, type CacheProvider, type CacheUse } from "../cost/provider-cache.js";

export interface RequestCostView extends CacheUse {
  inputTokens: number;
  dollars: number;
}

export interface CostView {
  provider: CacheProvider;
  /** USD per million tokens. */
  prices: CachePrices;
  noCache: RequestCostView;
  cold: RequestCostView;
  warm: RequestCostView;
  /** The first request after the next trim, when one is due. */
  afterTrim?: RequestCostView;
}

/** The cost of a request of `total` tokens whose first `fixed` (system prompt, tools) no trim changes; undefined when the catalog has no prices for `model`. */
export function costView(model: string, total: number, fixed: number, tokensAfterTrim: number | undefined): CostView | undefined {
  const provider = cacheProviderOf(model);
  const prices = cachePricesFor(defaultModelRegistry.resolve(model)?.prices, provider);
  if (prices === undefined) return undefined;
  const minimumPrefix = provider === "anthropic" ? anthropicMinimumPrefix(model) : 1024;
  const breakpoints = (end: number) => [...new Set([Math.min(fixed, end), end])].filter((b) => b > 0);
  const view = (use: CacheUse, inputTokens: number): RequestCostView => ({ inputTokens, ...use, dollars: requestDollars(use, prices) });
  const cache = new ProviderCache(provider, { minimumPrefix });
  const cold = view(cache.serve({ inputTokens: total, sharedPrefixTokens: 0, breakpoints: breakpoints(total) }), total);
  const warm = view(cache.serve({ inputTokens: total, sharedPrefixTokens: total, breakpoints: breakpoints(total) }), total);
  const afterTrim =
    tokensAfterTrim === undefined
      ? undefined
      : view(
          cache.serve({
            inputTokens: tokensAfterTrim,
            sharedPrefixTokens: Math.min(fixed, tokensAfterTrim),
            breakpoints: breakpoints(tokensAfterTrim),
          }),
          tokensAfterTrim,
        );
  return {
    provider,
    prices,
    noCache: view({ cachedTokens: 0, writtenTokens: 0, uncachedTokens: total }, total),
    cold,
    warm,
    ...(afterTrim ? { afterTrim } : {}),
  };
}

const usd = (x: number) => (x < 0.01 ? `$${x.toFixed(4)}` : `$${x.toFixed(3)}`);

/** The cost section of the text view. */
export function renderCost(cost: CostView, bold: (s: string) => string, num: (n: number) => string): string[] {
  const { prices } = cost;
  const lines = [
    bold(
      `Cost per request (${cost.provider === "none" ? "no prompt cache modelled" : `${cost.provider} prompt cache`}; USD per 1M tokens: input ${prices.input}, cache read ${prices.cacheRead}, cache write ${prices.cacheWrite})`,
    ),
  ];
  const row = (name: string, r: RequestCostView) =>
    `  ${name.padEnd(26)}${usd(r.dollars).padStart(10)}   ${num(r.cachedTokens)} cached, ${num(r.writtenTokens)} written, ${num(r.uncachedTokens)} uncached`;
  lines.push(row("no cache", cost.noCache), row("cold (first send)", cost.cold), row("warm (prefix cached)", cost.warm));
  if (cost.afterTrim) lines.push(row("after the next trim", cost.afterTrim));
  return lines;
}
