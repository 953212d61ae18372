// When a trim (or compaction) pays, through a prompt cache. A trim at H tokens down to S makes
// the next request rewrite its S-token prefix (written at w, Anthropic's write price, or at the
// input price where the provider bills no write) instead of reading it (at r); every request
// after it reads S + a few turns instead of H + a few turns. Over a cycle of n = (H - S) / g
// requests, g tokens added per request, the prompt cost per request is about
//
//     S·w·g / (H − S)  +  r·(S + H) / 2  +  g·w
//
// (the rewrite spread over the cycle, the average cached prefix, the new tokens). With S fixed
// (trimTo: what must be kept), that is least at H − S = sqrt(2·S·w·g / r), the economic order
// quantity of inventory theory: the cache's write price plays the order cost, its read price the
// holding cost. Anthropic's prices (w = 12.5 r) put H past the window for any usual S and g, so
// the manager waits until the request must shrink and then frees all the room at once; OpenAI's
// (w = 2 r for GPT-4o) put H a little above the usual trimAt. H is kept within one request's
// growth of the window, and never below trimTo plus one request's growth.
import { describe, rangeError, requireCount, typeError } from "../runtime/errors.js";
import { checkPrices, type CachePrices } from "./cache-prices.js";
import { CACHE_PROVIDERS, type CacheProvider } from "./provider-cache.js";

export class CompactionTiming {
  private requests = 0;
  private addedTokens = 0;
  /** The size of the last request sent right after a cut: what a trim actually leaves (S). */
  private afterCut: number | undefined;

  private readonly provider: CacheProvider;
  private readonly prices: CachePrices;

  constructor(provider: CacheProvider, prices: CachePrices) {
    if (!CACHE_PROVIDERS.includes(provider))
      throw rangeError(`provider must be one of ${CACHE_PROVIDERS.join(", ")}, got ${describe(provider)}`);
    this.provider = provider;
    this.prices = checkPrices(prices, "prices");
  }

  /**
   * A request was sent: `added` tokens it adds to the conversation (its part not shared with the
   * one before), `total` its tokens, `cut` whether an edit broke the prefix it shared with the one
   * before (a trim or compaction: its size is what a cut leaves, and its added part is a rewrite,
   * not growth).
   */
  observe(added: number, total: number, cut: boolean): void {
    requireCount(added, "added");
    requireCount(total, "total");
    if (typeof cut !== "boolean") throw typeError(`cut must be a boolean, got ${describe(cut)}`);
    if (cut) {
      this.afterCut = total;
      return;
    }
    this.requests++;
    this.addedTokens += added;
  }

  /** Tokens added per request so far (0 before the first). */
  get growth(): number {
    return this.requests === 0 ? 0 : this.addedTokens / this.requests;
  }

  /**
   * The usage (tokens) above which a trim pays, for a window of `limitTokens` and a trim target of
   * `targetTokens`; `fallbackTokens` (the manager's trimAt) until a request has shown the growth,
   * and where no cache makes the timing matter. S is what the last cut left (the target before
   * any): strategies often keep less than the target, and a smaller rewrite pays back sooner. The
   * line stays above the target (a trim below its target removes nothing) and one request's growth
   * below the window.
   */
  trimLine(limitTokens: number, targetTokens: number, fallbackTokens: number): number {
    for (const [name, value] of [
      ["limitTokens", limitTokens],
      ["targetTokens", targetTokens],
      ["fallbackTokens", fallbackTokens],
    ] as const) {
      if (typeof value !== "number") throw typeError(`${name} must be a number, got ${describe(value)}`);
      if (!Number.isFinite(value) || value < 0) throw rangeError(`${name} must be a finite number >= 0, got ${value}`);
    }
    if (targetTokens > limitTokens) throw rangeError(`targetTokens (${targetTokens}) must be at most limitTokens (${limitTokens})`);
    const g = this.growth;
    const write = this.provider === "anthropic" ? this.prices.cacheWrite : this.prices.input;
    const read = this.prices.cacheRead;
    if (this.provider === "none" || g <= 0 || read >= write) return fallbackTokens;
    const kept = Math.min(this.afterCut ?? targetTokens, targetTokens);
    const best = read === 0 ? Number.POSITIVE_INFINITY : kept + Math.sqrt((2 * kept * write * g) / read);
    return Math.max(targetTokens + g, Math.min(best, limitTokens - g));
  }
}

/** The manager's `compactionTiming` option: "threshold" (trim at trimAt, the default) or "cache-aware". */
export type CompactionTimingMode = "threshold" | "cache-aware";

export function checkTimingMode(value: unknown): CompactionTimingMode {
  if (value === undefined) return "threshold";
  if (typeof value !== "string") throw typeError(`options.compactionTiming must be a string, got ${describe(value)}`);
  if (value !== "threshold" && value !== "cache-aware")
    throw rangeError(`options.compactionTiming must be "threshold" or "cache-aware", got ${describe(value)}`);
  return value;
}
