// What MessageContextManager writes to a session's log, and how its view is derived from the log.
//
// Messages are appended once, under an id the writer gives them. Everything that changes what the
// model sees (a trim, a compaction, /clear, an import) is a boundary that names messages by id:
// nothing before it is rewritten, so the log keeps every original message and a replay of it,
// by any worker, gives the same view. A snapshot entry holds the whole view at its point, so a
// replay can start at the last one; the replay is a fold, entry by entry, so what it holds is the
// view, never the log it reads.
import { checkMessage } from "../messages/message-shape.js";
import { omissionNamesOf, omissionNamesProblem, type OmissionNames } from "../messages/omission-marker.js";
import { quoted } from "../runtime/errors.js";
import type { InsertedRole } from "../messages/roles.js";
import type { MessageLike } from "../messages/types.js";
import { SNAPSHOT_TYPE, corruptError, type SessionEntry } from "./store.js";

/**
 * Where the omission marker stands: right after the message with id `after` (null: first). Named
 * by the message before it, since messages added later go after the marker.
 */
export interface LoggedMarker extends OmissionNames {
  after: string | null;
  omitted: number;
  role: InsertedRole;
}

export interface MessageEntry extends SessionEntry {
  type: "message";
  id: string;
  message: MessageLike;
  /** A summary written by a compaction (kept like a system message). */
  summary?: true;
}

export type Boundary =
  /**
   * A trim: these messages left the view; the marker as it stands after the trim. `leftOut`: the
   * message just before it, which never entered the view (a tool result whose call a trim removed).
   */
  | { kind: "trim"; removed: string[]; marker: LoggedMarker | null; leftOut?: true }
  /** Compaction levels 1-2: new content for messages that stay where they are. */
  | { kind: "replace"; messages: Array<{ id: string; message: MessageLike }> }
  /** Compaction level 3: these messages became one summary, placed where the first of them was. */
  | { kind: "summary"; removed: string[]; id: string; message: MessageLike }
  /** /clear, or the start of an import or load: the view starts again from here. */
  | { kind: "clear" }
  /** The omission marker of an imported context. */
  | { kind: "marker"; marker: LoggedMarker | null };

export interface BoundaryEntry extends SessionEntry {
  type: "boundary";
  boundary: Boundary;
}

export interface SystemPromptEntry extends SessionEntry {
  type: "system";
  prompt: string | null;
}

export interface MetadataEntry extends SessionEntry {
  type: "metadata";
  metadata: Record<string, unknown>;
}

/**
 * The whole view at one point of the log: a reader may start here instead of at the beginning
 * (the store tells where the last one is). The messages keep their ids, so later boundaries that
 * name them mean the same thing.
 */
export interface SnapshotEntry extends SessionEntry {
  type: typeof SNAPSHOT_TYPE;
  messages: Array<{ id: string; message: MessageLike; summary?: true }>;
  marker: LoggedMarker | null;
  /** The system prompt (null: none; absent: never set). */
  prompt?: string | null;
  metadata?: Record<string, unknown>;
}

export type ContextEntry = MessageEntry | BoundaryEntry | SystemPromptEntry | MetadataEntry | SnapshotEntry;

export interface ViewEntry {
  id: string;
  message: MessageLike;
  summary: boolean;
}

/** The manager's view of a session, derived from its log. */
export interface ContextView {
  entries: ViewEntry[];
  marker: ({ index: number; omitted: number; role: InsertedRole } & OmissionNames) | undefined;
  systemPrompt: string | null | undefined;
  metadata: Record<string, unknown> | undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
// Index by index: every() skips holes, which a store of one's own may hand over.
const isIdList = (v: unknown): v is string[] => {
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) if (typeof v[i] !== "string") return false;
  return true;
};
const isMarker = (v: unknown): boolean =>
  v === null ||
  (isObject(v) &&
    (v.after === null || typeof v.after === "string") &&
    typeof v.omitted === "number" &&
    Number.isSafeInteger(v.omitted) &&
    v.omitted >= 0 &&
    (v.role === "system" || v.role === "user" || v.role === "assistant") &&
    omissionNamesProblem(v) === undefined);

/** What is wrong with a logged message, or undefined: the manager's own check, worded for a log. */
function messageProblem(message: unknown, what: string): string | undefined {
  if (!isObject(message) || typeof message.role !== "string") return `has no ${what} object with a role`;
  try {
    checkMessage(message, what);
    return undefined;
  } catch (error) {
    return `has a malformed ${what}: ${(error as Error).message}`;
  }
}

/** What is wrong with an entry of a type the manager writes, or undefined (other types pass: they are skipped). */
function problemOf(entry: unknown): string | undefined {
  if (!isObject(entry) || typeof entry.type !== "string") return "is not an entry (an object with a string type)";
  switch (entry.type) {
    case "message":
      if (typeof entry.id !== "string") return "has no string id";
      return messageProblem(entry.message, "message");
    case "system":
      return entry.prompt === null || typeof entry.prompt === "string" ? undefined : "has a prompt that is neither a string nor null";
    case "metadata":
      return isObject(entry.metadata) ? undefined : "has metadata that is not an object";
    case SNAPSHOT_TYPE: {
      if (!Array.isArray(entry.messages)) return "is a snapshot without a list of messages";
      for (const [i, m] of entry.messages.entries()) {
        if (!isObject(m) || typeof m.id !== "string") return `is a snapshot whose messages[${i}] has no string id`;
        const problem = messageProblem(m.message, `messages[${i}].message`);
        if (problem) return `is a snapshot that ${problem}`;
      }
      if (!isMarker(entry.marker)) return "is a snapshot with a malformed marker";
      if (entry.prompt !== undefined && entry.prompt !== null && typeof entry.prompt !== "string")
        return "is a snapshot with a prompt that is neither a string nor null";
      if (entry.metadata !== undefined && !isObject(entry.metadata)) return "is a snapshot with metadata that is not an object";
      return undefined;
    }
    case "boundary": {
      const b = entry.boundary;
      if (!isObject(b) || typeof b.kind !== "string") return "has no boundary object with a kind";
      if (b.kind === "trim") return isIdList(b.removed) && isMarker(b.marker) ? undefined : "is a trim without a list of ids and a marker";
      if (b.kind === "replace") {
        if (!Array.isArray(b.messages)) return "is a replace without a list of { id, message }";
        // entries() visits holes too (as undefined), where every() would skip them.
        for (const [i, m] of b.messages.entries()) {
          if (!isObject(m) || typeof m.id !== "string") return "is a replace without a list of { id, message }";
          const problem = messageProblem(m.message, `boundary.messages[${i}].message`);
          if (problem) return `is a replace that ${problem}`;
        }
        return undefined;
      }
      if (b.kind === "summary") {
        if (!isIdList(b.removed) || typeof b.id !== "string") return "is a summary without removed ids, an id and a message";
        return messageProblem(b.message, "boundary.message");
      }
      if (b.kind === "marker") return isMarker(b.marker) ? undefined : "is a marker boundary with a malformed marker";
      return undefined;
    }
    default:
      return undefined;
  }
}

/**
 * Derives the view entry by entry, in log order (a fold: it holds the view, not the entries).
 * Entries of types it does not know (another tool's) are skipped; an entry of a type the manager
 * writes whose shape is wrong (a corrupt or foreign log) throws ERR_CTXWIN_SESSION_CORRUPT,
 * naming its position, and leaves the replay as it was.
 */
export class ContextReplay {
  private view: ViewEntry[] = [];
  private marker: LoggedMarker | null = null;
  private systemPrompt: string | null | undefined;
  private metadata: Record<string, unknown> | undefined;

  /** Applies the entry at log position `seq`. */
  apply(entry: SessionEntry, seq: number): void {
    let problem: string | undefined;
    try {
      problem = problemOf(entry);
    } catch (error) {
      // A store of one's own may hand over what throws when read (a getter, a Proxy): corrupt too.
      problem = `cannot be read: it threw ${quoted(error instanceof Error ? `${error.name}: ${error.message}` : String(error))}`;
    }
    if (problem !== undefined) throw corruptError(`session log entry ${seq} ${problem}`);
    this.applyChecked(entry);
  }

  private drop(ids: readonly string[]): void {
    const gone = new Set(ids);
    this.view = this.view.filter((e) => !gone.has(e.id));
  }

  private applyChecked(entry: SessionEntry): void {
    switch (entry.type) {
      case "message": {
        const e = entry as MessageEntry;
        this.view.push({ id: e.id, message: e.message, summary: e.summary === true });
        break;
      }
      case "system":
        this.systemPrompt = (entry as SystemPromptEntry).prompt;
        break;
      case "metadata":
        this.metadata = (entry as MetadataEntry).metadata;
        break;
      case SNAPSHOT_TYPE: {
        const s = entry as SnapshotEntry;
        this.view = s.messages.map((m) => ({ id: m.id, message: m.message, summary: m.summary === true }));
        this.marker = s.marker;
        if (s.prompt !== undefined) this.systemPrompt = s.prompt;
        if (s.metadata !== undefined) this.metadata = s.metadata;
        break;
      }
      case "boundary": {
        const b = (entry as BoundaryEntry).boundary;
        if (b.kind === "trim") {
          this.drop(b.removed);
          this.marker = b.marker;
        } else if (b.kind === "replace") {
          const next = new Map(b.messages.map((m) => [m.id, m.message]));
          this.view = this.view.map((e) => (next.has(e.id) ? { ...e, message: next.get(e.id) as MessageLike } : e));
        } else if (b.kind === "summary") {
          const gone = new Set(b.removed);
          let at = this.view.findIndex((e) => gone.has(e.id));
          this.drop(b.removed);
          if (at < 0) at = this.view.length;
          this.view.splice(Math.min(at, this.view.length), 0, { id: b.id, message: b.message, summary: true });
          this.marker = null;
        } else if (b.kind === "clear") {
          this.view = [];
          this.marker = null;
        } else if (b.kind === "marker") {
          this.marker = b.marker;
        }
        break;
      }
    }
  }

  /** A replay that goes on from this one's state (this one stays as it is). */
  clone(): ContextReplay {
    const copy = new ContextReplay();
    copy.view = this.view.slice();
    copy.marker = this.marker;
    copy.systemPrompt = this.systemPrompt;
    copy.metadata = this.metadata;
    return copy;
  }

  /** The view so far. */
  result(): ContextView {
    let placed: ContextView["marker"];
    if (this.marker) {
      const after = this.marker.after;
      const index = after === null ? 0 : this.view.findIndex((e) => e.id === after) + 1;
      // A marker whose message left the view (another writer's trim) stands first.
      placed = { index, omitted: this.marker.omitted, role: this.marker.role, ...omissionNamesOf(this.marker) };
    }
    return { entries: this.view.slice(), marker: placed, systemPrompt: this.systemPrompt, metadata: this.metadata };
  }

  /** The view as a snapshot entry: what a reader that starts here needs. */
  snapshot(): SnapshotEntry {
    const entry: SnapshotEntry = {
      type: SNAPSHOT_TYPE,
      messages: this.view.map((e) =>
        e.summary ? { id: e.id, message: e.message, summary: true as const } : { id: e.id, message: e.message },
      ),
      marker: this.marker,
    };
    if (this.systemPrompt !== undefined) entry.prompt = this.systemPrompt;
    if (this.metadata !== undefined) entry.metadata = this.metadata;
    return entry;
  }
}

/** Replays entries in log order (from position `first`, 0 by default): see ContextReplay. */
export function replay(entries: Iterable<SessionEntry>, first = 0): ContextView {
  const replayer = new ContextReplay();
  let seq = first;
  for (const entry of entries) replayer.apply(entry, seq++);
  return replayer.result();
}
