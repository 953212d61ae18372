// A summary's bound: the summary message is its head and a text within maxSummaryTokens, so that it
// never costs more than maxSummaryTokens + MAX_SUMMARY_HEAD_TOKENS whatever it covers. The head
// (`Summary of the 14 earlier messages (31 KB; recall by id: ...):`) names fewer ids when they would
// take it past MAX_SUMMARY_HEAD_TOKENS (the oldest are counted instead); the session's problems go
// first in the text, within what the summary's own words leave them and never less than half the
// bound (open-problems.ts boundProblemText says what goes first); the words get the rest, cut
// where a whole line or fact ends.
import type { TokenCounter } from "../tokens/token-counter.js";
import { boundProblemText } from "./open-problems.js";
import { withOneIdFewer, writeHead, type SummaryRecord } from "./summary-head.js";

/** A summary's head counts fewer tokens than this. */
export const MAX_SUMMARY_HEAD_TOKENS = 100;

/** A text in fewer tokens than this says nothing whole: past the problems, it is left out. */
const MIN_TEXT_TOKENS = 8;

/** `record` naming as many of its ids as keep its head under MAX_SUMMARY_HEAD_TOKENS. */
export function headWithin(record: SummaryRecord, counter: TokenCounter): SummaryRecord {
  let bounded = record;
  while (counter.count(writeHead(bounded)) >= MAX_SUMMARY_HEAD_TOKENS) {
    const fewer = withOneIdFewer(bounded);
    if (fewer === undefined) break;
    bounded = fewer;
  }
  return bounded;
}

/**
 * `problems` (describeProblems' text, or "") then `text`, within `maxTokens`: the problems in at most
 * what the text leaves them and never less than half of `maxTokens`, the text cut to the rest.
 */
export function withinBound(text: string, problems: string, maxTokens: number, counter: TokenCounter): string {
  if (problems === "") return cutToTokens(text, counter, maxTokens);
  const listed = boundProblemText(problems, Math.max(Math.floor(maxTokens / 2), maxTokens - counter.count(text) - 1), counter);
  if (listed === "") return cutToTokens(text, counter, maxTokens);
  let room = maxTokens - counter.count(listed) - 1;
  let body = room >= MIN_TEXT_TOKENS ? `${listed}\n${cutToTokens(text, counter, room)}` : listed;
  // The join may count a token more than its parts: the text is cut further until the whole fits.
  while (counter.count(body) > maxTokens && room > MIN_TEXT_TOKENS) body = `${listed}\n${cutToTokens(text, counter, --room)}`;
  return counter.count(body) <= maxTokens ? body : listed;
}

/**
 * `text` within `maxTokens`: after its last whole quoted fact or line that fits when that keeps
 * most of what fits (a summary in lines, as the digest writes, loses its least needed facts whole
 * rather than ending in a fragment of one), else after a whole word.
 */
export function cutToTokens(text: string, counter: TokenCounter, maxTokens: number): string {
  if (counter.count(text) <= maxTokens) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (counter.count(`${text.slice(0, mid)}...`) <= maxTokens) lo = mid;
    else hi = mid - 1;
  }
  const safe = lo > 0 && /[\uD800-\uDBFF]/.test(text[lo - 1] as string) ? lo - 1 : lo; // never half a pair
  const cut = text.slice(0, safe);
  const line = cut.lastIndexOf("\n");
  // Within a line of quoted facts ("a"; "b"; ...), after the last whole one.
  const item = cut.lastIndexOf('"; ');
  if (item > line && item > safe * 0.6) return `${cut.slice(0, item + 1)}...`;
  if (line > safe * 0.6) {
    // A heading whose items were all cut goes too.
    const kept = cut.slice(0, line);
    const last = kept.lastIndexOf("\n");
    return kept.endsWith(":") && last > 0 ? kept.slice(0, last) : kept;
  }
  const space = cut.lastIndexOf(" ");
  return `${space > safe * 0.8 ? cut.slice(0, space) : cut}...`;
}
