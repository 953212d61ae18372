// The core counter behind a counter object, for ctxwin's own use (tool-result compaction cuts with
// the caller's own tokenizer). Kept here in a WeakMap rather than on the counters, so that it is
// no part of their public type and goes away with them.
import type { NativeCounter } from "../runtime/native.js";

const cores = new WeakMap<object, NativeCounter>();

/** Records that `counter` counts with the core counter `core`. */
export function attachNativeCounter(counter: object, core: NativeCounter): void {
  cores.set(counter, core);
}

/** The core counter `counter` counts with, if it is one of ctxwin's exact counters. */
export function nativeCounterOf(counter: unknown): NativeCounter | undefined {
  return typeof counter === "object" && counter !== null ? cores.get(counter) : undefined;
}
