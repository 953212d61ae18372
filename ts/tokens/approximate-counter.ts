// Token counts without a tokenizer: words x tokensPerWord (1.3 by default) or characters /
// charsPerToken (4 is the usual rule of thumb; the thread manager's estimate uses 3.5). Computed by
// the core.
import { describe, rangeError, requireString, typeError } from "../runtime/errors.js";
import { countEachMessageWith, countMessagesWith } from "./message-count.js";
import { native } from "../runtime/native.js";
import type { AsyncCountOptions, BatchTokenCounter, CountMessagesOptions } from "./token-counter.js";
import { settleLater, signalOf } from "./core-batch.js";
import type { MessageLike } from "../messages/types.js";

export type ApproximateCounterOptions =
  | { tokensPerWord?: number; charsPerToken?: never }
  | { charsPerToken: number; tokensPerWord?: never };

export class ApproximateCounter implements BatchTokenCounter {
  readonly tokensPerWord: number | undefined;
  readonly charsPerToken: number | undefined;

  constructor(options: ApproximateCounterOptions = {}) {
    if (options === null || typeof options !== "object") throw typeError(`options must be an object, got ${describe(options)}`);
    const { tokensPerWord, charsPerToken } = options as { tokensPerWord?: unknown; charsPerToken?: unknown };
    if (tokensPerWord !== undefined && charsPerToken !== undefined) {
      throw typeError("options: give tokensPerWord or charsPerToken, not both");
    }
    for (const [name, value] of [
      ["tokensPerWord", tokensPerWord],
      ["charsPerToken", charsPerToken],
    ] as const) {
      if (value === undefined) continue;
      if (typeof value !== "number") throw typeError(`options.${name} must be a number, got ${describe(value)}`);
      if (!Number.isFinite(value) || value <= 0) throw rangeError(`options.${name} must be a finite number > 0, got ${value}`);
    }
    this.charsPerToken = charsPerToken as number | undefined;
    this.tokensPerWord = this.charsPerToken === undefined ? ((tokensPerWord as number | undefined) ?? 1.3) : undefined;
  }

  count(text: string): number {
    requireString(text, "text");
    return this.charsPerToken !== undefined
      ? native.estimateTokens(text.length, this.charsPerToken)
      : native.estimateTokensByWords(text, this.tokensPerWord as number);
  }

  /** Counts many texts in one call into the core. */
  countMany(texts: readonly string[]): Uint32Array {
    if (!Array.isArray(texts)) throw typeError(`texts must be an array of strings, got ${describe(texts)}`);
    texts.forEach((text, i) => requireString(text, `texts[${i}]`));
    if (this.charsPerToken === undefined) return native.estimateTokensByWordsMany(texts as string[], this.tokensPerWord as number);
    const estimates = Uint32Array.from(texts, (text) => text.length); // only the lengths cross
    native.estimateTokensInPlace(estimates, this.charsPerToken);
    return estimates;
  }

  /** count(), as a promise: the estimate is cheap enough to make on the event loop. */
  async countAsync(text: string, options?: AsyncCountOptions): Promise<number> {
    await settleLater(signalOf(options));
    return this.count(text);
  }

  /** countMany(), as a promise. */
  async countManyAsync(texts: readonly string[], options?: AsyncCountOptions): Promise<Uint32Array> {
    await settleLater(signalOf(options));
    return this.countMany(texts);
  }

  /** Same structure as OpenAI's chat format (cl100k_base overheads), with approximate text counts. */
  countMessages(messages: readonly MessageLike[], options?: CountMessagesOptions): number {
    return countMessagesWith((texts) => this.countMany(texts), messages, options);
  }
  /** Each message's tokens (structure overhead included, reply priming not), in one batch. */
  countEachMessage(messages: readonly MessageLike[], options?: CountMessagesOptions): Uint32Array {
    return countEachMessageWith((texts) => this.countMany(texts), messages, options).perMessage;
  }
}
