// Exact Claude token counts from the core: count_tokens' figures, offline, for Claude 3 and later.
// The vocabularies are ctok's measurements (MIT, github sanderland/ctok), shipped in data/claude.
import { describe, rangeError, requireString, typeError } from "../runtime/errors.js";
import { coreHost, native, type NativeClaudeCounter } from "../runtime/native.js";
import { CLAUDE_FAMILIES, claudeFamilyForModel, type ClaudeFamily } from "./claude-family.js";
import { countClaudeRequest, type ClaudeRequestCount } from "./claude-messages.js";
import { attachNativeCounter } from "./native-counter.js";
import { countAsyncWith, countManyAsyncWith, countManyWith } from "./core-batch.js";
import type { AsyncCountOptions, BatchTokenCounter, CountMessagesOptions } from "./token-counter.js";
import type { MessageLike } from "../messages/types.js";

export interface ClaudeCounterOptions {
  /** A Claude model id in any spelling (`claude-opus-4-5`, `anthropic/claude-opus-4.7`, Bedrock, Vertex). */
  model?: string;
  /** The tokenizer family; wins over `model`. */
  family?: ClaudeFamily;
}

/**
 * Claude's token counts: `countMessages([{ role: "user", content: text }])` is what Anthropic's
 * count_tokens returns for that request. Counters are cheap: each family's vocabulary loads once per
 * process and is shared by every counter and thread, and the counters of a thread share one cache
 * of counted word segments per family.
 *
 *   new ClaudeCounter({ model: "claude-sonnet-4-5" }).countMessages(messages, { system, tools })
 */
export class ClaudeCounter implements BatchTokenCounter {
  readonly family: ClaudeFamily;
  readonly model: string | undefined;
  /** Always true: this is Claude's own tokenization, not a stand-in. */
  readonly exact = true;
  /** Tokens of a one-message request beyond its content: 7 (v3), 11 (v4.7), 6 (v5). */
  readonly messageOverhead: number;
  private readonly tokenizer: NativeClaudeCounter;

  constructor(options: ClaudeCounterOptions = {}) {
    if (options === null || typeof options !== "object") throw typeError(`options must be an object, got ${describe(options)}`);
    if (options.model !== undefined) requireString(options.model, "options.model");
    this.model = options.model;
    if (options.family !== undefined) {
      if (!(CLAUDE_FAMILIES as readonly unknown[]).includes(options.family)) {
        throw rangeError(
          `options.family must be one of ${CLAUDE_FAMILIES.join(", ")}, got ${describe(options.family)}`,
          "ERR_CTXWIN_UNKNOWN_ENCODING",
        );
      }
      this.family = options.family;
    } else if (options.model !== undefined) {
      const family = claudeFamilyForModel(options.model);
      if (!family)
        throw rangeError(
          `options.model must be a Claude 3 or later model id, got ${describe(options.model)}`,
          "ERR_CTXWIN_UNKNOWN_ENCODING",
        );
      this.family = family;
    } else {
      throw typeError("ClaudeCounter needs options.model or options.family");
    }
    const host = coreHost();
    host.checkData?.("claude", this.family);
    this.tokenizer = new native.Counter("claude", this.family, host.claudeData(this.family));
    attachNativeCounter(this, this.tokenizer);
    this.messageOverhead = this.tokenizer.messageOverhead();
  }

  /** Tokens of `text` as a message's content (0 for ""): countMessages adds the frame. */
  count(text: string): number {
    requireString(text, "text");
    return this.tokenizer.count(text);
  }

  /** Counts many texts in one call into the core. */
  countMany(texts: readonly string[]): Uint32Array {
    return countManyWith(this.tokenizer, texts);
  }

  /** Counts on a worker thread of the libuv pool: the event loop keeps running meanwhile. */
  async countAsync(text: string, options?: AsyncCountOptions): Promise<number> {
    return countAsyncWith(this.tokenizer, text, options);
  }

  /** countMany on libuv worker threads (a batch of 2^20 UTF-16 code units or more is shared by up to four jobs). */
  async countManyAsync(texts: readonly string[], options?: AsyncCountOptions): Promise<Uint32Array> {
    return countManyAsyncWith(this.tokenizer, texts, options);
  }

  /**
   * Tokens of a whole Anthropic request: messages (any shape ctxwin reads), `options.system`,
   * `options.tools` with `options.toolChoice`. Exact for one text message; an upper bound beyond
   * that (docs/claude.md).
   */
  countMessages(messages: readonly MessageLike[], options?: CountMessagesOptions): number {
    return this.countMessagesWith((texts) => this.countMany(texts), messages, options).total;
  }

  /** Each message's tokens, its frame included (the system prompt and tools are not a message's). */
  countEachMessage(messages: readonly MessageLike[], options?: CountMessagesOptions): Uint32Array {
    return this.countMessagesWith((texts) => this.countMany(texts), messages, options).perMessage;
  }

  /**
   * The request count with the strings counted by `countMany`: how a wrapper (CachingCounter) keeps
   * this counter's message framing while counting the strings its own way.
   */
  countMessagesWith(
    countMany: (texts: string[]) => ArrayLike<number>,
    messages: readonly MessageLike[],
    options?: CountMessagesOptions,
  ): ClaudeRequestCount {
    return countClaudeRequest(
      countMany,
      { family: this.family, model: this.model, messageOverhead: this.messageOverhead },
      messages,
      options,
    );
  }

  /** The marked stream the count tiles (word-boundary and case markers spelled ⟨bow⟩ ⟨eow⟩ ⟨shift⟩ ⟨caps⟩). */
  markedStream(text: string): string {
    requireString(text, "text");
    return this.tokenizer.markedStream(text);
  }

  /**
   * Forgets the word segments this thread has tiled for this counter's family (a bounded cache, up
   * to 16 MB per family, shared by every ClaudeCounter of the thread, that makes repeated words
   * cheap). Counts stay exact; benchmarks use it to measure unseen text.
   */
  clearCache(): void {
    this.tokenizer.clearCache();
  }

  /** Bytes of this family's vocabulary index in the core (shared by all counters of the family). */
  get memoryBytes(): number {
    return this.tokenizer.memoryBytes();
  }
}
