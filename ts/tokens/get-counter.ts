import { CachingCounter } from "./caching-counter.js";
import type { Logger } from "../runtime/logger.js";
import { TiktokenCounter } from "./tiktoken-counter.js";

/**
 * The counter for `model` (seed 001's get_counter): a CachingCounter around a TiktokenCounter with
 * the model's encoding. For non-OpenAI models the count is an approximation (see encodingForModel).
 */
export function getCounter(model: string, options: { logger?: Logger; maxEntries?: number } = {}): CachingCounter {
  return new CachingCounter(new TiktokenCounter({ model, logger: options.logger }), { maxEntries: options.maxEntries });
}
