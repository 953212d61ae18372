// A model's window and output limit in the shapes other tools write them (the AI SDK's
// contextLength / maxOutputTokens, OpenRouter's context_length / max_completion_tokens, LiteLLM's
// max_input_tokens / max_output_tokens, ...), read with the argument named on any error.
import { rangeError, requireCount } from "../runtime/errors.js";

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

export const WINDOW_KEYS = ["contextLength", "context_length", "contextWindow", "max_input_tokens"] as const;
export const OUTPUT_KEYS = ["maxOutputTokens", "max_completion_tokens", "max_output_tokens", "maxCompletionTokens"] as const;

/**
 * The one value that `keys` of `config` give (a window needs >= 1 token, an output limit >= 0),
 * or undefined when none is set. Several keys may be given if they agree.
 */
export function declaredCount(
  config: Record<string, unknown>,
  keys: readonly string[],
  prefix: string,
  minimum: number,
): number | undefined {
  let found: { key: string; value: number } | undefined;
  for (const key of keys) {
    if (config[key] === undefined) continue;
    const value = requireCount(config[key], `${prefix}.${key}`, minimum);
    if (found && found.value !== value)
      throw rangeError(`${prefix}.${found.key} (${found.value}) and ${prefix}.${key} (${value}) disagree: give one`);
    found ??= { key, value };
  }
  return found?.value;
}
