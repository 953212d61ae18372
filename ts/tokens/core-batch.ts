// The batch calls of the exact counters (TiktokenCounter, ClaudeCounter, TokenizerJsonCounter),
// the same for every family: the texts checked here, each element named in the error, then one
// crossing into the core counter, which counts synchronously or on libuv's pool.
import { describe, plainError, requireString, typeError, type CtxwinError } from "../runtime/errors.js";
import type { NativeCounter } from "../runtime/native.js";
import type { AsyncCountOptions } from "./token-counter.js";

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
export async function countManyAsyncWith(core: NativeCounter, texts: readonly string[], options?: AsyncCountOptions): Promise<Uint32Array> {
  const checked = checkTexts(texts);
  return abortable(options, () => core.countManyAsync(checked));
}

/** countAsync: one text counted on libuv's pool. */
export async function countAsyncWith(core: NativeCounter, text: string, options?: AsyncCountOptions): Promise<number> {
  requireString(text, "text");
  return abortable(options, () => core.countAsync(text));
}

/** The rejection of a count whose signal aborted (`cause`: the signal's reason). */
export function abortError(signal: AbortSignal): CtxwinError {
  // Named AbortError, as fetch's and Node's aborts are, for code that checks the name.
  return Object.assign(plainError("the count was aborted (options.signal)", "ERR_CTXWIN_ABORTED", { cause: signal.reason as unknown }), {
    name: "AbortError",
  });
}

/** `options.signal`, checked: undefined, or an AbortSignal (anything with `aborted` and addEventListener). */
export function signalOf(options: AsyncCountOptions | undefined): AbortSignal | undefined {
  if (options === undefined) return undefined;
  if (options === null || typeof options !== "object") throw typeError(`options must be an object, got ${describe(options)}`);
  const signal = options.signal;
  if (signal === undefined) return undefined;
  if (
    signal === null ||
    typeof signal !== "object" ||
    typeof signal.aborted !== "boolean" ||
    typeof signal.addEventListener !== "function"
  ) {
    throw typeError(`options.signal must be an AbortSignal, got ${describe(signal)}`);
  }
  return signal;
}

/**
 * For a count done on this thread (an estimate, a cache hit): counts in a later turn, as the pool's
 * counts arrive, so that an abort right after the call rejects it as it would a pool count. Throws
 * ERR_CTXWIN_ABORTED when `signal` aborted.
 */
export async function settleLater(signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return;
  if (!signal.aborted) await Promise.resolve();
  if (signal.aborted) throw abortError(signal);
}

/**
 * Runs an async count under `options.signal`: an aborted signal rejects at once (ERR_CTXWIN_ABORTED),
 * before the count starts or while it runs; the core's jobs then take no further text.
 */
export async function abortable<T>(options: AsyncCountOptions | undefined, start: () => Promise<T> & { cancel?: () => void }): Promise<T> {
  const signal = signalOf(options);
  if (signal?.aborted) throw abortError(signal);
  const running = start();
  if (signal === undefined) return running;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      running.cancel?.();
      reject(abortError(signal));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    running.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
