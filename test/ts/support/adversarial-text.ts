// Adversarial text for differential tests of tokenizers: fast-check arbitraries that mix the inputs
// where tokenizer implementations part ways. Each class below is one thing a tokenizer pipeline
// treats specially somewhere (a normalizer, a pre-tokenizer pattern, byte fallback, added tokens,
// the reading of JavaScript strings); strings are several classes glued together, so that their
// seams are tested too. Shrinking brings a failure down to a few fragments.
import fc from "fast-check";

const codePoints = (ranges: Array<[number, number]>) =>
  fc.oneof(...ranges.map(([a, b]) => fc.integer({ min: a, max: b }))).map((c) => String.fromCodePoint(c));
const repeated = (unit: fc.Arbitrary<string>, min: number, max: number) =>
  fc.tuple(unit, fc.integer({ min, max })).map(([u, n]) => u.repeat(n));

// Scripts from blocks assigned long before Unicode 15: the Rust crate's Oniguruma, utf8proc and
// PCRE2 are at Unicode 15, V8's RegExp (the JavaScript oracle's) at a newer one, and characters
// assigned since then are letters to one and not the other.
const SCRIPTS: Array<[number, number]> = [
  [0x41, 0x5a],
  [0x61, 0x7a],
  [0xc0, 0x24f],
  [0x370, 0x3ff],
  [0x400, 0x4ff],
  [0x530, 0x58f],
  [0x5d0, 0x5ea],
  [0x620, 0x64a],
  [0x904, 0x939],
  [0xe01, 0xe30],
  [0x10a0, 0x10ff],
  [0x1200, 0x1248],
  [0x3041, 0x3096],
  [0x30a1, 0x30fa],
  [0x4e00, 0x9fa5],
  [0xac00, 0xd7a3],
];
const letters = codePoints(SCRIPTS);
const words = fc.array(letters, { minLength: 1, maxLength: 12 }).map((a) => a.join(""));

const WHITESPACE = [
  " ",
  "\t",
  "\n",
  "\r",
  "\r\n",
  "\v",
  "\f",
  "\u0085",
  "\u00a0",
  "\u1680",
  "\u2000",
  "\u2003",
  "\u2009",
  "\u200a",
  "\u2028",
  "\u2029",
  "\u202f",
  "\u205f",
  "\u3000",
];
// Not whitespace, though they look like it or sit beside it.
const INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u180e"];
const whitespaceRuns = fc.array(fc.constantFrom(...WHITESPACE), { minLength: 1, maxLength: 40 }).map((a) => a.join(""));

const EMOJI = [
  "😀",
  "👍",
  "👍🏽",
  "👨‍👩‍👧‍👦",
  "👩🏾‍💻",
  "🧑‍🤝‍🧑",
  "❤️",
  "❤️‍🔥",
  "🏳️‍🌈",
  "🏴‍☠️",
  "🇫🇷",
  "🇯🇵",
  "🇺🇸🇬🇧",
  "🏴󠁧󠁢󠁳󠁣󠁴󠁿",
  "1️⃣",
  "#️⃣",
  "©️",
  "☺",
  "✈️",
];
const emoji = fc.oneof(
  fc.constantFrom(...EMOJI),
  codePoints([
    [0x1f300, 0x1f5ff],
    [0x1f600, 0x1f64f],
    [0x1f900, 0x1f9ff],
  ]),
  // A regional-indicator run of any length pairs up into flags from its start.
  fc.array(codePoints([[0x1f1e6, 0x1f1ff]]), { minLength: 1, maxLength: 5 }).map((a) => a.join("")),
);

// Lone and misordered surrogates: JavaScript strings may hold them, UTF-8 cannot.
const surrogates = fc.oneof(
  codePoints([[0xd800, 0xdfff]]),
  fc.constantFrom("\udc00\ud800", "\ud83d", "\ude00", "\ud83d\ud83d\ude00", "😀".slice(0, 1), "😀".slice(1)),
);

// Combining marks, enclosing marks among them, alone, stacked and after letters.
const marks = fc
  .array(
    codePoints([
      [0x300, 0x36f],
      [0x483, 0x489],
      [0x591, 0x5bd],
      [0x93c, 0x94d],
      [0x1ab0, 0x1abe],
      [0x20d0, 0x20f0],
      [0xfe20, 0xfe2f],
    ]),
    {
      minLength: 1,
      maxLength: 6,
    },
  )
  .map((a) => a.join(""));
const marked = fc.tuple(fc.oneof(letters, fc.constantFrom("", " ", "1", "!", "\u25cc")), marks).map(([base, m]) => base + m);

// Compatibility forms: what NFKC rewrites, and what the others keep.
const compatibility = fc.oneof(
  codePoints([
    [0xff01, 0xff5e],
    [0xff65, 0xff9f],
    [0xfb00, 0xfb06],
    [0x2460, 0x24ff],
    [0x3300, 0x33ff],
    [0x2160, 0x217f],
    [0x1d400, 0x1d6a3],
    [0x2100, 0x214f],
  ]),
  fc.constantFrom(
    "½",
    "⅓",
    "¼",
    "¾",
    "⅞",
    "⅒",
    "↉",
    "¹",
    "²",
    "³",
    "⁴",
    "₂",
    "ª",
    "º",
    "µ",
    "Å",
    "ſt",
    "ǅ",
    "ﷺ",
    "ﬁ",
    "㍿",
    "㈱",
    "…",
    "‼",
  ),
);

// Characters most vocabularies lack, which byte fallback spells as <0xXX> tokens (or the unknown
// token): rare Han, historic scripts, private use, controls, noncharacters.
const rare = codePoints([
  [0x0, 0x8],
  [0xe, 0x1f],
  [0x7f, 0x9f],
  [0x20000, 0x2a6df],
  [0x10000, 0x1005d],
  [0x12000, 0x12399],
  [0x13000, 0x1342e],
  [0xe000, 0xf8ff],
  [0xf0000, 0xf0fff],
  [0xfdd0, 0xfdef],
  [0xfffe, 0xffff],
  [0xfffd, 0xfffd],
]);

const digits = fc.oneof(
  fc.stringMatching(/^[0-9]{1,12}$/),
  codePoints([
    [0x660, 0x669],
    [0x966, 0x96f],
    [0xff10, 0xff19],
    [0x1d7ce, 0x1d7ff],
  ]),
  fc.constantFrom("3.14159", "1,000,000", "0x1F", "1e-9", "-42", "v2.0.1"),
);

const punctuation = fc.oneof(
  fc.stringMatching(/^[!-/:-@[-`{-~]{1,6}$/),
  fc.constantFrom(
    "'s",
    "'S",
    "'ll",
    "'LL",
    "'ve",
    "'ſ",
    "n't",
    "’s",
    "«",
    "»",
    "„",
    "“",
    "—",
    "–",
    "…",
    "、",
    "。",
    "《",
    "》",
    "￥",
    "§",
    "¶",
    "†",
  ),
);

// Very long words: one piece of hundreds or thousands of units (the merge loop's long path).
const longWords = fc.oneof(
  repeated(fc.constantFrom("a", "ab", "é", "日", "▁", "-", "=", " a", "😀", "\u0301"), 50, 1500),
  fc.array(fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz"), { minLength: 60, maxLength: 600 }).map((a) => a.join("")),
  fc.array(letters, { minLength: 60, maxLength: 300 }).map((a) => a.join("")),
);

/**
 * Strings that glue fragments of every class together. `specials` are the tokenizer's added and
 * special tokens' texts: they are inserted whole, cut short and nested inside ordinary text.
 */
export function adversarialText(specials: readonly string[] = []): fc.Arbitrary<string> {
  const special =
    specials.length === 0
      ? fc.constant("<|endoftext|>")
      : fc.oneof(
          fc.constantFrom(...specials),
          fc.constantFrom(...specials).chain((s) => fc.integer({ min: 1, max: Math.max(1, s.length - 1) }).map((n) => s.slice(0, n))),
          fc.tuple(fc.constantFrom(...specials), words).map(([s, w]) => `${w}${s}${w}`),
          fc.tuple(fc.constantFrom(...specials), fc.constantFrom(...specials)).map(([a, b]) => a.slice(0, 1) + b + a.slice(1)),
        );
  const fragment = fc.oneof(
    { weight: 6, arbitrary: words },
    { weight: 4, arbitrary: whitespaceRuns },
    { weight: 1, arbitrary: fc.constantFrom(...INVISIBLE) },
    { weight: 3, arbitrary: emoji },
    { weight: 2, arbitrary: surrogates },
    { weight: 3, arbitrary: marked },
    { weight: 3, arbitrary: compatibility },
    { weight: 2, arbitrary: rare },
    { weight: 2, arbitrary: digits },
    { weight: 3, arbitrary: punctuation },
    { weight: 3, arbitrary: special },
    { weight: 1, arbitrary: longWords },
  );
  return fc.array(fragment, { minLength: 1, maxLength: 14 }).map((parts) => parts.join(""));
}

/** The texts of a tokenizer.json's added tokens (special or not). */
export function addedTokenTexts(tokenizerJson: Record<string, unknown>, limit = 400): string[] {
  const added = Array.isArray(tokenizerJson.added_tokens) ? (tokenizerJson.added_tokens as Array<{ content?: unknown }>) : [];
  const texts = added.map((t) => t.content).filter((c): c is string => typeof c === "string" && c.length > 0);
  // Gemma has thousands of <unusedN> tokens: keep every kind, not only those.
  const step = Math.max(1, Math.floor(texts.length / limit));
  return texts.filter((_text, i) => i < 64 || i % step === 0);
}

/**
 * Text of `length` units drawn from `alphabet` (its code points) by a seeded linear congruential
 * generator: the long single pieces of the long-piece tests, reproducible from the seed that
 * fast-check reports.
 */
export function seededText(alphabet: string, length: number, seed: number): string {
  const units = Array.from(alphabet);
  let state = seed;
  let text = "";
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    text += units[state % units.length];
  }
  return text;
}
