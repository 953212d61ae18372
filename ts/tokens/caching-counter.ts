// A bounded LRU cache in front of any counter: the same text is counted once.
import { describe, rangeError, requireString, typeError } from "../runtime/errors.js";
import { checkTexts, settleLater, signalOf } from "./core-batch.js";
import { countEachMessageWith, countMessagesWith } from "./message-count.js";
import { TextCache, keyOf } from "./text-cache.js";
import { TokenizerJsonCounter } from "./tokenizer-json-counter.js";
import type { AsyncCountOptions, BatchTokenCounter, CountMessagesOptions, TokenCounter } from "./token-counter.js";
import type { MessageLike } from "../messages/types.js";

/** A counter that frames messages its own way (ClaudeCounter) and lets a wrapper count the strings. */
interface FramingCounter {
  countMessagesWith(
    countMany: (texts: string[]) => ArrayLike<number>,
    messages: readonly MessageLike[],
    options?: CountMessagesOptions,
  ): { perMessage: Uint32Array; total: number };
}

export interface CachingCounterOptions {
  /** Most texts remembered (default 10,000); the least recently used are evicted first. */
  maxEntries?: number;
}

export class CachingCounter implements TokenCounter {
  readonly inner: TokenCounter;
  readonly maxEntries: number;
  private readonly cache: TextCache;
  hits = 0;
  misses = 0;

  constructor(inner: TokenCounter, options: CachingCounterOptions = {}) {
    if (inner === null || typeof inner !== "object" || typeof (inner as TokenCounter).count !== "function") {
      throw typeError(`inner must be a TokenCounter, got ${describe(inner)}`);
    }
    const maxEntries = options.maxEntries ?? 10_000;
    if (!Number.isInteger(maxEntries) || maxEntries < 1)
      throw rangeError(`options.maxEntries must be an integer >= 1, got ${describe(maxEntries)}`);
    this.inner = inner;
    this.maxEntries = maxEntries;
    this.cache = new TextCache(maxEntries);
  }

  /** Texts remembered. */
  get size(): number {
    return this.cache.size;
  }

  count(text: string): number {
    requireString(text, "text");
    const key = keyOf(text);
    const cached = this.cache.get(text, key);
    if (cached !== undefined) {
      this.hits++;
      return cached;
    }
    this.misses++;
    const value = this.inner.count(text);
    this.cache.set(text, value, key);
    return value;
  }

  /**
   * Each text's count: the remembered ones from the cache, the others in one call of the inner
   * counter's countMany when it has one (one crossing into the core for a message's new texts).
   */
  countMany(texts: readonly string[]): Uint32Array {
    checkTexts(texts); // all checked before any is cached
    const counts = new Uint32Array(texts.length);
    const unseen: number[] = [];
    const keys: Array<string | number> = [];
    for (let i = 0; i < texts.length; i++) {
      const text = texts[i] as string;
      const key = keyOf(text);
      const cached = this.cache.get(text, key);
      if (cached === undefined) {
        unseen.push(i);
        keys.push(key);
      } else {
        this.hits++;
        counts[i] = cached;
      }
    }
    if (unseen.length === 0) return counts;
    const missed = unseen.map((i) => texts[i] as string);
    const inner = this.inner as Partial<BatchTokenCounter>;
    const fresh = typeof inner.countMany === "function" ? inner.countMany(missed) : missed.map((text) => this.inner.count(text));
    for (let k = 0; k < unseen.length; k++) {
      const text = missed[k] as string;
      const key = keys[k] as string | number;
      const value = fresh[k] as number;
      // A repeat within the batch is a hit, as it is when the texts are counted one at a time.
      if (k > 0 && this.cache.get(text, key) !== undefined) this.hits++;
      else {
        this.misses++;
        this.cache.set(text, value, key);
      }
      counts[unseen[k] as number] = value;
    }
    return counts;
  }

  /** count() with the texts not yet cached counted by the inner counter's countAsync, when it has one. */
  async countAsync(text: string, options?: AsyncCountOptions): Promise<number> {
    requireString(text, "text");
    if (this.cache.has(text)) {
      await settleLater(signalOf(options));
      return this.count(text);
    }
    const inner = this.inner as Partial<BatchTokenCounter>;
    const value = typeof inner.countAsync === "function" ? await inner.countAsync(text, options) : this.inner.count(text);
    this.misses++;
    this.cache.set(text, value);
    return value;
  }

  /** countMany() with the texts not yet cached counted in one batch by the inner counter's countManyAsync, when it has one. */
  async countManyAsync(texts: readonly string[], options?: AsyncCountOptions): Promise<Uint32Array> {
    checkTexts(texts);
    const unseen = [...new Set(texts.filter((text) => !this.cache.has(text)))];
    // The inner counter's count honours the signal; a batch all in the cache settles a turn later.
    if (unseen.length === 0) await settleLater(signalOf(options));
    const inner = this.inner as Partial<BatchTokenCounter>;
    const counted = new Map<string, number>();
    if (unseen.length > 0) {
      const counts =
        typeof inner.countManyAsync === "function"
          ? await inner.countManyAsync(unseen, options)
          : Uint32Array.from(unseen, (text) => this.inner.count(text));
      unseen.forEach((text, i) => counted.set(text, counts[i] as number));
    }
    return Uint32Array.from(texts, (text) => {
      const value = counted.get(text);
      if (value === undefined) return this.count(text);
      counted.delete(text); // a repeat within the batch is a hit, as in countMany
      this.misses++;
      this.cache.set(text, value);
      return value;
    });
  }

  /**
   * Counts the request's strings through the cache, framed as the inner counter frames messages: a
   * TokenizerJsonCounter counts its own chat template; a counter with its own framing (ClaudeCounter)
   * frames them itself; else OpenAI's chat framing.
   */
  countMessages(messages: readonly MessageLike[], options?: CountMessagesOptions): number {
    if (this.inner instanceof TokenizerJsonCounter) return this.inner.countMessages(messages, options);
    const framed = this.framing();
    if (framed) return framed.countMessagesWith((texts) => this.countMany(texts), messages, options).total;
    return countMessagesWith((texts) => this.countMany(texts), messages, options);
  }

  /** Each message's tokens through the cache (structure overhead included, reply priming not). */
  countEachMessage(messages: readonly MessageLike[], options?: CountMessagesOptions): Uint32Array {
    if (this.inner instanceof TokenizerJsonCounter) {
      // A template frames the whole conversation: each message costs what it adds alone.
      const inner = this.inner;
      if (!Array.isArray(messages)) throw typeError(`messages must be an array, got ${describe(messages)}`);
      const empty = inner.countMessages([], options);
      return Uint32Array.from(messages, (message) => Math.max(0, inner.countMessages([message], options) - empty));
    }
    const framed = this.framing();
    if (framed) return framed.countMessagesWith((texts) => this.countMany(texts), messages, options).perMessage;
    return countEachMessageWith((texts) => this.countMany(texts), messages, options).perMessage;
  }

  /** The inner counter's own message framing, when it has one. */
  private framing(): FramingCounter | undefined {
    const inner = this.inner as Partial<FramingCounter>;
    return typeof inner.countMessagesWith === "function" ? (inner as FramingCounter) : undefined;
  }

  clear(): void {
    this.cache.clear();
  }
}
