// What a recall returns of an original: all of it, a range of its lines, or the lines that match
// a pattern, cut to a token bound counted with the manager's own counter. A cut answer says so
// and says where to read on, so that the agent can page through a long original: by whole lines,
// and inside a line longer than one answer (a minified JSON result is one line) by its column.
import type { BatchTokenCounter, TokenCounter } from "../tokens/token-counter.js";

export interface RecallQuery {
  /** First and last line to return, 1-based and inclusive (`[10, 40]`); the last may pass the end. */
  lines?: readonly [from: number, to: number];
  /**
   * With `lines`: the first line from this column on (1-based, in code points), to read on inside
   * a line longer than one answer (an answer cut inside a line names the column to ask for next).
   */
  column?: number;
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
  /** Set when the first line returned starts inside it (the query's `column`). */
  fromColumn?: number;
  /** Set when the last line returned was cut inside: the column (1-based, code points) its rest starts at. */
  nextColumn?: number;
  matches?: number;
  truncated: boolean;
  tokens: number;
}

interface Picked {
  number: number;
  text: string;
  /** The column (1-based, code points) `text` starts at in its line. */
  column: number;
}

/**
 * Selects from `original` what `query` asks for, within `maxTokens` of `counter`'s tokens: whole
 * lines while they fit (a single line longer than the bound is cut inside, and `nextColumn` says
 * where its rest starts). The whole original when it fits comes back unchanged, byte for byte;
 * pages read by `lines` (and `column`) join back into it: a page that ends inside a line is
 * continued by the next one as it is, any other page after a newline.
 */
export function selectFromOriginal(
  original: string,
  query: RecallQuery,
  pattern: RegExp | undefined,
  maxTokens: number,
  counter: TokenCounter,
): RecallSelection {
  const lines = original.split("\n");
  const total = lines.length;
  if (query.lines === undefined && pattern === undefined) {
    const tokens = counter.count(original);
    if (tokens <= maxTokens) return { text: original, totalLines: total, fromLine: 1, toLine: total, truncated: false, tokens };
  }
  let picked: Picked[];
  const column = query.column ?? 1;
  if (pattern !== undefined) {
    picked = [];
    lines.forEach((text, i) => {
      pattern.lastIndex = 0;
      if (pattern.test(text)) picked.push({ number: i + 1, text: `${i + 1}: ${text}`, column: 1 });
    });
  } else {
    const [from, to] = query.lines ?? [1, total];
    picked = lines.slice(from - 1, Math.min(to, total)).map((text, k) =>
      k === 0 && column > 1
        ? {
            number: from,
            text: Array.from(text)
              .slice(column - 1)
              .join(""),
            column,
          }
        : { number: from + k, text, column: 1 },
    );
  }
  // Lines while they fit; the counts of all of them in one batch.
  const texts = picked.map((p) => `${p.text}\n`);
  const batch = (counter as Partial<BatchTokenCounter>).countMany;
  const counts = typeof batch === "function" ? batch.call(counter, texts) : texts.map((t) => counter.count(t));
  const kept: string[] = [];
  let tokens = 0;
  let last = 0;
  let nextColumn: number | undefined;
  for (let k = 0; k < picked.length; k++) {
    const cost = counts[k] ?? 0;
    const line = picked[k] as Picked;
    if (tokens + cost > maxTokens) {
      if (kept.length === 0) {
        const cut = cutToTokens(line.text, maxTokens, counter);
        kept.push(cut.text);
        tokens = counter.count(cut.text);
        last = line.number;
        if (cut.points < cut.of && pattern === undefined) nextColumn = line.column + cut.points;
      }
      break;
    }
    kept.push(line.text);
    tokens += cost;
    last = line.number;
  }
  const truncated = kept.length < picked.length || (picked.length > 0 && kept[kept.length - 1] !== picked[kept.length - 1]?.text);
  return {
    text: kept.join("\n"),
    totalLines: total,
    fromLine: picked[0]?.number ?? 0,
    toLine: last,
    ...(pattern === undefined && column > 1 && picked.length > 0 ? { fromColumn: column } : {}),
    ...(nextColumn === undefined ? {} : { nextColumn }),
    ...(pattern === undefined ? {} : { matches: picked.length }),
    truncated,
    tokens,
  };
}

/**
 * The longest prefix of `text` (by code points) within `maxTokens`: a binary search over its
 * length. At least one code point, so that an agent paging through a line always moves on (a
 * single code point may take more than one token).
 */
function cutToTokens(text: string, maxTokens: number, counter: TokenCounter): { text: string; points: number; of: number } {
  const points = Array.from(text);
  let lo = 0;
  let hi = points.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (counter.count(points.slice(0, mid).join("")) <= maxTokens) lo = mid;
    else hi = mid - 1;
  }
  const taken = Math.min(points.length, Math.max(1, lo));
  return { text: points.slice(0, taken).join(""), points: taken, of: points.length };
}
