// Generated JSON: random nested objects and arrays (keys from the word list in camelCase and
// snake_case, strings, integers, decimals, booleans, null, ids), half pretty-printed, half
// compact, as API payloads and tool results come. The whole text is one JSON array.
import { identifier } from "./code.js";
import type { Prng } from "./prng.js";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function scalar(rng: Prng, words: readonly string[]): Json {
  switch (rng.int(7)) {
    case 0:
      return rng.int(1_000_000);
    case 1:
      return Math.round(rng.int(10_000_000) / 7) / 1000;
    case 2:
      return rng.chance(0.5);
    case 3:
      return null;
    case 4:
      return `${rng.hex(8)}-${rng.hex(4)}-${rng.hex(4)}-${rng.hex(4)}-${rng.hex(12)}`;
    default:
      return Array.from({ length: rng.range(1, 6) }, () => rng.pick(words)).join(" ");
  }
}

/** A random value: objects and arrays down to `depth` levels, scalars below. */
export function jsonValue(rng: Prng, words: readonly string[], depth: number): Json {
  if (depth <= 0 || rng.chance(0.45)) return scalar(rng, words);
  if (rng.chance(0.3)) return Array.from({ length: rng.range(0, 5) }, () => jsonValue(rng, words, depth - 1));
  const object: { [key: string]: Json } = {};
  const keys = rng.range(1, 7);
  for (let i = 0; i < keys; i++) object[identifier(rng, words)] = jsonValue(rng, words, depth - 1);
  return object;
}

/** About `bytes` of JSON: an array of generated objects, each pretty-printed or compact. */
export function jsonText(rng: Prng, words: readonly string[], bytes: number): string {
  const documents: string[] = [];
  let size = 4;
  while (size < bytes) {
    const object: { [key: string]: Json } = { id: rng.int(10_000_000), type: rng.pick(words) };
    const keys = rng.range(2, 8);
    for (let i = 0; i < keys; i++) object[identifier(rng, words)] = jsonValue(rng, words, 4);
    const text = JSON.stringify(object, null, rng.chance(0.5) ? 2 : undefined);
    documents.push(text);
    size += Buffer.byteLength(text) + 2;
  }
  return `[\n${documents.join(",\n")}\n]\n`;
}
