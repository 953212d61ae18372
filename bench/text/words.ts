// Plain dictionary words: text the tokenizers' fast paths were not written on. Words drawn
// uniformly from a word list (Debian's wamerican, /usr/share/dict/words, when installed), so rare
// and long words come as often as common ones: most are not single tokens and must be merged,
// unlike prose, where frequent words dominate.
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { fill, type Prng } from "./prng.js";

export const DICTIONARY = "/usr/share/dict/words";

// Without a word list: English-looking words built from common onsets, vowels and codas, so that
// the text still has the shape of words (not random letters, which would all merge byte by byte).
const ONSETS = [
  "",
  "b",
  "c",
  "d",
  "f",
  "g",
  "h",
  "l",
  "m",
  "n",
  "p",
  "r",
  "s",
  "t",
  "v",
  "w",
  "br",
  "ch",
  "cl",
  "cr",
  "dr",
  "fl",
  "gr",
  "pl",
  "pr",
  "sh",
  "sl",
  "st",
  "str",
  "th",
  "tr",
];
const VOWELS = ["a", "e", "i", "o", "u", "ai", "ea", "ee", "io", "ou", "y"];
const CODAS = ["", "", "b", "ck", "d", "ft", "l", "ll", "m", "n", "nd", "ng", "nt", "p", "r", "rd", "s", "ss", "st", "t", "th", "x"];
const SUFFIXES = ["", "", "", "s", "ed", "ing", "er", "ly", "ness", "tion", "able", "ment", "'s"];

/** `count` word-like strings drawn from `rng` (used only when no word list is installed). */
export function syntheticWords(rng: Prng, count: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let word = "";
    const syllables = rng.range(1, 4);
    for (let s = 0; s < syllables; s++) word += rng.pick(ONSETS) + rng.pick(VOWELS) + rng.pick(CODAS);
    word += rng.pick(SUFFIXES);
    out.push(rng.chance(0.08) ? word[0]?.toUpperCase() + word.slice(1) : word);
  }
  return out;
}

export interface WordList {
  words: string[];
  /** Where the words came from, printed beside the figures. */
  source: string;
}

/** The installed dictionary, or synthetic words from `rng` when there is none. */
export function loadWordList(rng: Prng, path = DICTIONARY): WordList {
  if (existsSync(path)) {
    const file = readFileSync(path, "utf8");
    const words = file.split("\n").filter((w) => w.length > 0);
    // Its digest says which list the figures were measured with (versions of wamerican differ).
    const digest = createHash("sha256").update(file).digest("hex").slice(0, 12);
    if (words.length > 0) return { words, source: `${path} (${words.length.toLocaleString("en-US")} words, sha256 ${digest}...)` };
  }
  return { words: syntheticWords(rng, 50_000), source: `synthetic words (no ${path}; apt-get install wamerican)` };
}

/** About `bytes` of words separated by spaces, in lines of 8 to 20 words, an occasional comma or full stop. */
export function wordsText(rng: Prng, words: readonly string[], bytes: number): string {
  return fill(bytes, () => {
    const line: string[] = [];
    const length = rng.range(8, 20);
    for (let i = 0; i < length; i++) line.push(rng.pick(words) + (rng.chance(0.05) ? "," : ""));
    return `${line.join(" ")}${rng.chance(0.5) ? "." : ""}\n`;
  });
}
