import { CachingCounter } from "./caching-counter.js";
import { ClaudeCounter } from "./claude-counter.js";
import { claudeFamilyForModel } from "./claude-family.js";
import type { Logger } from "../runtime/logger.js";
import { TiktokenCounter } from "./tiktoken-counter.js";

/**
 * The counter for `model` (seed 001's get_counter): a CachingCounter around the model's exact
 * counter where ctxwin has one (ClaudeCounter for Claude 3 and later, TiktokenCounter for OpenAI
 * models), else around a TiktokenCounter with o200k_base as an approximation (see encodingForModel).
 */
export function getCounter(model: string, options: { logger?: Logger; maxEntries?: number } = {}): CachingCounter {
  const inner = claudeFamilyForModel(typeof model === "string" ? model : "") ? new ClaudeCounter({ model }) : new TiktokenCounter({ model, logger: options.logger });
  return new CachingCounter(inner, { maxEntries: options.maxEntries });
}
