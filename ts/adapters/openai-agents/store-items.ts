// The Agents SDK's Session over a ctxwin SessionStore (memory, JSONL files, Redis): what
// ContextSession keeps its items in when it is given `store`.
//
// Each item is appended once as a `message` entry of the manager's log format: the item itself
// (read back as it was) and its chat-message form (what a MessageContextManager or `ctxwin
// inspect` reads). popItem and clearSession are boundaries (a trim naming the popped item, a
// clear), so no record is ever destroyed, and the items are derived from the log by the same
// replay the manager uses. Every append names the version it expects: when another worker
// appended first, the log is read again and the operation retried on what is there now, so two
// workers never pop the same item or lose one another's items.
import type { AgentInputItem, Session } from "@openai/agents";
import { randomBytes } from "node:crypto";
import { replay, type ContextEntry } from "../../session/context-log.js";
import { checkSessionId, isConflict, type SessionEntry, type SessionStore } from "../../session/store.js";
import { describe, typeError } from "../../runtime/errors.js";
import { checkLoggableList } from "../../messages/log-safe.js";
import type { MessageLike } from "../../messages/types.js";
import { toItems, toMessageLikes } from "./items.js";

/** A store looks like one when it has the operations this class calls. */
export function isSessionStore(value: unknown): value is SessionStore {
  const store = value as Partial<SessionStore> | null | undefined;
  return typeof store === "object" && store !== null && typeof store.append === "function" && typeof store.read === "function";
}

export class StoreItems implements Session {
  readonly store: SessionStore;
  readonly id: string;
  /** The log as read so far, and its length (the version the next append expects). */
  private readonly entries: SessionEntry[] = [];
  private version = 0;
  private readonly writer = randomBytes(6).toString("base64url");
  private counter = 0;
  /** One operation at a time per instance, so the cache above is extended in log order. */
  private tail: Promise<unknown> = Promise.resolve();

  constructor(store: SessionStore, id: string) {
    if (!isSessionStore(store)) throw typeError(`options.store must be a ctxwin SessionStore, got ${describe(store)}`);
    this.store = store;
    this.id = checkSessionId(id, "options.sessionId");
  }

  async getSessionId(): Promise<string> {
    return this.id;
  }

  getItems(limit?: number): Promise<AgentInputItem[]> {
    return this.serial(async () => {
      await this.refresh();
      const items = this.view().map((v) => v.item);
      return limit === undefined ? items : items.slice(Math.max(0, items.length - limit));
    });
  }

  /** One append for all of them: atomic and in order. */
  addItems(items: AgentInputItem[]): Promise<void> {
    if (!Array.isArray(items)) return Promise.reject(typeError(`items must be an array, got ${describe(items)}`));
    let entries: ContextEntry[];
    try {
      // What the log cannot hold and give back equal is refused first, naming the item (log-safe.ts).
      checkLoggableList(items, "items");
      toMessageLikes(items); // checks every item first, naming the bad one
      entries = items.map((item) => {
        const [message] = toMessageLikes([item]); // one item alone is one message
        // Its plain fields only: the links back to the item (symbol keys) stay out of the log.
        return {
          type: "message",
          id: this.nextId(),
          message: Object.fromEntries(Object.entries(message as object)) as MessageLike,
          item,
        } as ContextEntry;
      });
    } catch (error) {
      return Promise.reject(error);
    }
    if (entries.length === 0) return Promise.resolve();
    return this.serial(() => this.appendRetrying(() => entries));
  }

  /** Records a trim of the last item (the log keeps it) and returns it. */
  popItem(): Promise<AgentInputItem | undefined> {
    return this.serial(async () => {
      let popped: AgentInputItem | undefined;
      await this.appendRetrying(() => {
        const last = this.view().at(-1);
        popped = last?.item;
        return last ? [{ type: "boundary", boundary: { kind: "trim", removed: [last.id], marker: null } }] : [];
      });
      return popped;
    });
  }

  /** Records a clear: the session reads empty from here on; the log keeps what came before. */
  clearSession(): Promise<void> {
    return this.serial(() =>
      this.appendRetrying(() => (this.view().length > 0 ? [{ type: "boundary", boundary: { kind: "clear" } }] : [])),
    );
  }

  // ---- the log ----

  private serial<T>(operation: () => Promise<T>): Promise<T> {
    const run = this.tail.then(operation, operation);
    this.tail = run.catch(() => undefined);
    return run;
  }

  private nextId(): string {
    return `${this.writer}.${(this.counter++).toString(36)}`;
  }

  /** Reads what other writers appended since this instance last looked. */
  private async refresh(): Promise<void> {
    const records = await this.store.read(this.id, this.version);
    for (const record of records) {
      if (record.seq !== this.version) break; // never skip a gap: the next read starts there again
      this.entries.push(record.entry);
      this.version++;
    }
  }

  /**
   * Appends what `build` derives from the current log, expecting the version it was derived at;
   * when another writer went first, reads its entries and derives again.
   */
  private async appendRetrying(build: () => ContextEntry[]): Promise<void> {
    await this.refresh();
    for (;;) {
      const batch = build();
      if (batch.length === 0) return;
      try {
        const result = await this.store.append(this.id, batch, { expectedVersion: this.version });
        if (result.version === this.version + batch.length) {
          // As the store keeps them (and another worker reads them): JSON, not the caller's objects.
          this.entries.push(...(JSON.parse(JSON.stringify(batch)) as SessionEntry[]));
          this.version = result.version;
        } else {
          await this.refresh();
        }
        return;
      } catch (error) {
        if (!isConflict(error)) throw error;
        await this.refresh();
      }
    }
  }

  /** The session's items as the log describes them, each with its entry's id. */
  private view(): Array<{ id: string; item: AgentInputItem }> {
    const originals = new Map<string, AgentInputItem>();
    for (const entry of this.entries) {
      const item = entry.item;
      if (entry.type === "message" && typeof entry.id === "string" && typeof item === "object" && item !== null && !Array.isArray(item)) {
        originals.set(entry.id, item as AgentInputItem);
      }
    }
    // Messages another writer put in the session (a manager's, a summary) read as the items ctxwin writes for them.
    return replay(this.entries).entries.map((e) => ({
      id: e.id,
      item: originals.get(e.id) ?? (toItems([e.message])[0] as AgentInputItem),
    }));
  }
}
