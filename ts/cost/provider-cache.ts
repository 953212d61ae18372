// What a provider's prompt cache does with one request, given the prefix it shares with the
// request before it: how many prompt tokens it reads from the cache, how many it writes to it and
// how many it processes uncached. Two semantics, as the providers document them:
//
// - Anthropic: explicit `cache_control` breakpoints. A request reads the longest prefix an earlier
//   request wrote at one of its breakpoints (still the same tokens, still alive), and writes the
//   tokens from there to its own last breakpoint. A prefix shorter than the model's minimum is
//   neither read nor written. An entry lives 5 minutes (or 1 hour) from its last use.
// - OpenAI: automatic. Prefixes of 1,024 tokens and more that an earlier request processed are
//   read in steps of 128 tokens; nothing is billed for writing.
//
// The shared prefix comes from ctxwin's accounting (the tokens of a request that the previous one
// had in the same places), so every entry kept here is a prefix of the last request: an entry
// longer than the shared prefix no longer matches and is dropped.
import { describe, rangeError, requireString, typeError } from "../runtime/errors.js";

export type CacheProvider = "anthropic" | "openai" | "none";
export type AnthropicCacheTtl = "5m" | "1h";

export const CACHE_PROVIDERS: readonly CacheProvider[] = ["anthropic", "openai", "none"];

/** The tokens of one request, split by what the provider's cache does with them. */
export interface CacheUse {
  /** Prompt tokens read from the cache. */
  cachedTokens: number;
  /** Prompt tokens written to the cache (billed at the write price; always 0 for OpenAI). */
  writtenTokens: number;
  /** Prompt tokens processed at the plain input price. */
  uncachedTokens: number;
}

export interface CachedRequest {
  /** The request's prompt tokens. */
  inputTokens: number;
  /** Its leading tokens that the previous request had in the same places (0 for the first). */
  sharedPrefixTokens: number;
  /** Anthropic: where its `cache_control` breakpoints end, in prompt tokens from the start. */
  breakpoints?: readonly number[];
  /** When it is sent (ms); entries older than their TTL are gone. Absent: no entry expires. */
  at?: number;
}

/** OpenAI's documented figures: caching starts at 1,024 prompt tokens and hits grow in 128-token steps. */
export const OPENAI_MINIMUM_PREFIX = 1024;
export const OPENAI_PREFIX_STEP = 128;
const TTL_MS: Record<AnthropicCacheTtl, number> = { "5m": 5 * 60_000, "1h": 60 * 60_000 };

/**
 * Anthropic's minimum cacheable prefix per model, as its prompt-caching page lists it: 4,096 for
 * Opus 4.5 / 4.6 and Haiku 4.5, 2,048 for Haiku 3 / 3.5, 1,024 for the Sonnets, Opus 4 / 4.1 and
 * the rest.
 */
export function anthropicMinimumPrefix(model: string): number {
  const id = requireString(model, "model").toLowerCase();
  if (/opus-4[-.]?[56]|haiku-4[-.]?5/.test(id)) return 4096;
  if (/haiku-3|3[-.]?5-haiku|3-haiku/.test(id)) return 2048;
  return 1024;
}

/** A session's view of one provider's prompt cache. */
export class ProviderCache {
  readonly provider: CacheProvider;
  readonly ttl: AnthropicCacheTtl;
  readonly minimumPrefix: number;
  /** Anthropic: prefix lengths written at breakpoints, and when each was last used. */
  private entries: Array<{ length: number; usedAt: number | undefined }> = [];
  private requests = 0;

  constructor(provider: CacheProvider, options: { ttl?: AnthropicCacheTtl; minimumPrefix?: number } = {}) {
    if (!CACHE_PROVIDERS.includes(provider))
      throw rangeError(`provider must be one of ${CACHE_PROVIDERS.join(", ")}, got ${describe(provider)}`);
    const ttl = options.ttl ?? "5m";
    if (ttl !== "5m" && ttl !== "1h") throw rangeError(`options.ttl must be "5m" or "1h", got ${describe(ttl)}`);
    const minimum = options.minimumPrefix ?? (provider === "openai" ? OPENAI_MINIMUM_PREFIX : 1024);
    if (typeof minimum !== "number") throw typeError(`options.minimumPrefix must be a number, got ${describe(minimum)}`);
    if (!Number.isSafeInteger(minimum) || minimum < 1) throw rangeError(`options.minimumPrefix must be an integer >= 1, got ${minimum}`);
    this.provider = provider;
    this.ttl = ttl;
    this.minimumPrefix = minimum;
  }

  /** Checks `request` whole before anything changes. */
  static check(request: CachedRequest): void {
    if (request === null || typeof request !== "object") throw typeError(`request must be an object, got ${describe(request)}`);
    const { inputTokens, sharedPrefixTokens, breakpoints, at } = request;
    for (const [name, value] of [
      ["inputTokens", inputTokens],
      ["sharedPrefixTokens", sharedPrefixTokens],
    ] as const) {
      if (typeof value !== "number") throw typeError(`request.${name} must be a number, got ${describe(value)}`);
      if (!Number.isSafeInteger(value) || value < 0) throw rangeError(`request.${name} must be an integer >= 0, got ${value}`);
    }
    if (sharedPrefixTokens > inputTokens)
      throw rangeError(`request.sharedPrefixTokens (${sharedPrefixTokens}) must be at most request.inputTokens (${inputTokens})`);
    if (breakpoints !== undefined) {
      if (!Array.isArray(breakpoints)) throw typeError(`request.breakpoints must be an array, got ${describe(breakpoints)}`);
      if (breakpoints.length > 4)
        throw rangeError(`request.breakpoints holds at most 4 breakpoints (Anthropic's limit), got ${breakpoints.length}`);
      breakpoints.forEach((b: unknown, i) => {
        if (typeof b !== "number") throw typeError(`request.breakpoints[${i}] must be a number, got ${describe(b)}`);
        if (!Number.isSafeInteger(b) || b < 0 || b > inputTokens)
          throw rangeError(`request.breakpoints[${i}] must be an integer in [0, ${inputTokens}], got ${b}`);
      });
    }
    if (at !== undefined && (typeof at !== "number" || !Number.isFinite(at)))
      throw typeError(`request.at must be a finite number (ms), got ${describe(at)}`);
  }

  /** What the cache does with `request`, which is then sent: the cache's state moves on. */
  serve(request: CachedRequest): CacheUse {
    ProviderCache.check(request);
    const { inputTokens, sharedPrefixTokens, at } = request;
    const first = this.requests++ === 0;
    const shared = first ? 0 : sharedPrefixTokens;
    switch (this.provider) {
      case "none":
        return { cachedTokens: 0, writtenTokens: 0, uncachedTokens: inputTokens };
      case "openai": {
        // Every prefix of the previous request was processed, so what it shares with this one is
        // cached, in whole steps from the minimum up.
        const cached = shared >= this.minimumPrefix ? Math.floor(shared / OPENAI_PREFIX_STEP) * OPENAI_PREFIX_STEP : 0;
        return { cachedTokens: cached, writtenTokens: 0, uncachedTokens: inputTokens - cached };
      }
      case "anthropic":
        return this.serveAnthropic(inputTokens, shared, request.breakpoints ?? [inputTokens], at);
    }
  }

  private serveAnthropic(inputTokens: number, shared: number, breakpoints: readonly number[], at: number | undefined): CacheUse {
    const ttl = TTL_MS[this.ttl];
    this.entries = this.entries.filter((e) => e.length <= shared && (at === undefined || e.usedAt === undefined || at - e.usedAt <= ttl));
    let cached = 0;
    for (const entry of this.entries) cached = Math.max(cached, entry.length);
    for (const entry of this.entries) if (entry.length === cached) entry.usedAt = at; // a hit refreshes its entry's life
    let end = cached;
    for (const b of breakpoints) {
      if (b < this.minimumPrefix || b <= cached) continue;
      end = Math.max(end, b);
      if (!this.entries.some((e) => e.length === b)) this.entries.push({ length: b, usedAt: at });
    }
    return { cachedTokens: cached, writtenTokens: end - cached, uncachedTokens: inputTokens - end };
  }
}
