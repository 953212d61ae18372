// The counter interface every counter implements: count(text) and countMessages(messages).
import type { FunctionDefinition, MessageLike, SystemTextBlock, ToolDefinition } from "../messages/types.js";

export interface CountMessagesOptions {
  /**
   * Tool definitions sent with the request: counted by the OpenAI counters as the API renders them
   * (a TypeScript namespace, docs/tokens.md), as their JSON plus Anthropic's tool-use system
   * prompt by ClaudeCounter.
   */
  tools?: readonly ToolDefinition[];
  /** OpenAI's legacy `functions` request field: counted as `tools` are. */
  functions?: readonly FunctionDefinition[];
  /** OpenAI's legacy `function_call` request field ("auto", "none" or `{ name }`): what it adds to the prompt. */
  functionCall?: "auto" | "none" | { name: string };
  /**
   * Tokens charged for each image part. Default: 765 for the OpenAI counters (a 1024x1024 image at
   * high detail); ClaudeCounter sizes each image by Anthropic's formula instead.
   */
  imageTokens?: number;
  /** A system prompt sent beside the messages (Anthropic's `system`): a string or text blocks. */
  system?: string | readonly SystemTextBlock[];
  /** Anthropic's `tool_choice` (its type): decides the size of the tool-use system prompt. */
  toolChoice?: "auto" | "any" | "tool" | "none" | { type: "auto" | "any" | "tool" | "none" };
}

export interface TokenCounter {
  /** Tokens in `text`. */
  count(text: string): number;
  /** Tokens of a whole chat request: messages with their structure overheads, tools, reply priming. */
  countMessages(messages: readonly MessageLike[], options?: CountMessagesOptions): number;
}

/** Options of the async counts. */
export interface AsyncCountOptions {
  /**
   * Aborting it rejects the count with ERR_CTXWIN_ABORTED (an `AbortError` whose `cause` is the
   * signal's reason), at once, whether it started or not; the core takes no further text of the batch.
   */
  signal?: AbortSignal;
}

/** A counter that can count many strings at once (one crossing into the core), and off the event loop. */
export interface BatchTokenCounter extends TokenCounter {
  countMany(texts: readonly string[]): Uint32Array;
  /** Each message's tokens (structure overhead included, reply priming not). */
  countEachMessage(messages: readonly MessageLike[], options?: CountMessagesOptions): Uint32Array;
  /** count() on a worker thread of libuv's pool (the exact counters): the event loop keeps running. */
  countAsync(text: string, options?: AsyncCountOptions): Promise<number>;
  /** countMany() on libuv's pool; a batch of 2^20 UTF-16 code units or more is shared by up to four threads. */
  countManyAsync(texts: readonly string[], options?: AsyncCountOptions): Promise<Uint32Array>;
}
