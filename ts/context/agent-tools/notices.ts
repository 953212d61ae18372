// Notices: what the model is told about its own context, opt-in. After a compaction, once, what
// went (counts, the recall ids that read it back, the open problems still carried); before one, once
// per crossing, that the window is filling and compact_context can choose what to keep. Both are
// bounded (NOTICE_MAX_CHARS) and go at the end of one request only: the prefix a provider's prompt
// cache holds is not touched for them, and the next request no longer carries them.
import { describe, rangeError, typeError } from "../../runtime/errors.js";
import type { OmissionMarker } from "../../messages/omission-marker.js";

/** `notices` on the manager and every adapter. Both are off unless set. */
export interface NoticeOptions {
  /** The model is told once, in the next request, what a compaction took ("Context compacted: ..."). */
  afterCompaction?: boolean;
  /** The model is warned once when the request reaches `at` of the window (a share in (0, 1)), before the compaction that comes at the trim line. */
  beforeCompaction?: { at: number };
}

/** A notice as the `notice` event (the manager) and `onNotice` (the adapters) give it. */
export interface NoticeEvent {
  kind: "afterCompaction" | "beforeCompaction";
  /** The text the model receives. */
  text: string;
  /** The request's tokens and the window's effective limit when it was given. */
  tokens: number;
  limit: number;
}

/** A notice's text is at most this many characters (about 200 tokens): it is there to point, recall and context_status give the rest. */
export const NOTICE_MAX_CHARS = 800;
/** Every note ctxwin writes for the agent starts so: an adapter recognises its own notes in a history the framework kept. */
export const NOTE_PREFIX = "[ctxwin] ";

/** `value` checked as NoticeOptions (`name` in the error). */
export function checkNoticeOptions(value: unknown, name: string): NoticeOptions {
  if (value === undefined) return {};
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw typeError(`${name} must be an object, got ${describe(value)}`);
  const { afterCompaction, beforeCompaction, ...rest } = value as NoticeOptions;
  const extra = Object.keys(rest)[0];
  if (extra !== undefined) throw typeError(`${name}.${extra} is not an option (${name} takes afterCompaction, beforeCompaction)`);
  if (afterCompaction !== undefined && typeof afterCompaction !== "boolean")
    throw typeError(`${name}.afterCompaction must be a boolean, got ${describe(afterCompaction)}`);
  if (beforeCompaction !== undefined) {
    if (beforeCompaction === null || typeof beforeCompaction !== "object")
      throw typeError(`${name}.beforeCompaction must be an object { at }, got ${describe(beforeCompaction)}`);
    const at = beforeCompaction.at;
    if (typeof at !== "number" || !(at > 0 && at < 1))
      throw (typeof at === "number" ? rangeError : typeError)(
        `${name}.beforeCompaction.at must be a number in (0, 1), got ${describe(at)}`,
      );
  }
  return { afterCompaction, beforeCompaction };
}

/** `text` cut to `max` characters, saying so. */
export function bounded(text: string, max = NOTICE_MAX_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max - 2)} …`;
}

/** A note for the model, in the role ctxwin's inserted messages take. */
export function noteMessage(text: string): OmissionMarker {
  return { role: "user", content: NOTE_PREFIX + text };
}

/** Whether `message` is a note ctxwin wrote for the agent (by its text: a framework may hand back copies). */
export function isAgentNote(message: unknown): boolean {
  if (typeof message !== "object" || message === null) return false;
  const content = (message as { content?: unknown }).content;
  const text =
    typeof content === "string"
      ? content
      : Array.isArray(content) && content.length === 1 && typeof (content[0] as { text?: unknown })?.text === "string"
        ? ((content[0] as { text: string }).text as string)
        : undefined;
  return (message as { role?: unknown }).role === "user" && text !== undefined && text.startsWith(NOTE_PREFIX);
}

/** The warning before a compaction. */
export function warningText(tokens: number, limit: number, trimLine: number): string {
  const percent = Math.round((tokens / Math.max(1, limit)) * 100);
  return bounded(
    `Context ${percent}% full (${tokens} of ${limit} tokens); old tool results are cleared or summarized at about ${Math.round(trimLine * 100)}%. ` +
      "Call compact_context({ reason, keep }) now to choose what stays verbatim, or context_status to see what fills it.",
  );
}
