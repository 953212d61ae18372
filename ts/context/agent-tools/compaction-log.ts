// The compactions of a session as the agent reads them: one line each, with what it took and the
// ids that read it back (recall). context_status lists the newest; the notice after a compaction
// is made from its entry. Kept bounded: the last MAX_ENTRIES, and a count of all.
import type { CompactionReport } from "../../compaction/progressive-compaction.js";
import { messageId } from "../../compaction/tool-events.js";
import type { MessageLike } from "../../messages/types.js";

/** One compaction as the agent reads it. */
export interface CompactionEntry {
  /** The request (1-based) it happened before. */
  request: number;
  /** The agent's reason, when compact_context asked for it. */
  reason?: string;
  summarized: number;
  /** Old tool results replaced by placeholders (level 2). */
  cleared: number;
  /** Tool results cut to a bound (level 1) and reasoning cleared (level 0). */
  cut: number;
  /** Messages a trim dropped (level 4). */
  dropped: number;
  tokensBefore: number;
  tokensAfter: number;
  /** The ids of what it took, oldest first (recall reads them back). */
  ids: string[];
  /** What it took, in words ("31 messages summarized, 12 tool results cleared"). */
  what: string;
  /** The entry as one line. */
  line: string;
}

/** Entries kept; older ones are counted only. */
export const MAX_ENTRIES = 20;
/** Ids a line names; the rest are counted ("and 14 more"). */
export const MAX_LINE_IDS = 8;

/** `ids` named up to `max`, the rest counted. */
export function idList(ids: readonly string[], max = MAX_LINE_IDS): string {
  if (ids.length === 0) return "none";
  const shown = ids.slice(0, max).join(", ");
  return ids.length > max ? `${shown} and ${ids.length - max} more` : shown;
}

function changedBy<M>(report: CompactionReport<M>, ...names: string[]): number {
  return report.levels.filter((l) => l.applied && names.includes(l.name)).reduce((n, l) => n + l.messagesChanged, 0);
}

export class CompactionLog {
  private readonly kept: CompactionEntry[] = [];
  /** Every compaction so far, the forgotten ones included. */
  total = 0;

  get entries(): readonly CompactionEntry[] {
    return this.kept;
  }

  get last(): CompactionEntry | undefined {
    return this.kept.at(-1);
  }

  /** Records `report` (nothing when no level took anything) and returns its entry. */
  add<M extends MessageLike>(report: CompactionReport<M>, request: number, reason?: string): CompactionEntry | undefined {
    const summarized = report.summary === undefined ? 0 : report.removed.length;
    const dropped = report.summary === undefined ? report.removed.length : changedBy(report, "truncate");
    const cleared = changedBy(report, "clear_old_tool_results");
    const cut = changedBy(report, "compact_tool_results", "clear_old_reasoning");
    if (summarized + dropped + cleared + cut === 0) return undefined;
    const ids = [...new Set([...report.replaced.map((r) => messageId(r.before)), ...report.removed.map((m) => messageId(m))])];
    const what = [
      summarized > 0 ? `${summarized} messages summarized` : "",
      cleared > 0 ? `${cleared} tool results cleared` : "",
      cut > 0 ? `${cut} results or reasoning cut` : "",
      dropped > 0 ? `${dropped} messages dropped` : "",
    ]
      .filter((s) => s !== "")
      .join(", ");
    const line =
      `#${this.total + 1} before request ${request}${reason === undefined ? "" : ` (asked: ${reason.slice(0, 80)})`}: ` +
      `${what}; ${report.tokensBefore} -> ${report.tokensAfter} tokens; recall ids ${idList(ids)}`;
    const entry: CompactionEntry = {
      request,
      ...(reason === undefined ? {} : { reason }),
      summarized,
      cleared,
      cut,
      dropped,
      tokensBefore: report.tokensBefore,
      tokensAfter: report.tokensAfter,
      ids,
      what,
      line,
    };
    this.total++;
    this.kept.push(entry);
    if (this.kept.length > MAX_ENTRIES) this.kept.shift();
    return entry;
  }
}
