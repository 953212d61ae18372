// Where the part of a request that compaction rewrote ends: the last message that carries what
// a compaction wrote (the omission marker of a trim, the summary of old turns, the placeholder of
// a cleared tool result). A cache breakpoint there is read by every request until the next
// compaction, even when the next one rewrites what comes after it. The other helper (the
// recall work) may change the placeholder's words; its first characters are matched, from the
// level that writes it.
import { CLEARED_TOOL_RESULT } from "../compaction/levels/clear-old-tool-results.js";
import { SUMMARY_HEAD } from "../compaction/summary-head.js";
import { isOmissionMarkerText } from "../messages/omission-marker.js";

/** Whether a text is one a compaction wrote. */
export function isCompactionText(text: string): boolean {
  return isOmissionMarkerText(text) || SUMMARY_HEAD.test(text) || text.startsWith(CLEARED_TOOL_RESULT);
}

/** The texts of a message's content, whatever its shape (a string, text parts, tool results' outputs), at most `depth` levels down. */
function* textsOf(value: unknown, depth = 4): Generator<string> {
  if (typeof value === "string") {
    yield value;
    return;
  }
  if (depth === 0 || value === null || typeof value !== "object") return;
  if (Array.isArray(value)) {
    for (const item of value) yield* textsOf(item, depth - 1);
    return;
  }
  const record = value as Record<string, unknown>;
  for (const key of ["text", "content", "value", "output"]) if (key in record) yield* textsOf(record[key], depth - 1);
}

/** The index of the last message holding a text a compaction wrote, or -1. */
export function lastCompactionBoundary(messages: ReadonlyArray<{ content?: unknown }>): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    for (const text of textsOf(messages[i]?.content)) if (isCompactionText(text)) return i;
  }
  return -1;
}
