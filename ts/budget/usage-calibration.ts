// Provider-reported usage: reading a request's input tokens from the usage shapes the SDKs return,
// and the per-model ratio of reported to counted tokens that scales later counts up.
//
// A local counter without the model's exact tokenizer undercounts (o200k_base stands in for
// Claude, Gemini, Llama, ...). The first response tells how much: its reported input tokens over
// what ctxwin counted for the same request. From then on counts are multiplied by that ratio, so
// budgets stop undercounting after one response. The ratio never scales a count down: a counter
// that overcounts stays an upper bound: a count is never lower than the provider's.
import { describe, rangeError, requireString, typeError } from "../runtime/errors.js";

/**
 * The usage of one model call, in any of the shapes the SDKs report it:
 * - AI SDK result `{ inputTokens, inputTokenDetails }` (and the provider-level `{ inputTokens: { total, noCache, cacheRead, cacheWrite } }`),
 * - OpenAI Chat Completions `{ prompt_tokens }`, OpenAI Responses `{ input_tokens }`,
 * - Anthropic `{ input_tokens, cache_creation_input_tokens, cache_read_input_tokens }` (the three add up to the prompt),
 * - LangChain `usage_metadata` `{ input_tokens, input_token_details }` (input_tokens is the whole prompt),
 * - OpenAI Agents SDK `Usage` `{ inputTokens }`.
 */
export type ReportedUsage =
  | {
      inputTokens?: number | { total?: number; noCache?: number; cacheRead?: number; cacheWrite?: number } | undefined;
      inputTokenDetails?: unknown;
    }
  | { prompt_tokens?: number | undefined }
  | { input_tokens?: number | undefined; cache_creation_input_tokens?: number | null; cache_read_input_tokens?: number | null };

function tokenField(value: unknown, name: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number") throw typeError(`${name} must be a number of tokens, got ${describe(value)}`);
  if (!Number.isInteger(value) || value < 0) throw rangeError(`${name} must be an integer >= 0, got ${value}`);
  return value;
}

/**
 * The input (prompt) tokens a usage reports, cached tokens included; `undefined` when the provider
 * reported none (the SDKs leave the field undefined then). Throws a coded TypeError for a value
 * that is not a usage of a known shape and a RangeError for a negative or fractional count.
 */
export function reportedInputTokens(usage: unknown, name = "usage"): number | undefined {
  if (usage === null || typeof usage !== "object" || Array.isArray(usage))
    throw typeError(`${name} must be a usage object, got ${describe(usage)}`);
  const u = usage as Record<string, unknown>;
  if ("inputTokens" in u) {
    const input = u.inputTokens;
    if (input !== null && typeof input === "object") {
      // Provider-level (LanguageModelV3Usage): total, or its parts when the total is missing.
      const d = input as Record<string, unknown>;
      const total = tokenField(d.total, `${name}.inputTokens.total`);
      if (total !== undefined) return total;
      const parts = [
        tokenField(d.noCache, `${name}.inputTokens.noCache`),
        tokenField(d.cacheRead, `${name}.inputTokens.cacheRead`),
        tokenField(d.cacheWrite, `${name}.inputTokens.cacheWrite`),
      ];
      return parts.every((p) => p === undefined) ? undefined : parts.reduce<number>((a, b) => a + (b ?? 0), 0);
    }
    return tokenField(input, `${name}.inputTokens`);
  }
  if ("prompt_tokens" in u) return tokenField(u.prompt_tokens, `${name}.prompt_tokens`);
  if ("input_tokens" in u) {
    const input = tokenField(u.input_tokens, `${name}.input_tokens`);
    // Anthropic reports the cached parts beside input_tokens; together they are the prompt.
    const created = tokenField(u.cache_creation_input_tokens, `${name}.cache_creation_input_tokens`);
    const read = tokenField(u.cache_read_input_tokens, `${name}.cache_read_input_tokens`);
    if (input === undefined) return created === undefined && read === undefined ? undefined : (created ?? 0) + (read ?? 0);
    return input + (created ?? 0) + (read ?? 0);
  }
  throw typeError(
    `${name} must report input tokens as inputTokens (AI SDK, OpenAI Agents), prompt_tokens (OpenAI) or input_tokens (OpenAI Responses, Anthropic, LangChain); it has none of them`,
  );
}

export interface ModelCalibration {
  /** Reported over counted tokens of the latest matched request. */
  ratio: number;
  /** What counts are multiplied by: the ratio, never below 1. */
  scale: number;
  /** How many responses were matched. */
  observations: number;
  /** The latest request's figures. */
  reportedTokens: number;
  countedTokens: number;
}

/**
 * The ratio of reported to counted tokens, per model. Each MessageContextManager and ContextTracker
 * has one; pass the same instance to several (and to the framework adapters) to share what one
 * conversation learned with the others of the same model.
 */
export class UsageCalibration {
  private readonly models = new Map<string, ModelCalibration>();

  /** Records one matched request: `reported` tokens by the provider for what was `counted` locally. */
  observe(model: string, reported: number, counted: number): ModelCalibration | undefined {
    requireString(model, "model");
    tokenField(reported, "reported");
    tokenField(counted, "counted");
    if (counted === 0) return this.models.get(model);
    const ratio = reported / counted;
    const entry: ModelCalibration = {
      ratio,
      scale: Math.max(1, ratio),
      observations: (this.models.get(model)?.observations ?? 0) + 1,
      reportedTokens: reported,
      countedTokens: counted,
    };
    this.models.set(model, entry);
    return entry;
  }

  /** The factor counts of `model` are multiplied by (1 until a response showed an undercount). */
  scaleOf(model: string): number {
    return this.models.get(model)?.scale ?? 1;
  }

  /** `tokens` counted locally for `model`, scaled up by what its responses reported. */
  scale(model: string, tokens: number): number {
    const scale = this.scaleOf(model);
    return scale === 1 ? tokens : Math.ceil(tokens * scale);
  }

  /** `tokens` in the model's reported units back to local counts (for budgets planned on local counts). */
  unscale(model: string, tokens: number): number {
    const scale = this.scaleOf(model);
    return scale === 1 ? tokens : Math.floor(tokens / scale);
  }

  get(model: string): ModelCalibration | undefined {
    const entry = this.models.get(model);
    return entry && { ...entry };
  }

  /** Every model's calibration, for stats. */
  toJSON(): Record<string, ModelCalibration> {
    return Object.fromEntries([...this.models].map(([model, entry]) => [model, { ...entry }]));
  }
}
