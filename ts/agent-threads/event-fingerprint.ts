// Detects whether an event object changed since it was last counted, without serializing it again.
//
// A fingerprint is the flat list of everything JSON.stringify reads from a value, in the order it
// reads it: for each object its own enumerable keys and their values, for each array its length
// and items. Strings are held by reference, so checking a fingerprint compares references
// (`===` on the same string is a pointer test) and costs O(nodes), not O(characters): for an
// event whose tool result is a 50 KB string, one comparison instead of re-serializing 50 KB.
//
// Any change JSON.stringify could see (a value replaced, a key added, removed or reordered, an
// array grown, a nested object edited) changes the fingerprint. Values whose JSON a fingerprint
// cannot see through (objects with a toJSON method, such as Date, whose time can change in place)
// make the event uncacheable: it is serialized again on every call.

const OBJECT = Symbol("object");
const ARRAY = Symbol("array");

export type Fingerprint = readonly unknown[];

/** Deeper nesting than this is not fingerprinted (the event is simply re-serialized). */
const MAX_DEPTH = 64;

function capture(value: unknown, out: unknown[], depth: number): boolean {
  if (value === null || typeof value !== "object") {
    out.push(value);
    return true;
  }
  if (depth > MAX_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === "function") return false;
  if (Array.isArray(value)) {
    out.push(ARRAY, value.length);
    for (const item of value) if (!capture(item, out, depth + 1)) return false;
    return true;
  }
  const keys = Object.keys(value);
  out.push(OBJECT, keys.length);
  for (const key of keys) {
    out.push(key);
    if (!capture((value as Record<string, unknown>)[key], out, depth + 1)) return false;
  }
  return true;
}

/** The fingerprint of `value`, or undefined when it cannot have one (see above). */
export function fingerprint(value: unknown): Fingerprint | undefined {
  const out: unknown[] = [];
  return capture(value, out, 0) ? out : undefined;
}

/**
 * Walks `value` as `capture` does, comparing instead of recording; returns the cursor after the
 * value, or -1 at the first difference. Written without closures or key arrays (`for...in` over
 * own keys reads V8's enum cache without allocating): this runs once per cached event per call.
 */
function match(value: unknown, print: Fingerprint, cursor: number, depth: number): number {
  if (value === null || typeof value !== "object") return print[cursor] === value ? cursor + 1 : -1;
  if (depth > MAX_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === "function") return -1;
  if (Array.isArray(value)) {
    if (print[cursor] !== ARRAY || print[cursor + 1] !== value.length) return -1;
    cursor += 2;
    for (let i = 0; i < value.length && cursor >= 0; i++) cursor = match(value[i], print, cursor, depth + 1);
    return cursor;
  }
  if (print[cursor] !== OBJECT) return -1;
  const countAt = cursor + 1;
  cursor += 2;
  let keys = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (print[cursor] !== key) return -1;
    cursor = match((value as Record<string, unknown>)[key], print, cursor + 1, depth + 1);
    if (cursor < 0) return -1;
    keys++;
  }
  return print[countAt] === keys ? cursor : -1;
}

/** True when JSON.stringify(value) would read exactly what `print` recorded. */
export function matchesFingerprint(value: unknown, print: Fingerprint): boolean {
  return match(value, print, 0, 0) === print.length;
}
