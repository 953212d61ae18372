// What MessageContextManager writes to a session's log, and how its view is derived from the log.
//
// Messages are appended once, under an id the writer gives them. Everything that changes what the
// model sees (a trim, a compaction, /clear, an import) is a boundary that names messages by id:
// nothing before it is rewritten, so the log keeps every original message and a replay of it,
// by any worker, gives the same view.
import type { InsertedRole } from "../messages/roles.js";
import type { MessageLike } from "../messages/types.js";
import { corruptError, type SessionEntry } from "./store.js";

/**
 * Where the omission marker stands: right after the message with id `after` (null: first). Named
 * by the message before it, since messages added later go after the marker.
 */
export interface LoggedMarker {
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
  /** A trim: these messages left the view; the marker as it stands after the trim. */
  | { kind: "trim"; removed: string[]; marker: LoggedMarker | null }
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

export type ContextEntry = MessageEntry | BoundaryEntry | SystemPromptEntry | MetadataEntry;

export interface ViewEntry {
  id: string;
  message: MessageLike;
  summary: boolean;
}

/** The manager's view of a session, derived from its log. */
export interface ContextView {
  entries: ViewEntry[];
  marker: { index: number; omitted: number; role: InsertedRole } | undefined;
  systemPrompt: string | null | undefined;
  metadata: Record<string, unknown> | undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
const isIdList = (v: unknown): v is string[] => Array.isArray(v) && v.every((id) => typeof id === "string");
const isMarker = (v: unknown): boolean =>
  v === null ||
  (isObject(v) &&
    (v.after === null || typeof v.after === "string") &&
    typeof v.omitted === "number" &&
    Number.isSafeInteger(v.omitted) &&
    v.omitted >= 0 &&
    (v.role === "system" || v.role === "user" || v.role === "assistant"));

/** What is wrong with an entry of a type the manager writes, or undefined (other types pass: they are skipped). */
function problemOf(entry: unknown): string | undefined {
  if (!isObject(entry) || typeof entry.type !== "string") return "is not an entry (an object with a string type)";
  switch (entry.type) {
    case "message":
      if (typeof entry.id !== "string") return "has no string id";
      if (!isObject(entry.message) || typeof entry.message.role !== "string") return "has no message object with a role";
      return undefined;
    case "system":
      return entry.prompt === null || typeof entry.prompt === "string" ? undefined : "has a prompt that is neither a string nor null";
    case "metadata":
      return isObject(entry.metadata) ? undefined : "has metadata that is not an object";
    case "boundary": {
      const b = entry.boundary;
      if (!isObject(b) || typeof b.kind !== "string") return "has no boundary object with a kind";
      if (b.kind === "trim") return isIdList(b.removed) && isMarker(b.marker) ? undefined : "is a trim without a list of ids and a marker";
      if (b.kind === "replace") {
        const ok = Array.isArray(b.messages) && b.messages.every((m) => isObject(m) && typeof m.id === "string" && isObject(m.message) && typeof m.message.role === "string");
        return ok ? undefined : "is a replace without a list of { id, message }";
      }
      if (b.kind === "summary") return isIdList(b.removed) && typeof b.id === "string" && isObject(b.message) && typeof b.message.role === "string" ? undefined : "is a summary without removed ids, an id and a message";
      if (b.kind === "marker") return isMarker(b.marker) ? undefined : "is a marker boundary with a malformed marker";
      return undefined;
    }
    default:
      return undefined;
  }
}

/**
 * Replays entries in log order. Entries of types it does not know (another tool's) are skipped; an
 * entry of a type the manager writes whose shape is wrong (a corrupt or foreign log) throws
 * ERR_CTXWIN_SESSION_CORRUPT, naming its position, before anything is derived from it.
 */
export function replay(entries: Iterable<SessionEntry>): ContextView {
  const list = Array.from(entries);
  list.forEach((entry, i) => {
    const problem = problemOf(entry);
    if (problem !== undefined) throw corruptError(`session log entry ${i} ${problem}`);
  });
  return replayChecked(list);
}

function replayChecked(entries: readonly SessionEntry[]): ContextView {
  let view: ViewEntry[] = [];
  let marker: LoggedMarker | null = null;
  let systemPrompt: string | null | undefined;
  let metadata: Record<string, unknown> | undefined;
  const drop = (ids: readonly string[]) => {
    const gone = new Set(ids);
    view = view.filter((e) => !gone.has(e.id));
  };
  for (const entry of entries) {
    switch (entry.type) {
      case "message": {
        const e = entry as MessageEntry;
        view.push({ id: e.id, message: e.message, summary: e.summary === true });
        break;
      }
      case "system":
        systemPrompt = (entry as SystemPromptEntry).prompt;
        break;
      case "metadata":
        metadata = (entry as MetadataEntry).metadata;
        break;
      case "boundary": {
        const b = (entry as BoundaryEntry).boundary;
        if (b.kind === "trim") {
          drop(b.removed);
          marker = b.marker;
        } else if (b.kind === "replace") {
          const next = new Map(b.messages.map((m) => [m.id, m.message]));
          view = view.map((e) => (next.has(e.id) ? { ...e, message: next.get(e.id) as MessageLike } : e));
        } else if (b.kind === "summary") {
          const gone = new Set(b.removed);
          let at = view.findIndex((e) => gone.has(e.id));
          drop(b.removed);
          if (at < 0) at = view.length;
          view.splice(Math.min(at, view.length), 0, { id: b.id, message: b.message, summary: true });
          marker = null;
        } else if (b.kind === "clear") {
          view = [];
          marker = null;
        } else if (b.kind === "marker") {
          marker = b.marker;
        }
        break;
      }
    }
  }
  let placed: ContextView["marker"];
  if (marker) {
    const after = marker.after;
    const index = after === null ? 0 : view.findIndex((e) => e.id === after) + 1;
    // A marker whose message left the view (another writer's trim) stands first.
    placed = { index, omitted: marker.omitted, role: marker.role };
  }
  return { entries: view, marker: placed, systemPrompt, metadata };
}
