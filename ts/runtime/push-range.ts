// Appends a range of an array to another in the engine's own code: push applied to a slice (or a
// typed array's subarray) copies it a chunk at a time, each element a slot on the stack. A trim's
// code is cold, and a loop pushing one element at a time runs unoptimized there (about 35 ns an
// element: 0.27 ms for 7,500 kept messages); Array.from and spreading walk an iterator.

/** Arguments one push takes at most. */
const PUSH_CHUNK = 8192;

/** Appends `items[from, to)` to `out`. */
export function pushRange<T>(out: T[], items: readonly T[] | Uint32Array, from = 0, to = items.length): void {
  for (let at = from; at < to; at += PUSH_CHUNK) {
    const end = Math.min(to, at + PUSH_CHUNK);
    const chunk = items instanceof Uint32Array ? items.subarray(at, end) : items.slice(at, end);
    Array.prototype.push.apply(out, chunk as unknown as T[]);
  }
}
