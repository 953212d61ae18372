// Context limits of a model (seed 001/003 ContextLimits; seed 004's context window configuration).
import { describe, rangeError, requireCount, requireString, typeError } from "../runtime/errors.js";
import { consoleLogger, type Logger } from "../runtime/logger.js";
import { native } from "../runtime/native.js";

/** The share of the window reserved for the response when the model publishes no output limit (seed 004). */
export const DEFAULT_RESPONSE_SHARE = 0.2;
/** Seed 003's `reserved_tokens` default. */
export const DEFAULT_RESERVED_TOKENS = 1000;
/** The window assumed for a model nobody knows (with a warning). */
export const DEFAULT_CONTEXT_WINDOW = 128000;

/** A model's description in the shapes other tools write it. */
export interface ModelConfig {
  /** Its context window. Also read from `context_length`, `contextWindow`, `max_input_tokens`. */
  contextLength?: number;
  context_length?: number;
  contextWindow?: number;
  max_input_tokens?: number;
  /** Its output limit. Also read from `max_completion_tokens`, `max_output_tokens`, `maxCompletionTokens`. */
  maxOutputTokens?: number;
  max_completion_tokens?: number;
  max_output_tokens?: number;
  maxCompletionTokens?: number;
}

export interface LimitOverrides extends ModelConfig {
  /** A cap on the window, clamped to the model's hard limit. */
  maxTokens?: number;
  /** Tokens kept free besides the response (default 1000). */
  reservedTokens?: number;
}

export interface ContextLimitsInit {
  model: string;
  maxTokens: number;
  maxOutputTokens: number;
  reservedTokens?: number;
}

function firstDefined(config: Record<string, unknown>, keys: string[], prefix: string): number | undefined {
  for (const key of keys) if (config[key] !== undefined) return requireCount(config[key], `${prefix}.${key}`, key.startsWith("max_input") || key.startsWith("context") ? 1 : 0);
  return undefined;
}

const WINDOW_KEYS = ["contextLength", "context_length", "contextWindow", "max_input_tokens"];
const OUTPUT_KEYS = ["maxOutputTokens", "max_completion_tokens", "max_output_tokens", "maxCompletionTokens"];

/** One row of a model listing: a table key and its limits as published (0 output: none published). */
export interface ModelEntry {
  model: string;
  contextWindow: number;
  maxOutput: number;
  /** "registered" for a model a caller added, "builtin" for the core's table. */
  source: "registered" | "builtin";
}

/** Models a caller added; checked before the built-in table. */
export class ModelRegistry {
  private readonly models = new Map<string, { contextWindow: number; maxOutput: number }>();

  /**
   * Every model this registry knows: the registered ones (by normalized id) first, then the core's
   * built-in table in its order, without the built-in rows a registered model shadows.
   */
  list(): ModelEntry[] {
    const own: ModelEntry[] = [...this.models].map(([model, l]) => ({ model, ...l, source: "registered" }));
    const builtin: ModelEntry[] = native
      .listModelLimits()
      .filter((row) => !this.models.has(row.key))
      .map((row) => ({ model: row.key, contextWindow: row.contextWindow, maxOutput: row.maxOutput, source: "builtin" }));
    return [...own, ...builtin];
  }

  /** Adds (or replaces) a model under its normalized id (`Acme/My-Model` and `my-model` are one). */
  register(model: string, config: ModelConfig): void {
    requireString(model, "model");
    if (config === null || typeof config !== "object") throw typeError(`config must be an object, got ${describe(config)}`);
    const window = firstDefined(config as Record<string, unknown>, WINDOW_KEYS, "config");
    if (window === undefined) throw typeError("config must give the context window as contextLength (or context_length, contextWindow, max_input_tokens)");
    const output = firstDefined(config as Record<string, unknown>, OUTPUT_KEYS, "config") ?? 0;
    if (output >= window) throw rangeError(`config: the output limit (${output}) must be below the context window (${window})`);
    this.models.set(native.normalizeModelId(model), { contextWindow: window, maxOutput: output });
  }

  lookup(model: string): { contextWindow: number; maxOutput: number; known: boolean } {
    const own = this.models.get(native.normalizeModelId(model));
    if (own) return { ...own, known: true };
    const builtin = native.findModelLimits(model);
    return builtin ? { contextWindow: builtin.contextWindow, maxOutput: builtin.maxOutput, known: true } : { contextWindow: DEFAULT_CONTEXT_WINDOW, maxOutput: 0, known: false };
  }
}

/** The registry `ContextLimits.forModel` uses unless given another. */
export const defaultModelRegistry = new ModelRegistry();

export class ContextLimits {
  readonly model: string;
  /** The window used: the model's, or a smaller cap. */
  readonly maxTokens: number;
  /** Tokens reserved for the response. */
  readonly maxOutputTokens: number;
  readonly reservedTokens: number;
  /** False when the model was unknown and defaults were used. */
  readonly known: boolean;

  constructor(init: ContextLimitsInit, known = true) {
    if (init === null || typeof init !== "object") throw typeError(`limits must be an object, got ${describe(init)}`);
    this.model = requireString(init.model, "limits.model");
    this.maxTokens = requireCount(init.maxTokens, "limits.maxTokens", 1);
    this.maxOutputTokens = requireCount(init.maxOutputTokens, "limits.maxOutputTokens");
    this.reservedTokens = init.reservedTokens === undefined ? DEFAULT_RESERVED_TOKENS : requireCount(init.reservedTokens, "limits.reservedTokens");
    this.known = known;
  }

  /** maxTokens - maxOutputTokens - reservedTokens (never below 0): what the prompt may use. */
  get effectiveLimit(): number {
    return Math.max(0, this.maxTokens - this.maxOutputTokens - this.reservedTokens);
  }

  /**
   * The limits of `model`: a registered model, else the built-in table (dated ids and provider
   * prefixes accepted), else defaults with one warning. `overrides` may describe the model
   * (`contextLength`, `max_completion_tokens`, ...) or cap it (`maxTokens`, clamped to the window).
   * Without a known output limit (or with one larger than half a capped window), 20% of the window
   * is reserved for the response.
   */
  static forModel(model: string, overrides: LimitOverrides = {}, options: { registry?: ModelRegistry; logger?: Logger } = {}): ContextLimits {
    requireString(model, "model");
    if (overrides === null || typeof overrides !== "object") throw typeError(`overrides must be an object, got ${describe(overrides)}`);
    const o = overrides as Record<string, unknown>;
    const found = (options.registry ?? defaultModelRegistry).lookup(model);
    const declaredWindow = firstDefined(o, WINDOW_KEYS, "overrides");
    const declaredOutput = firstDefined(o, OUTPUT_KEYS, "overrides");
    const known = found.known || declaredWindow !== undefined;
    if (!known) {
      (options.logger ?? consoleLogger).warn(`ctxwin: unknown model "${model}": using default limits (${DEFAULT_CONTEXT_WINDOW} tokens, ${DEFAULT_RESPONSE_SHARE * 100}% reserved for the response); register it or pass contextLength`);
    }
    const hardLimit = declaredWindow ?? found.contextWindow;
    const maxTokens = o.maxTokens === undefined ? hardLimit : Math.min(requireCount(o.maxTokens, "overrides.maxTokens", 1), hardLimit);
    const output = declaredOutput ?? (found.maxOutput > 0 ? found.maxOutput : 0);
    // No published output limit, or one that would take more than half of a capped window (gpt-4o's
    // 16384 in a window capped at 3000): reserve 20% for the response instead.
    const maxOutputTokens = output > 0 && output <= maxTokens / 2 ? output : Math.floor(maxTokens * DEFAULT_RESPONSE_SHARE);
    const reservedTokens = o.reservedTokens === undefined ? DEFAULT_RESERVED_TOKENS : requireCount(o.reservedTokens, "overrides.reservedTokens");
    return new ContextLimits({ model, maxTokens, maxOutputTokens, reservedTokens }, known);
  }
}
