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

/** Walks `value` as `capture` does, comparing instead of recording; stops at the first difference. */
export function matchesFingerprint(value: unknown, print: Fingerprint): boolean {
  let cursor = 0;
  const walk = (v: unknown, depth: number): boolean => {
    if (v === null || typeof v !== "object") return print[cursor++] === v;
    if (depth > MAX_DEPTH || typeof (v as { toJSON?: unknown }).toJSON === "function") return false;
    if (Array.isArray(v)) {
      if (print[cursor++] !== ARRAY || print[cursor++] !== v.length) return false;
      for (const item of v) if (!walk(item, depth + 1)) return false;
      return true;
    }
    const keys = Object.keys(v);
    if (print[cursor++] !== OBJECT || print[cursor++] !== keys.length) return false;
    for (const key of keys) {
      if (print[cursor++] !== key) return false;
      if (!walk((v as Record<string, unknown>)[key], depth + 1)) return false;
    }
    return true;
  };
  return walk(value, 0) && cursor === print.length;
}
