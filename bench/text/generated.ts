// The bench's generated text, one category per concept (words.ts, code.ts, json.ts, logs.ts),
// each drawn from its own seeded PRNG so that a category does not change when another does.
import { codeText } from "./code.js";
import { jsonText } from "./json.js";
import { logsText } from "./logs.js";
import { Prng } from "./prng.js";
import { loadWordList, wordsText } from "./words.js";

export const GENERATED_CATEGORIES = ["words", "gencode", "json", "logs"] as const;
export type GeneratedCategory = (typeof GENERATED_CATEGORIES)[number];

const MAKERS: Record<GeneratedCategory, (rng: Prng, words: readonly string[], bytes: number) => string> = {
  words: wordsText,
  gencode: codeText,
  json: jsonText,
  logs: logsText,
};

/** About `bytes` of UTF-8 for each category, the same for the same `seed` and word list. */
export function generateTexts(words: readonly string[], bytes: number, seed = 40): Record<GeneratedCategory, string> {
  if (words.length === 0) throw new RangeError("generateTexts: words is empty");
  const out = {} as Record<GeneratedCategory, string>;
  GENERATED_CATEGORIES.forEach((category, i) => {
    out[category] = MAKERS[category](new Prng(seed * 1000 + i), words, bytes);
  });
  return out;
}

/** The installed dictionary's words (synthetic words when there is none), and the generated texts. */
export function generatedTexts(bytes: number, seed = 40): { source: string; texts: Record<GeneratedCategory, string> } {
  const { words, source } = loadWordList(new Prng(seed));
  return { source, texts: generateTexts(words, bytes, seed) };
}
