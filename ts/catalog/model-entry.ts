// What ctxwin knows of a model: the catalog entry (window, limits, prices) and how an id was
// matched to it. Built from the core's plain objects, frozen, so that a cached resolution can be
// handed to every caller.
import type { NativeCatalogModel, NativeModelResolution } from "../runtime/native.js";

/**
 * A model's prices as the catalog gives them: US dollars per million tokens (models.dev's unit).
 * A token costs `input / 1e6` dollars.
 */
export interface ModelPrices {
  readonly unit: "USD per 1M tokens";
  /** Prompt tokens. */
  readonly input: number;
  /** Generated tokens. */
  readonly output: number;
  /** Prompt tokens read from the provider's cache, where the catalog lists a price. */
  readonly cacheRead?: number;
  /** Prompt tokens written to the provider's cache, where the catalog lists a price. */
  readonly cacheWrite?: number;
}

/**
 * Where an entry comes from: `catalog`, the models.dev catalog ctxwin ships; `supplement`, a model
 * released after that snapshot, with the values models.dev lists; `compatibility`, a row of the
 * specification's ContextLimits table; `registered`, added at run time; `ollama`, a model of
 * Ollama's library named by its Ollama id (catalog/ollama-library.ts).
 */
export type ModelSource = "catalog" | "supplement" | "compatibility" | "registered" | "ollama";

/**
 * The rule that matched an id to its entry, from the most specific: a registered prefix `pattern`;
 * the provider's `exact` id; the same model `name` in another spelling; the same `family` without
 * (or with another) date; an open-weight model's `variant` without "-instruct"; an `alias` ctxwin
 * adds; the longest known model the id starts with (`prefix`, as "gpt-4o-mini-tts").
 */
export type ModelMatch = "pattern" | "exact" | "provider" | "name" | "family" | "variant" | "alias" | "prefix";

/** One model of the catalog. */
export interface ModelEntry {
  /** models.dev's provider id ("anthropic", "amazon-bedrock", ...). */
  readonly provider: string;
  readonly providerName: string;
  /** The provider's id of the model. */
  readonly id: string;
  /** Its display name. */
  readonly name: string;
  /** Tokens in and out that one request may hold. */
  readonly contextWindow: number;
  /** A separate limit on input tokens, where the provider states one. */
  readonly maxInput?: number;
  /** The provider's limit on output tokens, as given; 0 when none is published. */
  readonly maxOutput: number;
  /** Absent when the catalog lists no input and output price. */
  readonly prices?: ModelPrices;
  readonly releaseDate?: string;
  readonly openWeights: boolean;
  readonly source: ModelSource;
}

/** The entry an id resolved to, and how. */
export interface ResolvedModel extends ModelEntry {
  /** The id as it was asked for. */
  readonly requested: string;
  readonly match: ModelMatch;
  /**
   * "provider/id" of the entry whose prices these are, when it is not this one (a compatibility
   * row is priced by its maker's entry of the same model).
   */
  readonly pricesFrom?: string;
}

function pricesOf(model: NativeCatalogModel): ModelPrices | undefined {
  if (model.inputPrice < 0 && model.outputPrice < 0) return undefined;
  return {
    unit: "USD per 1M tokens",
    input: Math.max(0, model.inputPrice),
    output: Math.max(0, model.outputPrice),
    ...(model.cacheReadPrice >= 0 ? { cacheRead: model.cacheReadPrice } : {}),
    ...(model.cacheWritePrice >= 0 ? { cacheWrite: model.cacheWritePrice } : {}),
  };
}

function fieldsOf(model: NativeCatalogModel): ModelEntry {
  const prices = pricesOf(model);
  return {
    provider: model.provider,
    providerName: model.providerName,
    id: model.id,
    name: model.name,
    contextWindow: model.contextWindow,
    ...(model.maxInput > 0 ? { maxInput: model.maxInput } : {}),
    maxOutput: model.maxOutput,
    ...(prices ? { prices: Object.freeze(prices) } : {}),
    ...(model.releaseDate ? { releaseDate: model.releaseDate } : {}),
    openWeights: model.openWeights,
    source: model.source,
  };
}

export function modelEntryOf(model: NativeCatalogModel): ModelEntry {
  return Object.freeze(fieldsOf(model));
}

export function resolvedModelOf(requested: string, found: NativeModelResolution): ResolvedModel {
  return Object.freeze({
    requested,
    ...fieldsOf(found),
    match: found.match,
    ...(found.pricesFrom ? { pricesFrom: found.pricesFrom } : {}),
  });
}
