// Context limits of a model: its window and output limit from the model catalog (ts/catalog),
// the share ctxwin reserves for the response, and the prompt budget that leaves.
import { declaredCount, OUTPUT_KEYS, WINDOW_KEYS, type ModelConfig } from "../catalog/model-config.js";
import type { ResolvedModel } from "../catalog/model-entry.js";
import {
  checkUnknownModelPolicy,
  defaultModelRegistry,
  unknownModelError,
  type ModelRegistry,
  type UnknownModelPolicy,
} from "../catalog/model-registry.js";
import { OLLAMA_DEFAULT_NUM_CTX } from "../catalog/ollama-library.js";
import { describe, quoted, requireCount, requireString, typeError } from "../runtime/errors.js";
import { consoleLogger, type Logger } from "../runtime/logger.js";

/**
 * The share of the window reserved for the response when the model publishes no output limit, or
 * one that would take more than half of the window: a fifth of the window (docs/history.md, Limits).
 */
export const DEFAULT_RESPONSE_SHARE = 0.2;
/** Tokens kept free besides the response (`reservedTokens`) unless the caller gives another number. */
export const DEFAULT_RESERVED_TOKENS = 1000;
/** The window assumed for a model nobody knows (with a warning). */
export const DEFAULT_CONTEXT_WINDOW = 128000;

export interface LimitOverrides extends ModelConfig {
  /** A cap on the window, clamped to the model's hard limit. */
  maxTokens?: number;
  /** Tokens kept free besides the response (default 1000). */
  reservedTokens?: number;
  /**
   * The context the serving engine runs (Ollama's `num_ctx`): a cap like maxTokens. For an Ollama
   * model without it (nor a window or a cap), Ollama's default, 4096, with one warning.
   */
  numCtx?: number;
}

/** Ollama models already warned about, per logger: the warning is said once, not per manager. */
const numCtxWarned = new WeakMap<Logger, Set<string>>();

function warnNumCtx(logger: Logger, model: string, window: number): void {
  const seen = numCtxWarned.get(logger) ?? new Set<string>();
  numCtxWarned.set(logger, seen);
  if (seen.has(model)) return;
  seen.add(model);
  logger.warn(
    `ctxwin: ${quoted(model)} is planned against the ${OLLAMA_DEFAULT_NUM_CTX}-token context an Ollama server runs by default ` +
      `(num_ctx; the model takes ${window.toLocaleString("en-US")}), since Ollama cuts a longer prompt silently; ` +
      `pass numCtx with the num_ctx your server runs (OLLAMA_CONTEXT_LENGTH, a Modelfile's PARAMETER num_ctx, or options.num_ctx)`,
  );
}

export interface ContextLimitsInit {
  model: string;
  maxTokens: number;
  /** Tokens reserved for the response. */
  maxOutputTokens: number;
  reservedTokens?: number;
  /** The model's own output limit as its provider publishes it (default: maxOutputTokens). */
  modelMaxOutput?: number;
}

export class ContextLimits {
  readonly model: string;
  /** The window used: the model's, or a smaller cap. */
  readonly maxTokens: number;
  /** Tokens reserved for the response. */
  readonly maxOutputTokens: number;
  readonly reservedTokens: number;
  /**
   * The model's output limit as its provider publishes it (0: none published). When it is above
   * `maxOutputTokens`, ctxwin reserves less than the model may write (see forModel).
   */
  readonly modelMaxOutput: number;
  /** False when the model was unknown and defaults were used. */
  readonly known: boolean;
  /** The catalog entry the model id resolved to, when one did. */
  readonly resolved?: ResolvedModel;

  constructor(init: ContextLimitsInit, known = true, resolved?: ResolvedModel) {
    if (init === null || typeof init !== "object") throw typeError(`limits must be an object, got ${describe(init)}`);
    this.model = requireString(init.model, "limits.model");
    this.maxTokens = requireCount(init.maxTokens, "limits.maxTokens", 1);
    this.maxOutputTokens = requireCount(init.maxOutputTokens, "limits.maxOutputTokens");
    this.reservedTokens =
      init.reservedTokens === undefined ? DEFAULT_RESERVED_TOKENS : requireCount(init.reservedTokens, "limits.reservedTokens");
    this.modelMaxOutput =
      init.modelMaxOutput === undefined ? this.maxOutputTokens : requireCount(init.modelMaxOutput, "limits.modelMaxOutput");
    this.known = known;
    if (resolved !== undefined) this.resolved = resolved;
  }

  /** maxTokens - maxOutputTokens - reservedTokens (never below 0): what the prompt may use. */
  get effectiveLimit(): number {
    return Math.max(0, this.maxTokens - this.maxOutputTokens - this.reservedTokens);
  }

  /**
   * Says so when the response gets less than the model may write (`modelMaxOutput` above
   * `maxOutputTokens`): a response longer than the reserve can then run into the window.
   */
  get responseReserveNote(): string | undefined {
    if (this.modelMaxOutput <= this.maxOutputTokens) return undefined;
    const n = (value: number) => value.toLocaleString("en-US");
    return (
      `${n(this.maxOutputTokens)} tokens are reserved for the response, less than the ${n(this.modelMaxOutput)} ${this.model} may write ` +
      `(its output limit is above half of the ${n(this.maxTokens)}-token window, so 20% of the window is reserved); pass maxOutputTokens to reserve more`
    );
  }

  /**
   * The limits of `model`, resolved through the model catalog (`registry`, default
   * defaultModelRegistry: registered models, then models.dev's catalog; any spelling of an id).
   * An id nothing resolves gets default limits and one warning naming the closest known ids, or,
   * with `unknownModel: "error"` (what the managers and adapters pass), a RangeError with code
   * ERR_CTXWIN_UNKNOWN_MODEL; unless `overrides` gives the window (`contextLength`, ...) or a cap
   * (`maxTokens`). `overrides` may describe the model (`contextLength`,
   * `max_completion_tokens`, ...) or cap it (`maxTokens`, clamped to the window).
   * The response gets the model's published output limit, unless there is none or it would take
   * more than half of the window (gpt-4o's 16384 in a window capped at 3000): then 20% of the
   * window, and `modelMaxOutput` keeps the published limit.
   */
  static forModel(
    model: string,
    overrides: LimitOverrides = {},
    options: { registry?: ModelRegistry; logger?: Logger; unknownModel?: UnknownModelPolicy; where?: string } = {},
  ): ContextLimits {
    requireString(model, "model");
    if (overrides === null || typeof overrides !== "object") throw typeError(`overrides must be an object, got ${describe(overrides)}`);
    const o = overrides as Record<string, unknown>;
    const registry = options.registry ?? defaultModelRegistry;
    const policy = options.unknownModel === undefined ? "warn" : checkUnknownModelPolicy(options.unknownModel, "options.unknownModel");
    const found = registry.resolve(model);
    const declaredWindow = declaredCount(o, WINDOW_KEYS, "overrides", 1);
    const declaredOutput = declaredCount(o, OUTPUT_KEYS, "overrides", 0);
    const known = found !== undefined || declaredWindow !== undefined;
    if (!known && o.maxTokens === undefined && policy === "error") throw unknownModelError(model, registry, options.where ?? "model");
    if (!known) {
      const closest = registry.closest(model, 3);
      (options.logger ?? consoleLogger).warn(
        `ctxwin: unknown model ${quoted(model)}${closest.length > 0 ? ` (closest known: ${closest.join(", ")})` : ""}: using default limits ` +
          `(${DEFAULT_CONTEXT_WINDOW} tokens, ${DEFAULT_RESPONSE_SHARE * 100}% reserved for the response); register it or pass contextLength`,
      );
    }
    const hardLimit = declaredWindow ?? found?.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
    let cap = o.maxTokens === undefined ? hardLimit : Math.min(requireCount(o.maxTokens, "overrides.maxTokens", 1), hardLimit);
    if (o.numCtx !== undefined) cap = Math.min(cap, requireCount(o.numCtx, "overrides.numCtx", 1));
    else if (
      found?.provider === "ollama" &&
      declaredWindow === undefined &&
      o.maxTokens === undefined &&
      hardLimit > OLLAMA_DEFAULT_NUM_CTX
    ) {
      warnNumCtx(options.logger ?? consoleLogger, model, hardLimit);
      cap = OLLAMA_DEFAULT_NUM_CTX;
    }
    const maxTokens = cap;
    const modelMaxOutput = declaredOutput ?? found?.maxOutput ?? 0;
    const maxOutputTokens =
      modelMaxOutput > 0 && modelMaxOutput <= maxTokens / 2 ? modelMaxOutput : Math.floor(maxTokens * DEFAULT_RESPONSE_SHARE);
    const reservedTokens =
      o.reservedTokens === undefined ? DEFAULT_RESERVED_TOKENS : requireCount(o.reservedTokens, "overrides.reservedTokens");
    return new ContextLimits({ model, maxTokens, maxOutputTokens, reservedTokens, modelMaxOutput }, known, found);
  }
}
