// Each message's own tokens (its frame included, the request's reply priming not): what a history
// keeps per message.
import { describe, rangeError } from "../runtime/errors.js";
import { CHECKED } from "../messages/message-shape.js";
import type { MessageLike } from "../messages/types.js";
import type { BatchTokenCounter, TokenCounter } from "./token-counter.js";

/**
 * Each message's tokens: in one batch when the counter can, else message by message.
 * `checked`: the caller has just checked every message (a metadata reader read them), so the
 * counter does not check them again.
 */
export function messageTokens(counter: TokenCounter, messages: readonly MessageLike[], options: { checked?: boolean } = {}): Uint32Array {
  if (options.checked !== true) return countEach(counter, messages);
  // A batch of its own carries the mark: the caller's array says nothing of later changes.
  const batch: MessageLike[] & { [CHECKED]?: true } = messages.slice();
  batch[CHECKED] = true;
  return countEach(counter, batch);
}

function countEach(counter: TokenCounter, messages: readonly MessageLike[]): Uint32Array {
  const batch = counter as Partial<BatchTokenCounter>;
  if (typeof batch.countEachMessage === "function") return checkedCounts(batch.countEachMessage(messages), messages.length);
  const empty = checkedCount(counter.countMessages([]));
  return Uint32Array.from(messages, (message) => Math.max(0, checkedCount(counter.countMessages([message])) - empty));
}

// A caller's own TokenCounter is input too: a count that is not a whole number >= 0 is rejected,
// not stored as 0 (what a Uint32Array makes of NaN).
function checkedCount(value: unknown): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw rangeError(`the counter's countMessages must return an integer >= 0, got ${describe(value)}`);
  }
  return value;
}

function checkedCounts(counts: unknown, n: number): Uint32Array {
  if (!(counts instanceof Uint32Array) || counts.length !== n) {
    throw rangeError(`the counter's countEachMessage must return a Uint32Array of ${n} counts, got ${describe(counts)}`);
  }
  return counts;
}
