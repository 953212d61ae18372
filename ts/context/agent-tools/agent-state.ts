// What a manager or an adapter keeps for its agent tools and notices, one object each: the
// compactions so far (CompactionLog), the compaction compact_context queued, the text the agent
// asked to carry through it, and the notices owed to the next request. The owner calls
// `beforeRequest` at its one safe point, the start of a request, and `compacted` for every report.
import type { CompactionReport } from "../../compaction/progressive-compaction.js";
import type { OmissionMarker } from "../../messages/omission-marker.js";
import type { MessageLike } from "../../messages/types.js";
import { describe, requireString, typeError } from "../../runtime/errors.js";
import { CompactionLog, idList, type CompactionEntry } from "./compaction-log.js";
import type { CompactionRequest } from "./context-tools.js";
import { bounded, checkNoticeOptions, noteMessage, warningText, type NoticeEvent, type NoticeOptions } from "./notices.js";

/** A compaction compact_context queued, its `keep` split into the ids found and a text. */
export interface PendingCompaction {
  reason: string;
  keep: string[];
  text?: string;
}

/** The longest `keep` text carried (characters). */
export const MAX_KEEP_CHARS = 1000;

export class AgentState {
  readonly log = new CompactionLog();
  readonly notices: NoticeOptions;
  /** Requests so far (the owner counts them in beforeRequest). */
  requests = 0;
  pending: PendingCompaction | undefined;
  /** The text the agent asked to keep at its last compaction: a note after the system messages until the next compaction. */
  carried: string | undefined;
  private owed: string | undefined;
  private warned = false;

  constructor(
    notices: unknown,
    private readonly emit: (event: NoticeEvent) => void,
    name = "options.notices",
  ) {
    this.notices = checkNoticeOptions(notices, name);
  }

  /** compact_context's input checked; `keep` split by `known` (whether an id names a message of the context). */
  check(request: unknown, known: (id: string) => boolean): PendingCompaction {
    if (request === null || typeof request !== "object" || Array.isArray(request))
      throw typeError(`request must be an object { reason, keep? }, got ${describe(request)}`);
    const { reason, keep } = request as CompactionRequest;
    requireString(reason, "request.reason");
    if (keep !== undefined && typeof keep !== "string" && !(Array.isArray(keep) && keep.every((k) => typeof k === "string")))
      throw typeError(`request.keep must be a string or an array of strings, got ${describe(keep)}`);
    const entries = keep === undefined ? [] : typeof keep === "string" ? [keep] : keep;
    const ids = entries.filter((k) => known(k));
    const texts = entries.filter((k) => !known(k) && k.trim() !== "");
    const text = texts.length === 0 ? undefined : texts.join("; ").slice(0, MAX_KEEP_CHARS);
    return { reason, keep: [...new Set(ids)], ...(text === undefined ? {} : { text }) };
  }

  /** Records a compaction (the queued one's reason with it) and owes the notice after it. */
  compacted<M extends MessageLike>(
    report: CompactionReport<M>,
    openProblems: readonly string[],
    reason?: string,
  ): CompactionEntry | undefined {
    const entry = this.log.add(report, this.requests + 1, reason);
    if (entry === undefined) return undefined;
    this.warned = false;
    if (this.notices.afterCompaction === true) {
      this.owed = bounded(
        `Context compacted: ${entry.what}; recall ids ${idList(entry.ids)}` +
          (openProblems.length > 0 ? `; open problems: ${openProblems.slice(0, 3).join("; ")}` : "; no open problems") +
          (this.carried === undefined ? "" : "; your kept note is carried after the system prompt") +
          ". Call recall(id) to read any of it again, context_status for the rest.",
      );
    }
    return entry;
  }

  /**
   * The notes of this request: `head` (the kept text, after the system messages, for as long as it
   * is carried) and `tail` (the notices owed, once). `tokens`, `limit` and `trimLine` (a share) say
   * how full the request is, for the warning before a compaction.
   */
  notesFor(
    tokens: number,
    limit: number,
    trimLine: number,
    room: number,
    cost: (note: OmissionMarker) => number,
  ): { head?: OmissionMarker; tail: OmissionMarker[] } {
    // A note joins the request only while `room` (tokens the request may still take) holds its
    // `cost`: the notes are counted after the fit, and a notice that does not fit stays owed.
    const fits = (note: OmissionMarker): boolean => {
      const tokens = cost(note);
      if (tokens > room) return false;
      room -= tokens;
      return true;
    };
    const carried = this.carried === undefined ? undefined : noteMessage(`Kept through compaction at your request: ${this.carried}`);
    const head = carried !== undefined && fits(carried) ? carried : undefined;
    const tail: OmissionMarker[] = [];
    const at = this.notices.beforeCompaction?.at;
    if (at !== undefined && tokens < at * limit) this.warned = false;
    if (at !== undefined && !this.warned && tokens >= at * limit && this.owed === undefined) {
      const text = warningText(tokens, limit, trimLine);
      const note = noteMessage(text);
      if (fits(note)) {
        this.warned = true;
        tail.push(note);
        this.emit({ kind: "beforeCompaction", text, tokens, limit });
      }
    }
    if (this.owed !== undefined) {
      const note = noteMessage(this.owed);
      if (fits(note)) {
        tail.push(note);
        this.emit({ kind: "afterCompaction", text: this.owed, tokens, limit });
        this.owed = undefined;
      }
    }
    return head === undefined ? { tail } : { head, tail };
  }
}
