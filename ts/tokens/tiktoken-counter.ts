// Exact OpenAI token counts from the core's BPE (tiktoken's results, without tiktoken).
import { ApproximateCounter } from "./approximate-counter.js";
import { checkEncodingName, tiktokenEncodingForModel, type EncodingName } from "./encodings.js";
import { describe, plainError, rangeError, requireString, typeError } from "../runtime/errors.js";
import { consoleLogger, type Logger } from "../runtime/logger.js";
import { countEachMessageWith, countMessagesWith } from "./message-count.js";
import { coreHost, native, type DataSource, type NativeBpeCounter } from "../runtime/native.js";
import { attachNativeCounter } from "./native-counter.js";
import { checkTexts, countAsyncWith, countManyAsyncWith, countManyWith } from "./core-batch.js";
import type { AsyncCountOptions, BatchTokenCounter, CountMessagesOptions } from "./token-counter.js";
import type { MessageLike } from "../messages/types.js";

export interface TiktokenCounterOptions {
  /** A model id (`gpt-4o`, `openai/gpt-4.1-mini`): picks the encoding as tiktoken does (o200k_base for other models). */
  model?: string;
  /** An encoding name; wins over `model`. Default cl100k_base. */
  encoding?: EncodingName;
  /** Receives the one warning when the rank data cannot be loaded. Default: console. */
  logger?: Logger;
  /**
   * Folder of the rank tables: `<encoding>.bin` in ctxwin's compact form, or OpenAI's
   * `<encoding>.tiktoken`. Default: the package's data/openai (on the web, what init() was given).
   */
  rankDataDir?: string;
}

/**
 * Exact counts for an OpenAI encoding. Counters are cheap: every counter of a thread shares the
 * encoding (loaded once per process) and one cache of the pieces already counted per encoding
 * (bounded, a few MB at most), so creating one per conversation or per request costs nothing.
 */
export class TiktokenCounter implements BatchTokenCounter {
  /**
   * Forgets the pieces this thread has counted, for every encoding, and frees that memory. Counts
   * stay exact; only the next counts of text seen before are slower. Benchmarks use it to measure
   * unseen text.
   */
  static clearPieceCaches(): void {
    native.clearPieceCaches();
  }

  readonly encoding: EncodingName;
  readonly model: string | undefined;
  /** False when the rank data could not be loaded and counts come from an ApproximateCounter. */
  readonly exact: boolean;
  private readonly tokenizer: NativeBpeCounter | undefined;
  private readonly fallback: ApproximateCounter | undefined;

  constructor(options: TiktokenCounterOptions = {}) {
    if (options === null || typeof options !== "object") throw typeError(`options must be an object, got ${describe(options)}`);
    if (options.model !== undefined) requireString(options.model, "options.model");
    this.model = options.model;
    this.encoding =
      options.encoding !== undefined
        ? checkEncodingName(options.encoding, "options.encoding")
        : options.model !== undefined
          ? tiktokenEncodingForModel(options.model)
          : "cl100k_base";
    const logger = options.logger ?? consoleLogger;
    try {
      let source: DataSource;
      if (options.rankDataDir !== undefined) source = requireString(options.rankDataDir, "options.rankDataDir");
      else {
        const host = coreHost();
        host.checkData?.("bpe", this.encoding);
        source = host.rankData(this.encoding);
      }
      this.tokenizer = new native.Counter("bpe", this.encoding, source);
      attachNativeCounter(this, this.tokenizer);
      this.exact = true;
    } catch (error) {
      // A web application that did not give init() this encoding's table is told so, not approximated.
      if (error instanceof TypeError || (error as { code?: unknown }).code === "ERR_CTXWIN_NOT_INITIALIZED") throw error;
      // Without rank data, count approximately rather than not at all, and say so once.
      logger.warn(
        `ctxwin: cannot load ${this.encoding} rank data (${error instanceof Error ? error.message : String(error)}); counting approximately (words x 1.3)`,
      );
      this.fallback = new ApproximateCounter();
      this.exact = false;
    }
  }

  count(text: string): number {
    // No crossing into the core for the empty string (0 tokens in every encoding, exact or not).
    if (text === "") return 0;
    requireString(text, "text");
    return this.tokenizer ? this.tokenizer.count(text) : (this.fallback as ApproximateCounter).count(text);
  }

  /** Counts many texts in one call into the core. */
  countMany(texts: readonly string[]): Uint32Array {
    return this.tokenizer ? countManyWith(this.tokenizer, texts) : (this.fallback as ApproximateCounter).countMany(checkTexts(texts));
  }

  /** Counts on a worker thread of the libuv pool: the event loop keeps running meanwhile. */
  async countAsync(text: string, options?: AsyncCountOptions): Promise<number> {
    return this.tokenizer ? countAsyncWith(this.tokenizer, text, options) : (this.fallback as ApproximateCounter).countAsync(text, options);
  }

  /**
   * countMany on libuv worker threads: a batch of 2^20 UTF-16 code units or more (a megabyte of
   * ASCII) is counted by up to four jobs (no more than the machine's cores), each taking the next
   * text when it is done with one; the counts come back in order. The event loop is held only
   * while the strings are copied out of V8.
   */
  async countManyAsync(texts: readonly string[], options?: AsyncCountOptions): Promise<Uint32Array> {
    return this.tokenizer
      ? countManyAsyncWith(this.tokenizer, texts, options)
      : (this.fallback as ApproximateCounter).countManyAsync(texts, options);
  }

  /** Token ids. Special-token text is ordinary text unless `allowedSpecial: "all"`. */
  encode(text: string, options: { allowedSpecial?: "all" } = {}): Uint32Array {
    requireString(text, "text");
    return this.requireTokenizer("encode").encode(text, options.allowedSpecial === "all");
  }

  decode(tokens: ArrayLike<number>): string {
    if (tokens === null || typeof tokens !== "object" || typeof (tokens as ArrayLike<number>).length !== "number") {
      throw typeError(`tokens must be an array of token ids, got ${describe(tokens)}`);
    }
    if (!(tokens instanceof Uint32Array)) {
      // Uint32Array.from would turn NaN into token 0 and -1 into 4294967295: rejected instead.
      for (let i = 0; i < tokens.length; i++) {
        const token = tokens[i];
        if (typeof token !== "number") throw typeError(`tokens[${i}] must be a token id (a number), got ${describe(token)}`);
        if (!Number.isInteger(token) || token < 0 || token > 0xffffffff)
          throw rangeError(`tokens[${i}] must be an integer token id >= 0, got ${describe(token)}`);
      }
    }
    return this.requireTokenizer("decode").decode(tokens instanceof Uint32Array ? tokens : Uint32Array.from(tokens));
  }

  countMessages(messages: readonly MessageLike[], options?: CountMessagesOptions): number {
    return countMessagesWith((texts) => this.countMany(texts), messages, options);
  }
  /** Each message's tokens (structure overhead included, reply priming not), in one batch. */
  countEachMessage(messages: readonly MessageLike[], options?: CountMessagesOptions): Uint32Array {
    return countEachMessageWith((texts) => this.countMany(texts), messages, options).perMessage;
  }

  private requireTokenizer(operation: string): NativeBpeCounter {
    if (!this.tokenizer) {
      throw plainError(
        `ctxwin: ${operation} needs the ${this.encoding} rank data, which could not be loaded`,
        "ERR_CTXWIN_RANK_DATA_UNAVAILABLE",
      );
    }
    return this.tokenizer;
  }
}
