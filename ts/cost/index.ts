// Cost: what each request costs in US dollars through the provider's prompt cache (Anthropic's
// explicit breakpoints, OpenAI's automatic prefixes), beside the same session with no cache and
// trimmed before every request; the cache hints that make providers cache what ctxwin keeps
// stable (Anthropic `cache_control` breakpoints and `context_management`, OpenAI
// `prompt_cache_key`); and the policy that times compaction by what it saves against the cache
// it breaks.
export {
  ProviderCache,
  anthropicMinimumPrefix,
  type CacheProvider,
  type AnthropicCacheTtl,
  type CacheUse,
  type CachedRequest,
} from "./provider-cache.js";
export { cachePricesFor, requestDollars, type CachePrices } from "./cache-prices.js";
export { CostLedger, type CostOptions, type CostStats, type RequestCost, type SessionCost, type RecordedRequest } from "./cost-ledger.js";
export {
  anthropicCacheControl,
  MAX_ANTHROPIC_BREAKPOINTS,
  type AnthropicCacheControl,
  type AnthropicCacheHintOptions,
  type AnthropicRequestBody,
} from "./anthropic-cache-hints.js";
export {
  anthropicContextManagement,
  anthropicServerClearing,
  type AnthropicContextManagement,
  type ClearToolUsesEdit,
  type ContextManagementPolicy,
  type ServerClearing,
} from "./anthropic-context-management.js";
export { openAIPromptCacheKey } from "./openai-cache-hints.js";
export { CompactionTiming, type CompactionTimingMode } from "./compaction-timing.js";
