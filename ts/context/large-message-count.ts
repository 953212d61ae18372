// Counting a history's messages when one holds a text larger than a synchronous count takes.
//
// The exact counters refuse a text past 2^24 UTF-16 units on the main thread (ERR_CTXWIN_INPUT_TOO_LARGE,
// naming countAsync): counting it takes about a third of a second per bound. A history must still
// take such a message (a tool that printed a 40 MB log), synchronously, and never undercount it. So
// its count is an upper bound at once: the message counted without its large texts, plus each large
// text's UTF-8 bytes (no tokenizer ctxwin runs makes more tokens than bytes), plus a little for the
// boundaries; the exact count follows off the main thread (countManyAsync of the large texts), and
// the history replaces the bound with it, never with more.
import { utf8Length } from "../runtime/utf8.js";
import { messageTokens } from "../tokens/message-tokens.js";
import type { BatchTokenCounter, TokenCounter } from "../tokens/token-counter.js";
import { MAX_JSON_DEPTH } from "../messages/message-shape.js";
import type { MessageLike } from "../messages/types.js";

/** The longest text a synchronous count takes (the binding's bound, `text.length`). */
export const MAX_SYNC_TEXT_LENGTH = 2 ** 24;

/** Tokens a large text's place may cost beyond its own count (where it meets the text around it). */
const BOUNDARY_TOKENS = 2;

/** A message's count still to come, at its index in the batch counted. */
export interface LaterCount {
  index: number;
  /** Resolves with the exact count (at most the bound counted now); rejects if the counter fails. */
  count: Promise<number>;
}

const tooLarge = (error: unknown) => (error as { code?: unknown } | null)?.code === "ERR_CTXWIN_INPUT_TOO_LARGE";

/**
 * Each message's tokens, as messageTokens counts them, except that a message holding a text past
 * the synchronous bound gets an upper bound now and (unless `boundOnly`) its count in `later`.
 */
export function countMessagesNow(
  counter: TokenCounter,
  messages: readonly MessageLike[],
  checked: boolean,
  boundOnly = false,
): { tokens: Uint32Array; later: LaterCount[] } {
  try {
    return { tokens: messageTokens(counter, messages, { checked }), later: [] };
  } catch (error) {
    if (!tooLarge(error)) throw error;
  }
  // One of them is too large for a batch: each on its own, the large ones bounded.
  const tokens = new Uint32Array(messages.length);
  const later: LaterCount[] = [];
  messages.forEach((message, index) => {
    try {
      tokens[index] = messageTokens(counter, [message], { checked })[0] ?? 0;
    } catch (error) {
      if (!tooLarge(error)) throw error;
      const { bound, count } = boundedCount(counter, message, boundOnly);
      tokens[index] = bound;
      if (count !== undefined) later.push({ index, count });
    }
  });
  return { tokens, later };
}

/** The bound now and the count to come of a message holding large texts. */
function boundedCount(
  counter: TokenCounter,
  message: MessageLike,
  boundOnly: boolean,
): { bound: number; count: Promise<number> | undefined } {
  const large: string[] = [];
  const rest = messageTokens(counter, [withoutLargeTexts(message, large) as MessageLike])[0] ?? 0;
  const bound = rest + large.reduce((sum, text) => sum + utf8Length(text) + BOUNDARY_TOKENS, 0);
  if (boundOnly) return { bound, count: undefined };
  const batch = counter as Partial<BatchTokenCounter>;
  const count =
    typeof batch.countManyAsync === "function"
      ? batch
          .countManyAsync(large)
          .then((counts) => Math.min(bound, rest + Array.from(counts).reduce((sum, n) => sum + n + BOUNDARY_TOKENS, 0)))
      : Promise.resolve(bound);
  return { bound, count };
}

/**
 * A copy of `value` with every string past the synchronous bound emptied (and pushed to `large`).
 * Messages are checked at the door (no cycle, at most MAX_JSON_DEPTH deep); deeper is left as it is.
 */
function withoutLargeTexts(value: unknown, large: string[], depth = 0): unknown {
  if (typeof value === "string") {
    if (value.length <= MAX_SYNC_TEXT_LENGTH) return value;
    large.push(value);
    return "";
  }
  if (value === null || typeof value !== "object" || depth > MAX_JSON_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => withoutLargeTexts(item, large, depth + 1));
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) copy[key] = withoutLargeTexts(item, large, depth + 1);
  return copy;
}
