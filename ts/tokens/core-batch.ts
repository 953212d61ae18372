// The batch calls of the exact counters (TiktokenCounter, ClaudeCounter, TokenizerJsonCounter),
// the same for every family: the texts checked here, each element named in the error, then one
// crossing into the core counter, which counts synchronously or on libuv's pool.
import { describe, requireString, typeError } from "../runtime/errors.js";
import type { NativeCounter } from "../runtime/native.js";

/** `texts` as the core takes it, or a TypeError naming the first element that is not a string. */
export function checkTexts(texts: readonly string[]): string[] {
  if (!Array.isArray(texts)) throw typeError(`texts must be an array of strings, got ${describe(texts)}`);
  texts.forEach((text, i) => requireString(text, `texts[${i}]`));
  return texts as string[];
}

/** countMany: every text counted in one call into the core, on this thread. */
export function countManyWith(core: NativeCounter, texts: readonly string[]): Uint32Array {
  return core.countMany(checkTexts(texts));
}

/**
 * countManyAsync: the same counts from libuv's pool, in order. A bad argument rejects the promise
 * (the method is async), as every other failure of an async count does.
 */
export async function countManyAsyncWith(core: NativeCounter, texts: readonly string[]): Promise<Uint32Array> {
  return core.countManyAsync(checkTexts(texts));
}

/** countAsync: one text counted on libuv's pool. */
export async function countAsyncWith(core: NativeCounter, text: string): Promise<number> {
  requireString(text, "text");
  return core.countAsync(text);
}
