// The one place a managed history changes. Every change (a message added, a system prompt set, a
// compaction's edit, a trim, a load or an import, a clear) goes through here and reaches every
// part that follows the history in the same step: its columns, its tool exchanges, the
// prompt-cache accounting, the usage anchor (any change other than an append makes an earlier
// reported usage describe another request) and the session's log. The manager decides when to
// change what (its policy) and runs that policy after each change; it never edits a part itself.
import type { SummaryMessage } from "../compaction/context-compactor.js";
import type { AppliedEdit, HistoryView } from "../compaction/history-edit.js";
import { markerRoleOf, type KeptPlan, type TruncationStrategy } from "../truncation/strategies.js";
import type { UsageAnchor } from "../budget/usage-anchor.js";
import { checkLoggable, checkLoggableList } from "../messages/log-safe.js";
import { MetadataReader, type MessageFacts } from "../messages/metadata-reader.js";
import {
  MAX_NAMED_MARKER_TOKENS,
  namedMarkerTokens,
  omissionMarker,
  type OmissionMarker,
  type OmittedEntry,
} from "../messages/omission-marker.js";
import { namesWithin, omittedEntries, rerunsUnmarked } from "../compaction/omitted-entries.js";
import { ROLE_CODES, type InsertedRole } from "../messages/roles.js";
import type { MessageLike } from "../messages/types.js";
import { consoleLogger, type Logger } from "../runtime/logger.js";
import type { ContextState } from "../session/export.js";
import type { SessionLink } from "../session/session-link.js";
import { messageTokens } from "../tokens/message-tokens.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import { HistoryColumns, type Marker } from "./history-columns.js";
import { countMessagesNow, type LaterCount } from "./large-message-count.js";
import { insertedShape, type MessageFactory } from "./inserted-messages.js";
import { PromptCacheAccounting } from "./prompt-cache.js";
import { ToolExchanges } from "./tool-exchanges.js";

/** A history read and counted, ready to replace the current one (nothing can fail any more). */
export interface ReadHistory<M> {
  messages: readonly M[];
  reader: MetadataReader;
  facts: MessageFacts[];
  tokens: ArrayLike<number>;
  /** Indices of the summaries among them; undefined: the ones the history knew stay known. */
  summaries?: readonly number[];
  marker?: Marker;
  /** The system prompt, with its tokens, when it changes too. */
  systemPrompt?: { prompt: string | undefined; tokens: number };
  /** Messages given but left out (orphan results dropped), each with the number of kept messages before it. */
  dropped?: ReadonlyArray<readonly [number, M]>;
  /** Counts still to come (messages with texts past the synchronous bound: `tokens` holds their bounds). */
  later?: LaterCount[];
}

export class HistoryEditor<M extends MessageLike> {
  readonly history = new HistoryColumns<M>();
  readonly exchanges: ToolExchanges;
  readonly cache = new PromptCacheAccounting();
  /** When the history last changed (ms since the epoch). */
  updatedAt = Date.now();
  /**
   * How many times the whole history was replaced (load, import, a session's log), a message added
   * or a system prompt set: a compaction that ran meanwhile looks again.
   */
  arrivals = 0;
  private prompt: string | undefined;
  private promptTokens = 0;
  /** Counts of large messages still running off the main thread (large-message-count.ts). */
  private readonly recounts = new Set<Promise<void>>();
  /** Told after a large message's bound was replaced by its count (the manager runs its policy again). */
  onRecount: (() => void) | undefined;

  constructor(
    private readonly counter: TokenCounter,
    /** What an empty request costs with this counter (reply priming), counted once. */
    readonly requestOverhead: number,
    private readonly strategy: TruncationStrategy,
    private readonly anchor: UsageAnchor,
    private readonly session: SessionLink<M> | undefined,
    private readonly orphanToolResults: "error" | "drop",
    private readonly logger: Logger | undefined,
    /** The first user message (the task) is pinned, as `_preserve: true` would. */
    private readonly pinFirstUserMessage = false,
    /** Builds the messages the manager writes in the history's shape (inserted-messages.ts). */
    private readonly createMessage?: MessageFactory<M>,
  ) {
    this.exchanges = new ToolExchanges(orphanToolResults, logger, pinFirstUserMessage);
  }

  get systemPrompt(): string | undefined {
    return this.prompt;
  }

  get systemTokens(): number {
    return this.promptTokens;
  }

  /** The local count of the request (system prompt, conversation, marker, frame), before any reported usage. */
  get countedTokens(): number {
    const content = this.promptTokens + this.history.conversationTokens + this.history.markerTokens;
    return content > 0 ? content + this.requestOverhead : 0;
  }

  /** The request's tokens: anchored on the last reported usage when there is one, scaled by the model's ratio. */
  get tokenUsage(): number {
    return this.anchor.total(this.countedTokens);
  }

  /** The conversation tokens, in local counts, a request of `requestTokens` leaves: a target in reported units shrinks by the model's ratio. */
  conversationBudget(requestTokens: number): number {
    return Math.max(0, this.anchor.unscale(requestTokens) - this.promptTokens - this.requestOverhead);
  }

  /**
   * A copy of this history that goes on alone: no session, prompt-cache accounting or usage anchor
   * of this one follows its edits (a compaction preview runs on it). Its usage starts equal.
   */
  copy(): HistoryEditor<M> {
    const copy = new HistoryEditor<M>(
      this.counter,
      this.requestOverhead,
      this.strategy,
      this.anchor.copy(),
      undefined,
      this.orphanToolResults,
      this.logger,
      this.pinFirstUserMessage,
      this.createMessage,
    );
    const read = copy.read(this.state());
    // The columns' own facts, not the copy's reading of them: which messages are pinned depends on
    // the history's past (the first user message it was given), which a fresh reading cannot know.
    const { roles, flags, units, tokens } = this.history;
    const facts = read.messages.map((_, i) => ({ role: roles[i] ?? 0, flags: flags[i] ?? 0, unit: units[i] ?? -1 }));
    copy.history.load(read.messages, facts, tokens, read.summaries, read.marker);
    copy.prompt = this.prompt;
    copy.promptTokens = this.promptTokens;
    copy.exchanges.restart(read.reader, read.messages, read.facts);
    return copy;
  }

  /** The history as the compaction levels read it: live, never copied. */
  view(): HistoryView<M> {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const editor = this;
    const history = this.history;
    return {
      counter: this.counter,
      get messages() {
        return history.messages;
      },
      get roles() {
        return history.roles;
      },
      get tokens() {
        return history.tokens;
      },
      get flags() {
        return history.flags;
      },
      get units() {
        return history.units;
      },
      get conversationTokens() {
        return history.conversationTokens;
      },
      get tokenUsage() {
        return editor.tokenUsage;
      },
      get fixedTokens() {
        return editor.promptTokens + editor.requestOverhead;
      },
      get markerTokens() {
        return history.markerTokens;
      },
      get markerFloorTokens() {
        const marker = history.marker;
        if (marker === undefined || (marker.named?.length ?? 0) === 0) return history.markerTokens;
        return Math.max(0, editor.counter.countMessages([omissionMarker(marker.omitted, marker.role, [], 0)]) - editor.requestOverhead);
      },
      isSummary: (index) => index >= 0 && index < history.length && history.isSummary(history.messages[index] as M),
      conversationBudget: (requestTokens) => this.conversationBudget(requestTokens),
    };
  }

  /**
   * The door: a message that comes in (addMessage, canAdd) must be what the history can hold, and,
   * with a session, what its log can hold and give back equal (log-safe.ts); refused with a coded
   * error naming its path before anything reads it.
   */
  checkIncoming(message: unknown): void {
    checkLoggable(message, `messages[${this.history.length}]`, this.session !== undefined);
  }

  /**
   * Adds `message` at the end, counting only it; returns false when its tool exchange leaves it
   * out (warned; logged all the same, as left out). Checked, read and counted before anything
   * changes: a failure changes nothing.
   */
  appendMessage(message: M): boolean {
    this.checkIncoming(message);
    const pending = this.exchanges.admit(message, this.history.length);
    if (pending === undefined) {
      this.session?.leftOut(message, this.history.marker);
      return false;
    }
    const { tokens, later } = countMessagesNow(this.counter, [message], true);
    const facts = this.exchanges.accept(message, pending);
    this.history.append(message, facts, tokens[0] ?? 0);
    this.session?.added(message);
    this.arrivals++;
    this.touch();
    this.countLater([message], later);
    return true;
  }

  /** Resolves once every large message's count that was running has replaced its bound. */
  get counted(): Promise<void> {
    return Promise.all([...this.recounts]).then(() => undefined);
  }

  /** Replaces each large message's bound with its count when that arrives (if it is still here). */
  private countLater(messages: readonly M[], later: readonly LaterCount[] | undefined): void {
    for (const { index, count } of later ?? []) {
      const message = messages[index] as M;
      const done = count
        .then(
          (tokens) => {
            const at = this.history.messages.indexOf(message);
            if (at < 0 || this.history.tokens[at] === tokens) return;
            this.anchor.rewritten(); // a usage reported meanwhile was for the bound
            this.history.replace([[at, message]], [tokens]);
            this.onRecount?.();
          },
          (error: unknown) =>
            (this.logger ?? consoleLogger).warn(
              `ctxwin: a large message could not be counted off the main thread; its count stays an upper bound: ${String(error)}`,
            ),
        )
        .finally(() => this.recounts.delete(done));
      this.recounts.add(done);
    }
  }

  /** Sets the system prompt; returns its tokens. */
  setSystemPrompt(prompt: string): number {
    const changed = prompt !== this.prompt;
    if (changed) this.anchor.rewritten(); // a usage from before describes another prompt
    this.promptTokens = this.counter.countMessages([{ role: "system", content: prompt }]) - this.requestOverhead;
    // A worker that sets its prompt at every start does not grow the log with copies.
    if (changed) this.session?.systemPromptSet(prompt);
    this.prompt = prompt;
    this.arrivals++;
    this.touch();
    return this.promptTokens;
  }

  /** Drops the system prompt. */
  dropSystemPrompt(): void {
    if (this.prompt !== undefined) this.session?.systemPromptSet(null);
    this.prompt = undefined;
    this.promptTokens = 0;
  }

  /** The request: the system prompt first, then the conversation with the omission marker; counted as a request for the cache accounting. */
  request(total: number): Array<M | OmissionMarker | { role: "system"; content: string }> {
    const marker = this.history.marker;
    this.cache.request(
      total,
      this.prompt,
      this.promptTokens,
      this.history.conversationTokens + this.history.markerTokens,
      marker ? this.history.tokensBefore(marker.index, true) : 0,
    );
    const shape = insertedShape(this.createMessage, this.history.messages);
    const conversation: Array<M | OmissionMarker> = this.messages(shape);
    if (marker) {
      const inserted = omissionMarker(marker.omitted, marker.role, marker.named, marker.unnamed);
      conversation.splice(marker.index, 0, (shape?.(inserted) ?? inserted) as M | OmissionMarker);
    }
    if (this.prompt === undefined) return conversation;
    const system = { role: "system" as const, content: this.prompt };
    return [(shape?.(system) ?? system) as M | OmissionMarker, ...conversation];
  }

  /** The conversation as the caller gets it: the summaries in the history's shape (`shape`, inserted-messages.ts). */
  messages(shape = insertedShape(this.createMessage, this.history.messages)): M[] {
    const messages = this.history.messages.slice();
    if (shape === undefined) return messages;
    for (const i of this.history.summaryIndices()) {
      const summary = messages[i] as unknown as { role: InsertedRole; content: string };
      messages[i] = shape({ role: summary.role, content: summary.content }) as M;
    }
    return messages;
  }

  /** Puts compacted copies in place of messages; returns how many changed. */
  replace(edits: ReadonlyArray<readonly [number, M]>): number {
    if (edits.length === 0) return 0;
    const counts = messageTokens(
      this.counter,
      edits.map(([, m]) => m),
    );
    this.anchor.rewritten();
    this.cache.touched(this.history, Math.min(...edits.map(([i]) => i)));
    this.history.replace(edits, counts);
    this.session?.replaced(edits);
    this.touch();
    return edits.length;
  }

  /**
   * Removes `removed` (found in the history as it is now: messages added since stay) and puts the
   * summary, pinned, where the first of them was. Changes nothing when one of them is gone.
   */
  summarize(removed: readonly M[], summary: SummaryMessage): AppliedEdit<M> {
    const position = new Map<object, number>();
    this.history.messages.forEach((m, i) => position.set(m as object, i));
    const positions = removed.map((m) => position.get(m as object) ?? -1);
    if (positions.some((p) => p < 0)) return { changed: 0, removed: [] };
    const remove = new Set(positions);
    const at = Math.min(...positions);
    const [summaryTokens] = messageTokens(this.counter, [summary as unknown as M]);
    const marker = this.history.marker;
    this.cache.touched(this.history, marker !== undefined ? Math.min(at, marker.index) : at, false);
    this.anchor.rewritten();
    this.history.select(this.history.messages.map((_, i) => i).filter((i) => !remove.has(i)));
    // Every message before `at` is kept, so `at` is still the summary's place; it is never trimmed.
    this.history.insertSummary(at, summary as unknown as M, ROLE_CODES[summary.role], summaryTokens ?? 0);
    this.history.setMarker(undefined);
    this.session?.summarized(positions, summary, at);
    this.touch();
    return { changed: removed.length, removed: removed.slice() };
  }

  /** Keeps the messages `kept` names, with the omission marker where it says. Returns what went and the trim's message. */
  trim(kept: KeptPlan): { removed: M[]; message: string } {
    const { messages: removed, units } = this.history.without(kept.indices);
    this.exchanges.trimmed(removed, units);
    // The first message removed ends the shared prefix; so does the marker, whose count changes.
    let firstRemoved = 0;
    while (firstRemoved < kept.indices.length && kept.indices[firstRemoved] === firstRemoved) firstRemoved++;
    const marker = rerunsUnmarked(this.history.marker, removed);
    this.cache.touched(this.history, marker !== undefined ? Math.min(firstRemoved, marker.index) : firstRemoved, false);
    this.anchor.rewritten();
    this.history.select(kept.indices);
    // The marker names what it stands for (the newest first), within what the trim's target
    // leaves it (planKept), or what a planner reserves of the kept conversation's share.
    if (kept.markerIndex >= 0) {
      const omitted = (marker?.omitted ?? 0) + removed.length;
      const role = markerRoleOf([this.strategy]);
      const budget = Math.min(MAX_NAMED_MARKER_TOKENS, kept.markerTokens ?? namedMarkerTokens(this.history.conversationTokens));
      this.history.setMarker(this.namedMarker(kept.markerIndex, omitted, role, marker, omittedEntries(removed), budget));
    } else if (marker) {
      // The marker stays before the first message that followed it, if that message is still here
      // (no larger than it was: this trim's plan did not count it).
      const survivors = kept.indices.filter((i) => i < marker.index).length;
      // Within what the plan leaves it, when its names give way to the newest exchange (newest-exchange.ts).
      const budget = Math.min(marker.tokens, kept.markerTokens ?? marker.tokens);
      this.history.setMarker(
        this.namedMarker(survivors, marker.omitted + removed.length, marker.role, marker, omittedEntries(removed), budget),
      );
    }
    const first = Math.max(kept.markerIndex, 0);
    const length = this.history.length;
    const message =
      kept.markerIndex >= 0
        ? `Context trimmed. Kept first ${first} and last ${length - first} turns.`
        : `Context trimmed. Kept last ${length} turns.`;
    this.session?.trimmed(kept.indices, this.history.marker);
    this.touch();
    return { removed, message };
  }

  /**
   * Reads and counts a history to start from (load): every message checked first, results whose
   * call is not among them dropped with a warning when orphanToolResults is "drop".
   */
  readMessages(messages: readonly M[]): ReadHistory<M> {
    checkLoggableList(messages, "messages", this.session !== undefined);
    const reader = new MetadataReader({ orphanToolResults: this.orphanToolResults, pinFirstUserMessage: this.pinFirstUserMessage });
    const all = messages.map((m, i) => reader.read(m, i)); // validate everything first
    const keep = all.map((f) => !f.orphan);
    if (keep.includes(false))
      (this.logger ?? consoleLogger).warn(
        `ctxwin: dropped ${keep.filter((k) => !k).length} tool results whose calls are not in the history`,
      );
    const kept = messages.filter((_, i) => keep[i]);
    const facts = all.filter((_, i) => keep[i]);
    // A session's log still gets each dropped one, in its place (how many kept ones precede it).
    const dropped: Array<readonly [number, M]> = [];
    let before = 0;
    messages.forEach((m, i) => (keep[i] ? before++ : dropped.push([before, m])));
    const { tokens, later } = countMessagesNow(this.counter, kept, true);
    return { messages: kept, reader, facts, tokens, dropped, later };
  }

  /**
   * Reads and counts a state to restore (an import, a session's log); throws before anything
   * changes when a message is invalid. `systemPrompt` undefined keeps the current one.
   */
  read(state: ContextState<M>): ReadHistory<M> {
    const reader = new MetadataReader({ orphanToolResults: "error", pinFirstUserMessage: this.pinFirstUserMessage });
    const facts = state.messages.map((m, i) => reader.read(m, i));
    const { tokens, later } = countMessagesNow(this.counter, state.messages, true);
    const prompt = state.systemPrompt === undefined ? this.prompt : (state.systemPrompt ?? undefined);
    const promptTokens =
      prompt === undefined ? 0 : this.counter.countMessages([{ role: "system", content: prompt }]) - this.requestOverhead;
    let marker: Marker | undefined;
    if (state.marker) {
      const { omitted, role, named, unnamed } = state.marker;
      marker = {
        index: Math.min(state.marker.index, state.messages.length),
        omitted,
        tokens: this.markerTokens(omitted, role, named, unnamed),
        role,
        named,
        unnamed,
      };
    }
    return {
      messages: state.messages,
      reader,
      facts,
      tokens,
      summaries: state.summaries,
      marker,
      systemPrompt: { prompt, tokens: promptTokens },
      later,
    };
  }

  /**
   * Replaces the whole history with one read already (nothing throws from here on). It shares no
   * prefix with the last request, and its open tool calls are its own. `log`: what the session's
   * log is told (undefined when the history was read from the log).
   */
  load(read: ReadHistory<M>, log: ContextState<M> | undefined): void {
    this.arrivals++;
    this.anchor.rewritten();
    this.history.load(read.messages, read.facts, read.tokens, read.summaries, read.marker);
    if (read.systemPrompt) {
      this.prompt = read.systemPrompt.prompt;
      this.promptTokens = read.systemPrompt.tokens;
    }
    this.cache.restart();
    this.exchanges.restart(read.reader, read.messages, read.facts);
    if (log !== undefined) this.session?.restored(log, read.dropped);
    this.countLater(read.messages, read.later);
  }

  /** Drops the conversation (the system prompt stays). */
  clear(): void {
    this.anchor.rewritten();
    this.history.select([]);
    this.cache.restart();
    this.exchanges.clear();
    this.history.setMarker(undefined);
    this.session?.cleared();
    this.touch();
  }

  /** The history as an export and the session's log see it. */
  state(): ContextState<M> {
    const m = this.history.marker;
    const marker = m
      ? {
          index: m.index,
          omitted: m.omitted,
          role: m.role,
          ...(m.named !== undefined && m.named.length > 0 ? { named: m.named.slice(), unnamed: m.unnamed ?? 0 } : {}),
        }
      : undefined;
    return { messages: this.history.messages.slice(), summaries: this.history.summaryIndices(), marker, systemPrompt: this.prompt ?? null };
  }

  touch(): void {
    this.updatedAt = Date.now();
  }

  /** The omission marker's own tokens. */
  private markerTokens(omitted: number, role: InsertedRole, named?: readonly OmittedEntry[], unnamed?: number): number {
    return Math.max(0, this.counter.countMessages([omissionMarker(omitted, role, named, unnamed)]) - this.requestOverhead);
  }

  /** A marker at `index` for `omitted` messages naming, after what `previous` named, the newest of `entries` that fit `budget` tokens. */
  private namedMarker(
    index: number,
    omitted: number,
    role: InsertedRole,
    previous: Marker | undefined,
    entries: readonly OmittedEntry[],
    budget: number,
  ): Marker {
    const names = namesWithin(omitted, role, previous, entries, budget, this.counter, this.requestOverhead);
    return {
      index,
      omitted,
      tokens: names.tokens,
      role,
      ...(names.named.length > 0 ? { named: names.named, unnamed: names.unnamed } : {}),
    };
  }
}
