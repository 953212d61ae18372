// The link between a MessageContextManager and its session's log.
//
// The manager stays synchronous: each change it makes calls a hook here, which gives new messages
// an id, turns the change into log entries (a message, or a boundary naming messages by id) and
// queues them. The queue is written in order by one append at a time, at the end of the current
// tick (so a burst of addMessage calls is one append); `flush()` waits for it. The log side
// (session-log.ts) names the version and log each append extends and gives it an appendId: when
// another worker appended first, the link reads what it appended, derives the view from the log
// plus what is still queued, gives that to the manager, and appends again; an append that got no
// answer is tried again as it was, so it lands once. A log that vanished or changed under the
// manager (expired, deleted, replaced, lost by a server restarted without persistence) is told to
// the manager (its 'sessionLost' event) and makes flush() reject with ERR_CTXWIN_SESSION_LOST; the
// manager keeps its view and its queued changes rather than starting over on an empty log.
import { omissionNamesOf, type OmissionNames } from "../messages/omission-marker.js";
import type { InsertedRole } from "../messages/roles.js";
import { randomBase64url } from "../runtime/random-id.js";
import { describe, typeError } from "../runtime/errors.js";
import type { MessageLike } from "../messages/types.js";
import { consoleLogger, type Logger } from "../runtime/logger.js";
import type { Boundary, ContextEntry, ContextView, LoggedMarker } from "./context-log.js";
import type { ContextState } from "./export.js";
import { jsonProblem, problemError } from "../messages/log-safe.js";
import { refusedError, SessionLog } from "./session-log.js";
import { checkSessionId, corruptError, isLost, type SessionLostError, type SessionStore } from "./store.js";

export interface SessionOptions {
  store: SessionStore;
  id: string;
}

/** What the link needs of the manager (kept narrow so the manager's internals stay its own). */
export interface LinkedManager<M extends MessageLike> {
  /** The manager's metadata now (callers may replace the object, so it is asked each time). */
  metadata(): Record<string, unknown>;
  restoreFromLog(state: ContextState<M>): void;
  /** The log is gone or changed under the manager: told once per error, before flush() rejects with it. */
  sessionLost(error: SessionLostError): void;
}

/** Codes of the manager's own checks that, for a view read from a log, mean the log is not a history. */
const NOT_A_HISTORY = new Set(["ERR_CTXWIN_INVALID_ARGUMENT", "ERR_CTXWIN_OUT_OF_RANGE", "ERR_CTXWIN_ORPHAN_TOOL_RESULT"]);

type Marker = ({ index: number; omitted: number; role: InsertedRole } & OmissionNames) | undefined;

export class SessionLink<M extends MessageLike> {
  /** The link for a manager's `options.session` (checked); undefined when it has none. */
  static forOption<M extends MessageLike>(
    session: SessionOptions | undefined,
    manager: LinkedManager<M>,
    logger: Logger | undefined,
  ): SessionLink<M> | undefined {
    if (session === undefined) return undefined;
    if (session === null || typeof session !== "object" || typeof session.store?.append !== "function") {
      throw typeError(`options.session must be { store, id } with a SessionStore, got ${describe(session)}`);
    }
    return new SessionLink<M>(session, manager, logger);
  }

  readonly store: SessionStore;
  readonly id: string;
  /** The log's id of each message in the manager's view, in order. */
  private ids: string[] = [];
  private pending: ContextEntry[] = [];
  private readonly log: SessionLog;
  private opened = false;
  private draining: Promise<void> | undefined;
  private scheduled = false;
  private lastError: unknown;
  private persistedMetadata = "{}";
  /** What could not be logged, for the next flush() to reject with (once). */
  private refusal: Error | undefined;
  /** The metadata last refused, and why: refused again as it is, it is not reported again. */
  private refusedMetadata: { value: unknown; why: string } | undefined;
  private readonly writer = randomBase64url(6);
  private counter = 0;
  /** The manager was told its log is lost (once: every flush after that rejects with it). */
  private lostReported = false;
  readonly ready: Promise<void>;

  constructor(
    options: SessionOptions,
    private readonly manager: LinkedManager<M>,
    private readonly logger: Logger | undefined,
  ) {
    this.store = options.store;
    this.id = checkSessionId(options.id, "options.session.id");
    this.log = new SessionLog(this.store, this.id);
    this.ready = this.open().then(() => {
      this.opened = true;
      if (this.pending.length > 0) this.schedule();
    });
    // A failed open is reported through `ready` (and flush); it must not also be unhandled.
    this.ready.catch(() => undefined);
  }

  /** Times of the log's first and last records (the store's clock). */
  get createdAt(): number | undefined {
    return this.log.createdAt;
  }

  get updatedAt(): number | undefined {
    return this.log.updatedAt;
  }

  /**
   * Resolves when everything the manager did so far is in the store (durable). Rejects, once, when
   * something could not be logged at all (an entry no append holds, metadata JSON cannot hold):
   * named in the error, left out, and everything after it written all the same.
   */
  async flush(): Promise<void> {
    await this.write();
    const refusal = this.refusal;
    if (refusal !== undefined) {
      this.refusal = undefined;
      throw refusal;
    }
  }

  private async write(): Promise<void> {
    await this.ready;
    this.draining ??= this.drain().finally(() => {
      this.draining = undefined;
    });
    await this.draining;
    // Changes made while that append was on its way.
    if (this.pending.length > 0 || this.metadataJson() !== undefined) await this.write();
  }

  // ---- hooks: the manager calls these after each change, with the indices of its old view ----

  added(message: M): void {
    const id = this.nextId();
    this.ids.push(id);
    this.queue({ type: "message", id, message });
  }

  /**
   * A message the history left out (a tool result whose call a trim removed, an orphan result
   * dropped): logged all the same, once, in its place, and at once marked as out of the view (a
   * trim naming it alone, `leftOut: true`), so the log holds every message added and recall finds it.
   */
  leftOut(message: M, marker: Marker): void {
    const id = this.nextId();
    this.queue({ type: "message", id, message });
    this.queue(boundary({ kind: "trim", removed: [id], marker: this.logged(marker), leftOut: true }));
  }

  trimmed(keptIndices: readonly number[], marker: Marker): void {
    const kept = keptIndices.map((i) => this.ids[i] as string);
    const keep = new Set(kept);
    const removed = this.ids.filter((id) => !keep.has(id));
    this.ids = kept;
    this.queue(boundary({ kind: "trim", removed, marker: this.logged(marker) }));
  }

  replaced(edits: ReadonlyArray<readonly [number, M]>): void {
    this.queue(boundary({ kind: "replace", messages: edits.map(([i, message]) => ({ id: this.ids[i] as string, message })) }));
  }

  summarized(positions: readonly number[], summary: MessageLike, at: number): void {
    const gone = new Set(positions);
    const removed = positions.map((i) => this.ids[i] as string);
    const id = this.nextId();
    this.ids = this.ids.filter((_, i) => !gone.has(i));
    this.ids.splice(at, 0, id);
    this.queue(boundary({ kind: "summary", removed, id, message: summary }));
  }

  cleared(): void {
    this.ids = [];
    this.queue(boundary({ kind: "clear" }));
  }

  systemPromptSet(prompt: string | null): void {
    this.queue({ type: "system", prompt });
  }

  /**
   * The manager's whole view was replaced (load, import): a clear, then the messages again, with
   * those it left out (`dropped`: each after that many of the messages) logged in their places.
   */
  restored(state: ContextState<M>, dropped: ReadonlyArray<readonly [number, M]> = []): void {
    this.ids = [];
    this.queue(boundary({ kind: "clear" }));
    const summaries = new Set(state.summaries);
    let next = 0;
    const leftOutBefore = (i: number) => {
      for (; next < dropped.length && (dropped[next] as readonly [number, M])[0] <= i; next++)
        this.leftOut((dropped[next] as readonly [number, M])[1], undefined);
    };
    state.messages.forEach((message, i) => {
      leftOutBefore(i);
      const id = this.nextId();
      this.ids.push(id);
      this.queue(summaries.has(i) ? { type: "message", id, message, summary: true } : { type: "message", id, message });
    });
    leftOutBefore(state.messages.length);
    if (state.marker) this.queue(boundary({ kind: "marker", marker: this.logged(state.marker) }));
    if (state.systemPrompt !== undefined) this.queue({ type: "system", prompt: state.systemPrompt });
  }

  // ---- the log ----

  private nextId(): string {
    return `${this.writer}.${(this.counter++).toString(36)}`;
  }

  private logged(marker: Marker): LoggedMarker | null {
    if (!marker) return null;
    return {
      after: marker.index > 0 ? (this.ids[marker.index - 1] ?? null) : null,
      omitted: marker.omitted,
      role: marker.role,
      ...omissionNamesOf(marker),
    };
  }

  private queue(entry: ContextEntry): void {
    this.pending.push(entry);
    if (this.opened) this.schedule();
  }

  /** Writes at the end of the tick, so a burst of changes is one append. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      this.write().catch((error: unknown) => {
        // Kept queued; the caller sees the error from flush().
        if (error !== this.lastError)
          (this.logger ?? consoleLogger).warn(
            `ctxwin: session ${JSON.stringify(this.id)}: append failed, will retry on flush(): ${(error as Error).message}`,
          );
        this.lastError = error;
      });
    });
  }

  /**
   * The manager's metadata as JSON when it changed since it was last logged; undefined when it did
   * not, or when it is not what the log can hold and give back (checked as messages are at the
   * door): then the next flush() names its path, once for as long as it stays so.
   */
  private metadataJson(): string | undefined {
    const metadata = this.manager.metadata();
    const problem = jsonProblem(metadata, "metadata");
    if (problem !== undefined) {
      const why = `${problem.path} ${problem.problem}`;
      if (this.refusedMetadata?.value !== metadata || this.refusedMetadata.why !== why) {
        this.refusedMetadata = { value: metadata, why };
        this.refuse(problemError(problem, `session ${JSON.stringify(this.id)}: manager.metadata cannot be logged (the rest is): `));
      }
      return undefined;
    }
    this.refusedMetadata = undefined;
    const json = JSON.stringify(metadata);
    return json === this.persistedMetadata ? undefined : json;
  }

  /** Keeps an error for the next flush() (the first one; every one is told to the logger). */
  private refuse(error: Error): void {
    (this.logger ?? consoleLogger).warn(`ctxwin: ${error.message}`);
    this.refusal ??= error;
  }

  private async drain(): Promise<void> {
    for (;;) {
      const changed = this.metadataJson();
      if (!this.log.pending && this.pending.length === 0 && changed === undefined) return;
      let outcome;
      try {
        outcome = await this.log.append(this.pending, changed);
      } catch (error) {
        if (isLost(error) && !this.lostReported) {
          this.lostReported = true;
          this.manager.sessionLost(error);
        }
        throw error;
      }
      if (outcome.kind === "conflict") {
        // Another writer went first: take its entries in, then ours again.
        await this.log.catchUp();
        this.persistedMetadata = this.log.loggedMetadata ?? this.persistedMetadata;
        this.apply(this.log.view(this.pending));
        continue;
      }
      this.pending.splice(0, outcome.queued);
      if (outcome.metadata !== undefined) this.persistedMetadata = outcome.metadata;
      if (outcome.refused.length > 0) this.refuse(refusedError(this.id, outcome.refused));
      this.lastError = undefined;
    }
  }

  /** Reads the log (from its last snapshot) and gives the manager the view it and the queued entries describe. */
  private async open(): Promise<void> {
    await this.log.open();
    this.persistedMetadata = this.log.loggedMetadata ?? this.persistedMetadata;
    this.apply(this.log.view(this.pending));
  }

  private apply(view: ContextView): void {
    this.ids = view.entries.map((e) => e.id);
    const summaries: number[] = [];
    view.entries.forEach((e, i) => {
      if (e.summary) summaries.push(i);
    });
    try {
      this.manager.restoreFromLog({
        messages: view.entries.map((e) => e.message as M),
        summaries,
        marker: view.marker,
        systemPrompt: view.systemPrompt,
        metadata: view.metadata,
        createdAt: this.createdAt,
        updatedAt: this.updatedAt,
      });
    } catch (error) {
      // The manager's checks of the messages it is given: for a log's view, the log is corrupt.
      if (!NOT_A_HISTORY.has((error as { code?: string }).code ?? "")) throw error;
      throw corruptError(`session ${JSON.stringify(this.id)}: the log's view is not a valid history: ${(error as Error).message}`, error);
    }
  }
}

const boundary = (b: Boundary): ContextEntry => ({ type: "boundary", boundary: b });
