// What a recall returns of an original: all of it, a range of its lines, or the lines that match
// a pattern, cut to a token bound counted with the manager's own counter. A cut answer says so
// and says which lines to ask for next, so that the agent can page through a long original.
import type { BatchTokenCounter, TokenCounter } from "../tokens/token-counter.js";

export interface RecallQuery {
  /** First and last line to return, 1-based and inclusive (`[10, 40]`); the last may pass the end. */
  lines?: readonly [from: number, to: number];
  /** A regular expression (JavaScript syntax, no flags): only the lines it matches, each with its number. */
  pattern?: string;
  /** At most this many tokens of original text (default: the Recall's `maxTokens`). */
  maxTokens?: number;
}

export interface RecallSelection {
  text: string;
  /** The original's lines. */
  totalLines: number;
  /** The lines returned, 1-based (for a pattern: the matching lines returned). */
  fromLine: number;
  toLine: number;
  matches?: number;
  truncated: boolean;
  tokens: number;
}

/**
 * Selects from `original` what `query` asks for, within `maxTokens` of `counter`'s tokens: whole
 * lines while they fit (a single line longer than the bound is cut inside). The whole original
 * when it fits comes back unchanged, byte for byte.
 */
export function selectFromOriginal(original: string, query: RecallQuery, pattern: RegExp | undefined, maxTokens: number, counter: TokenCounter): RecallSelection {
  const lines = original.split("\n");
  const total = lines.length;
  if (query.lines === undefined && pattern === undefined) {
    const tokens = counter.count(original);
    if (tokens <= maxTokens) return { text: original, totalLines: total, fromLine: 1, toLine: total, truncated: false, tokens };
  }
  let picked: Array<{ number: number; text: string }>;
  if (pattern !== undefined) {
    picked = [];
    lines.forEach((text, i) => {
      pattern.lastIndex = 0;
      if (pattern.test(text)) picked.push({ number: i + 1, text: `${i + 1}: ${text}` });
    });
  } else {
    const [from, to] = query.lines ?? [1, total];
    picked = lines.slice(from - 1, Math.min(to, total)).map((text, k) => ({ number: from + k, text }));
  }
  // Lines while they fit; the counts of all of them in one batch.
  const texts = picked.map((p) => `${p.text}\n`);
  const batch = (counter as Partial<BatchTokenCounter>).countMany;
  const counts = typeof batch === "function" ? batch.call(counter, texts) : texts.map((t) => counter.count(t));
  const kept: string[] = [];
  let tokens = 0;
  let last = 0;
  for (let k = 0; k < picked.length; k++) {
    const cost = counts[k] ?? 0;
    if (tokens + cost > maxTokens) {
      if (kept.length === 0) {
        const cut = cutToTokens((picked[k] as { text: string }).text, maxTokens, counter);
        kept.push(cut);
        tokens = counter.count(cut);
        last = (picked[k] as { number: number }).number;
      }
      break;
    }
    kept.push((picked[k] as { text: string }).text);
    tokens += cost;
    last = (picked[k] as { number: number }).number;
  }
  const truncated = kept.length < picked.length || (picked.length > 0 && kept[kept.length - 1] !== picked[kept.length - 1]?.text);
  return {
    text: kept.join("\n"),
    totalLines: total,
    fromLine: picked[0]?.number ?? 0,
    toLine: last,
    ...(pattern === undefined ? {} : { matches: picked.length }),
    truncated,
    tokens,
  };
}

/** The longest prefix of `text` (by code points) within `maxTokens`: a binary search over its length. */
function cutToTokens(text: string, maxTokens: number, counter: TokenCounter): string {
  const points = Array.from(text);
  let lo = 0;
  let hi = points.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (counter.count(points.slice(0, mid).join("")) <= maxTokens) lo = mid;
    else hi = mid - 1;
  }
  return points.slice(0, lo).join("");
}
