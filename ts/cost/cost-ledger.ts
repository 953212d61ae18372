// A session's prompt cost, request by request: what the provider's cache read, wrote and left
// uncached, in tokens and US dollars, beside two counterfactuals of the same session: every prompt
// token at the plain input price (no cache), and the conversation trimmed to a fixed target
// before every request (what an agent loop calling a trim function does), billed through the same
// cache model. The trimmed session is modelled, not replayed: it grows by what each request adds
// and, once over its target, is cut at its front, so it shares only its fixed part (system prompt,
// tools) with the request before.
import { defaultModelRegistry } from "../catalog/model-registry.js";
import { describe, quoted, rangeError, requireString, typeError } from "../runtime/errors.js";
import { cachePricesFor, cacheProviderOf, checkPrices, requestDollars, type CachePrices } from "./cache-prices.js";
import {
  anthropicMinimumPrefix,
  CACHE_PROVIDERS,
  ProviderCache,
  type AnthropicCacheTtl,
  type CachedRequest,
  type CacheProvider,
  type CacheUse,
} from "./provider-cache.js";

export interface CostOptions {
  /** Whose cache semantics to bill by; default: the catalog entry's provider ("none" for others). */
  provider?: CacheProvider;
  /** Anthropic: the life of a cache entry, which sets the write price (1.25x for "5m", 2x for "1h"). Default "5m". */
  ttl?: AnthropicCacheTtl;
  /** USD per million tokens; default: the catalog's prices for the model. */
  prices?: CachePrices;
  /** The smallest prefix the provider caches; default: the provider's documented figure for the model. */
  minimumPrefix?: number;
  /** The clock entries expire by (ms); default Date.now. */
  now?: () => number;
}

export interface RecordedRequest extends CachedRequest {
  /** Tokens at the request's front that no trim ever removes (system prompt, tools). */
  fixedTokens?: number;
  /** Tokens this request adds to the conversation since the previous one (default: what it does not share with it). */
  addedTokens?: number;
  /** The reply's tokens, when known. */
  outputTokens?: number;
}

export interface RequestCost extends CacheUse {
  inputTokens: number;
  outputTokens: number;
  /** At the prices, with the cache. */
  dollars: number;
  /** The same request with no cache. */
  noCacheDollars: number;
}

export interface SessionCost {
  requests: number;
  inputTokens: number;
  cachedTokens: number;
  writtenTokens: number;
  uncachedTokens: number;
  outputTokens: number;
  dollars: number;
  noCacheDollars: number;
  /** The same session trimmed to the target before every request, through the same cache. */
  trimEveryRequestDollars: number;
}

export interface CostStats {
  provider: CacheProvider;
  ttl: AnthropicCacheTtl;
  prices: CachePrices;
  /** The trim-before-every-request baseline's target, in prompt tokens. */
  trimTarget: number;
  /** The last requests (at most 100), oldest first. */
  requests: RequestCost[];
  session: SessionCost;
}

const KEPT_REQUESTS = 100;

/** Checks `options` and fills what the catalog knows; undefined prices when neither the options nor the catalog have them. */
function resolveOptions(model: string, options: CostOptions): Required<Omit<CostOptions, "prices">> & { prices: CachePrices | undefined } {
  if (options === null || typeof options !== "object") throw typeError(`options must be an object, got ${describe(options)}`);
  const provider = options.provider ?? cacheProviderOf(model);
  if (!CACHE_PROVIDERS.includes(provider))
    throw rangeError(`options.provider must be one of ${CACHE_PROVIDERS.join(", ")}, got ${describe(provider)}`);
  const ttl = options.ttl ?? "5m";
  if (ttl !== "5m" && ttl !== "1h") throw rangeError(`options.ttl must be "5m" or "1h", got ${describe(ttl)}`);
  if (options.now !== undefined && typeof options.now !== "function")
    throw typeError(`options.now must be a function, got ${describe(options.now)}`);
  const prices =
    options.prices !== undefined
      ? checkPrices(options.prices, "options.prices")
      : cachePricesFor(defaultModelRegistry.resolve(model)?.prices, provider, ttl);
  const minimumPrefix = options.minimumPrefix ?? (provider === "anthropic" ? anthropicMinimumPrefix(model) : 1024);
  return { provider, ttl, prices, minimumPrefix, now: options.now ?? Date.now };
}

export class CostLedger {
  readonly model: string;
  readonly provider: CacheProvider;
  readonly ttl: AnthropicCacheTtl;
  readonly prices: CachePrices;
  readonly trimTarget: number;
  private readonly now: () => number;
  private readonly cache: ProviderCache;
  private readonly trimmedCache: ProviderCache;
  private trimmedConversation = 0;
  private readonly recent: RequestCost[] = [];
  private readonly totals: SessionCost = {
    requests: 0,
    inputTokens: 0,
    cachedTokens: 0,
    writtenTokens: 0,
    uncachedTokens: 0,
    outputTokens: 0,
    dollars: 0,
    noCacheDollars: 0,
    trimEveryRequestDollars: 0,
  };

  /**
   * A ledger for `model`'s session. `trimTarget`: the prompt tokens the trim-before-every-request
   * baseline trims to. Throws ERR_CTXWIN_UNKNOWN_MODEL when the catalog has no prices for the
   * model and `options.prices` gives none.
   */
  constructor(model: string, trimTarget: number, options: CostOptions = {}) {
    this.model = requireString(model, "model");
    if (typeof trimTarget !== "number") throw typeError(`trimTarget must be a number, got ${describe(trimTarget)}`);
    if (!Number.isSafeInteger(trimTarget) || trimTarget < 1) throw rangeError(`trimTarget must be an integer >= 1, got ${trimTarget}`);
    const resolved = resolveOptions(model, options);
    if (resolved.prices === undefined)
      throw rangeError(`the catalog lists no prices for ${quoted(model)}: give options.prices`, "ERR_CTXWIN_UNKNOWN_MODEL");
    this.provider = resolved.provider;
    this.ttl = resolved.ttl;
    this.prices = resolved.prices;
    this.now = resolved.now;
    this.trimTarget = trimTarget;
    this.cache = new ProviderCache(resolved.provider, { ttl: resolved.ttl, minimumPrefix: resolved.minimumPrefix });
    this.trimmedCache = new ProviderCache(resolved.provider, { ttl: resolved.ttl, minimumPrefix: resolved.minimumPrefix });
  }

  /** Whether a ledger can price `model` (the catalog lists its prices, or `options.prices` is given). */
  static canPrice(model: string, options: CostOptions = {}): boolean {
    return resolveOptions(requireString(model, "model"), options).prices !== undefined;
  }

  /** Bills a request that is sent now; returns its cost. A bad request throws and changes nothing. */
  record(request: RecordedRequest): RequestCost {
    ProviderCache.check(request);
    const { inputTokens, sharedPrefixTokens } = request;
    const fixed = request.fixedTokens ?? 0;
    const added = request.addedTokens ?? inputTokens - sharedPrefixTokens;
    const output = request.outputTokens ?? 0;
    for (const [name, value, max] of [
      ["fixedTokens", fixed, inputTokens],
      ["addedTokens", added, inputTokens],
      ["outputTokens", output, Number.MAX_SAFE_INTEGER],
    ] as const) {
      if (typeof value !== "number") throw typeError(`request.${name} must be a number, got ${describe(value)}`);
      if (!Number.isSafeInteger(value) || value < 0 || value > max)
        throw rangeError(`request.${name} must be an integer in [0, ${max}], got ${value}`);
    }
    const at = request.at ?? this.now();
    const use = this.cache.serve({ ...request, at });
    const cost: RequestCost = {
      inputTokens,
      outputTokens: output,
      ...use,
      dollars: requestDollars(use, this.prices, output),
      noCacheDollars: requestDollars({ cachedTokens: 0, writtenTokens: 0, uncachedTokens: inputTokens }, this.prices, output),
    };
    this.recent.push(cost);
    if (this.recent.length > KEPT_REQUESTS) this.recent.shift();
    const t = this.totals;
    t.requests++;
    t.inputTokens += inputTokens;
    t.cachedTokens += use.cachedTokens;
    t.writtenTokens += use.writtenTokens;
    t.uncachedTokens += use.uncachedTokens;
    t.outputTokens += output;
    t.dollars += cost.dollars;
    t.noCacheDollars += cost.noCacheDollars;
    t.trimEveryRequestDollars += this.trimmedRequest(fixed, added, output, at);
    return cost;
  }

  /** The baseline's request: the conversation grown by `added`, cut at its front to the target when over it. */
  private trimmedRequest(fixed: number, added: number, output: number, at: number): number {
    const room = Math.max(0, this.trimTarget - fixed);
    const grown = this.trimmedConversation + added;
    const trimmed = grown > room;
    const shared = fixed + (trimmed ? 0 : this.trimmedConversation);
    this.trimmedConversation = Math.min(grown, room);
    const input = fixed + this.trimmedConversation;
    const use = this.trimmedCache.serve({
      inputTokens: input,
      sharedPrefixTokens: Math.min(shared, input),
      breakpoints: fixed > 0 && fixed < input ? [fixed, input] : [input],
      at,
    });
    return requestDollars(use, this.prices, output);
  }

  get stats(): CostStats {
    return {
      provider: this.provider,
      ttl: this.ttl,
      prices: { ...this.prices },
      trimTarget: this.trimTarget,
      requests: this.recent.map((r) => ({ ...r })),
      session: { ...this.totals },
    };
  }
}
