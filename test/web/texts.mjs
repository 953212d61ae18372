// The texts every runtime counts: generated from a fixed seed, so each run counts the same ones,
// and hostile to a tokenizer on purpose: mixed scripts, astral characters and lone surrogates,
// text that spells special tokens, huge single pieces, whitespace and digit runs, code.
const POOLS = [
  "the quick brown fox jumps over the lazy dog ",
  "function add(a, b) {\n  return a + b; // sum\n}\n",
  "日本語のテキストと漢字、ひらがな。",
  "Привет, мир! Съешь ещё этих мягких булок. ",
  "مرحبا بالعالم، هذا نص عربي. ",
  "🙂🚀👩‍👩‍👧‍👦🇫🇷 ",
  "e\u0301a\u0300o\u0308 ",
  "\uD800 \uDFFF x\uD83D ",
  "<|endoftext|><|fim_prefix|><|endofprompt|> ",
  "\n\n\t   \r\n",
  "1234567890 3.14159 1e-9 ",
  "SELECT * FROM users WHERE id = 42; ",
  "ÀÉÎÕÜ àéîõü ß Ωμέγα ",
  "한국어 텍스트 ",
];

function mulberry32(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function makeTexts(count = 48, seed = 27) {
  const random = mulberry32(seed);
  const texts = ["", "hello world", "a".repeat(20000), "!".repeat(5000), " ".repeat(3000), "🙂".repeat(2000)];
  while (texts.length < count) {
    let text = "";
    const parts = 1 + Math.floor(random() * 12);
    for (let i = 0; i < parts; i++) {
      const pool = POOLS[Math.floor(random() * POOLS.length)];
      const start = Math.floor(random() * pool.length);
      text += pool.slice(start) + pool.slice(0, Math.floor(random() * pool.length));
    }
    texts.push(text);
  }
  return texts;
}
