// What MessageContextManager writes to a session's log, and how its view is derived from the log.
//
// Messages are appended once, under an id the writer gives them. Everything that changes what the
// model sees (a trim, a compaction, /clear, an import) is a boundary that names messages by id:
// nothing before it is rewritten, so the log keeps every original message and a replay of it,
// by any worker, gives the same view.
import type { InsertedRole } from "../history/strategies.js";
import type { MessageLike } from "../tokens/token-counter.js";
import type { SessionEntry } from "./store.js";

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

/** Replays entries in log order. Entries of types it does not know (another tool's) are skipped. */
export function replay(entries: Iterable<SessionEntry>): ContextView {
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
