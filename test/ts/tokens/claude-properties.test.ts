// Invariants of ClaudeCounter on generated text (fast-check): a count never depends on what the
// counter has counted before (its segment cache), on batching, or on a CachingCounter around it,
// and a message never counts less than its frame.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ClaudeCounter } from "ctxwin";
import { CachingCounter, type ClaudeFamily } from "ctxwin/tokens";

// Text of every kind the stream rules care about: letters in both cases, digits, punctuation,
// spaces and newlines, combining and separator marks, CJK, emoji, curly quotes, controls.
const pieces = [
  "the",
  "The",
  "THE",
  "HTTPS",
  "it's",
  "don't",
  " ",
  "  ",
  "\n",
  "\n\n",
  "\t",
  ",",
  ".",
  "!?",
  "()",
  "=>",
  "'",
  '"',
  "42",
  "1234567",
  "٣٤",
  "½",
  "é",
  "e\u0301",
  "\u0301",
  "\u0363",
  "क्ष",
  "ก็",
  "日本語",
  "한국어",
  "😀",
  "👩‍💻",
  "☀️",
  "“",
  "”",
  "—",
  "€",
  "\u00a0",
  "\u3000",
  "\u0000",
  "\u0007",
  "\ue000",
  "İstanbul",
  "ẞ",
  "Σίσυφος",
  "ΑΘΗΝΑ",
  "\ufdd0",
];
const text = fc.oneof(
  fc.array(fc.constantFrom(...pieces), { maxLength: 30 }).map((parts) => parts.join("")),
  fc.string({ unit: "binary", maxLength: 60 }),
);

describe.each(["v3", "v4.7", "v5"] as ClaudeFamily[])("ClaudeCounter %s invariants", (family) => {
  const seasoned = new ClaudeCounter({ family }); // counts everything, so its cache is full of segments

  it("counts the same with a warm cache, a cold one, in a batch and through CachingCounter", () => {
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 8 }), (texts) => {
        const fresh = new ClaudeCounter({ family });
        const cold = texts.map((t) => fresh.count(t));
        expect(texts.map((t) => seasoned.count(t))).toEqual(cold);
        expect(Array.from(seasoned.countMany(texts))).toEqual(cold);
        const messages = texts.map((t, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content: t }));
        expect(new CachingCounter(seasoned).countMessages(messages)).toBe(fresh.countMessages(messages));
      }),
      { numRuns: 150 },
    );
  });

  it("never counts a one-message request below its frame, nor a character above its bytes and markers", () => {
    fc.assert(
      fc.property(text, (a) => {
        expect(seasoned.countMessages([{ role: "user", content: a }])).toBeGreaterThanOrEqual(seasoned.messageOverhead);
        // At worst a character falls back to its UTF-8 bytes (4) with three markers around it,
        // plus the frame's own ⟨bow⟩ and newline ladder.
        const n = seasoned.count(a);
        expect(Number.isInteger(n) && n >= 0).toBe(true);
        expect(n).toBeLessThanOrEqual(7 * [...a].length + 2);
      }),
      { numRuns: 300 },
    );
  });
});
