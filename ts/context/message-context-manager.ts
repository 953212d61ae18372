// MessageContextManager (seed 004; seed 001/003's ContextManager for message histories).
//
// Keeps a conversation inside its model's window: counts each message once as it is added (a
// running total, O(1) per message), warns at 80% and 90%, and trims with its mode's strategy,
// planned in the core over per-message metadata kept alongside the caller's messages.
//
// Trims run with hysteresis: crossing `trimAt` cuts down to `trimTo`, so that between trims each
// request only grows at the end and providers' prompt caches keep hitting. The manager measures
// that: each getContextForRequest() is a request, and the tokens of its prefix shared with the
// previous request are tracked from the positions edits touch (O(changed), never by re-reading
// the messages).
import { EventEmitter } from "node:events";
import type { ContextCompactor, SummaryMessage } from "../compaction/context-compactor.js";
import {
  ProgressiveCompaction,
  type BreakerEvent,
  type BreakerState,
  type CompactableHistory,
  type CompactionReport,
} from "../compaction/progressive-compaction.js";
import { ContextLimits, type LimitOverrides } from "../history/context-limits.js";
import { describe, rangeError, requireCount, requireString, typeError } from "../runtime/errors.js";
import { visitMessage } from "../messages/message-shape.js";
import { getCounter } from "../tokens/get-counter.js";
import { consoleLogger, type Logger } from "../runtime/logger.js";
import { messageTokens } from "../tokens/message-tokens.js";
import { native } from "../runtime/native.js";
import {
  CompositeStrategy,
  SlidingWindowStrategy,
  SmartTruncationStrategy,
  TokenBudgetStrategy,
  coreChain,
  markerRoleOf,
  type TruncationStrategy,
} from "../history/strategies.js";
import type { SummaryModel } from "../models/summary-model.js";
import { reportedInputTokens, UsageCalibration, type ModelCalibration, type ReportedUsage } from "../history/usage-calibration.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import { randomUUID } from "node:crypto";
import { SessionLink, type SessionOptions } from "../session/session-link.js";
import { buildExport, stateOfExport, type ContextExport, type ContextState } from "../session/export.js";
import type { MessageLike } from "../messages/types.js";
import { ROLE_CODES, type InsertedRole } from "../messages/roles.js";
import { FLAG_MARKED, MetadataReader, type MessageFacts } from "../messages/metadata-reader.js";
import { omissionMarker, type OmissionMarker } from "../messages/omission-marker.js";

export const TruncationMode = {
  SLIDING_WINDOW: "sliding_window",
  TOKEN_BUDGET: "token_budget",
  SMART: "smart",
  SUMMARIZE: "summarize",
} as const;
export type TruncationMode = (typeof TruncationMode)[keyof typeof TruncationMode];

/** Seed 000's warnings, word for word. */
export const WARNING_80 = "Context at 80% capacity. Consider /clear or /save.";
export const WARNING_90 = "Context at 90% capacity. Auto-trimming soon.";

export interface ContextWarning {
  level: 80 | 90;
  message: string;
  usagePercentage: number;
}

export interface TrimEvent<M> {
  removed: M[];
  kept: number;
  /** "Context trimmed. Kept first 2 and last 10 turns." with the real numbers. */
  message: string;
  tokensBefore: number;
  tokensAfter: number;
}

export interface MessageContextManagerOptions<M extends MessageLike> {
  model: string;
  mode?: TruncationMode;
  /** The summarizing model for SUMMARIZE mode (the shapes SPEC-08's summarize takes). */
  llm?: SummaryModel;
  counter?: TokenCounter;
  /** Limits, or overrides for the model's (maxTokens, contextLength, ...). */
  limits?: ContextLimits | LimitOverrides;
  /** Trim automatically when usage crosses `trimAt` (default true). */
  autoTruncate?: boolean;
  /** The share of the effective limit at which trimming starts (default 0.8, seed 000). */
  trimAt?: number;
  /**
   * The share of the effective limit a trim (or a compaction) cuts down to (default 0.6, at most
   * trimAt). The gap is what keeps prompt caches hitting: between trims requests only grow.
   */
  trimTo?: number;
  /** Replaces the mode's strategy. */
  strategy?: TruncationStrategy;
  logger?: Logger;
  /** Told about every trim, e.g. to keep a session store consistent (also the 'trimmed' event). */
  onTrim?: (event: TrimEvent<M>) => void;
  /** Compaction level 1: tool results above this many tokens are compacted (default 1000). */
  maxToolResultTokens?: number;
  /** Compaction level 2: tool results of the last this many tool units stay whole (default 3). */
  keepToolResults?: number;
  /**
   * Compaction level 2: clear at least this many tokens of old tool results at once, or none
   * (unless less reaches the target). Default (trimAt - trimTo) x the effective limit: the room a
   * trim makes, so that clearings break the prompt cache no more often than trims do.
   */
  clearAtLeast?: number;
  /** Compaction level 0: the reasoning of the last this many assistant turns with reasoning stays (default 1). */
  keepReasoningTurns?: number;
  /** Compaction level 3: the summary's bound in tokens (default 500). */
  maxSummaryTokens?: number;
  /**
   * Compaction level 3: the summarizer's input budget (default: the effective limit less
   * maxSummaryTokens, for a summarizer with this model's window). Compaction starts before the
   * messages to summarize outgrow it, so that a summary never has to leave some out.
   */
  summaryInputTokens?: number;
  /** Compaction level 3: the user's own messages kept verbatim beside the summary, in tokens (default 2,000). */
  keepUserTokens?: number;
  /** Failed summaries in a row that open the circuit breaker (default 3); while open, levels 0, 1, 2 and 4 run. */
  maxSummaryFailures?: number;
  /** How long the breaker stays open before one trial summary (default 300,000 ms). */
  breakerResetMs?: number;
  /** Compaction level 3: recent messages kept out of the summary (default 10). */
  preserveLast?: number;
  /** Compaction level 3: the summary message's role (default "system"). */
  summaryRole?: InsertedRole;
  /** A tool result whose call is not in the history: reject it (`"error"`, default) or leave it out of the history with a warning (`"drop"`). */
  orphanToolResults?: "error" | "drop";
  /** Reported-to-counted ratios per model, shared with other managers when given (observeUsage). */
  calibration?: UsageCalibration;
  /**
   * Keep the context in a session's append-only log (docs/sessions.md): the manager opens it (use
   * `await MessageContextManager.open(options)`, or `await manager.ready`), appends each message
   * and each trim or compaction as it happens, and `await manager.flush()` makes them durable.
   */
  session?: SessionOptions;
}

export interface ContextStats {
  model: string;
  mode: TruncationMode;
  messageCount: number;
  byRole: { system: number; user: number; assistant: number; tool: number };
  tokenUsage: number;
  availableTokens: number;
  usagePercentage: number;
  /** The local count, before reported usage anchors or scales it. */
  countedTokens: number;
  /** Whether tokenUsage is anchored on a reported usage (observeUsage). */
  anchored: boolean;
  /** Reported-to-counted ratio per model (observeUsage). */
  calibration: Record<string, ModelCalibration>;
  /** Prompt caching over the requests so far (each getContextForRequest() call is one). */
  cache: CacheStats;
  /** The summarizer's circuit breaker (closed when there is no llm). */
  breaker: BreakerState;
}

export interface CacheStats {
  requests: number;
  /** Prompt tokens of all requests. */
  promptTokens: number;
  /** Tokens of each request's prefix that the previous request had too, summed. */
  sharedPrefixTokens: number;
  /** sharedPrefixTokens / promptTokens (0 before the first request). */
  cacheableShare: number;
}

interface Events<M> {
  warning: [ContextWarning];
  trimmed: [TrimEvent<M>];
  compacted: [CompactionReport<M>];
  /** The summarizer's circuit breaker opened, let a trial call through, or closed. */
  breaker: [BreakerEvent];
}

const ROLE_KEYS = ["system", "user", "assistant", "tool"] as const;

export class MessageContextManager<M extends MessageLike = MessageLike> extends EventEmitter<Events<M>> {
  readonly model: string;
  readonly mode: TruncationMode;
  readonly limits: ContextLimits;
  readonly counter: TokenCounter;
  readonly strategy: TruncationStrategy;
  readonly llm: SummaryModel | undefined;
  readonly autoTruncate: boolean;
  readonly trimAt: number;
  readonly trimTo: number;
  /** Session metadata: kept by clear(), dropped by reset() (seed 000). */
  metadata: Record<string, unknown> = {};

  private readonly onTrim: ((event: TrimEvent<M>) => void) | undefined;
  /** Set when `llm` is given: compaction level 3. */
  readonly compactor: ContextCompactor | undefined;
  private readonly compaction: ProgressiveCompaction;
  private compacting: Promise<CompactionReport<M>> | undefined;
  private startingCompaction = false;
  /** Set when restoreState replaced the history during a compaction (see startCompaction). */
  private restoredWhileCompacting = false;
  private systemPrompt: string | undefined;
  private systemTokens = 0;
  private readonly requestOverhead: number;
  private messages: M[] = [];
  private roles: number[] = [];
  private tokens: number[] = [];
  private flags: number[] = [];
  private units: number[] = [];
  private readonly orphanToolResults: "error" | "drop";
  private readonly logger: Logger | undefined;
  private reader: MetadataReader;
  private conversationTokens = 0;
  private warned80 = false;
  private warned90 = false;
  /** Where earlier turns were omitted: "[N messages omitted]" goes before messages[index]. */
  private marker: { index: number; omitted: number; tokens: number; role: InsertedRole } | undefined;
  readonly calibration: UsageCalibration;
  /** Bumped by every change that is not an append: a usage from before it describes another history. */
  private rewrites = 0;
  /** What getContextForRequest() last returned, for matching a reported usage to it. */
  private lastRequest: { rewrites: number; counted: number } | undefined;
  /** The reported usage tokenUsage builds on (dropped by any rewrite), and the local count it replaced. */
  private anchor: { reported: number; counted: number } | undefined;
  /** Prompt-cache accounting: see getStats().cache. */
  private readonly cacheStats = { requests: 0, promptTokens: 0, sharedPrefixTokens: 0 };
  /** Conversation tokens (marker included) of the last request still the prefix of the history now. */
  private stablePrefix = 0;
  /** The system prompt the last request carried (compared, not tracked: a prompt changed and changed back is the same prefix). */
  private lastRequestSystemPrompt: string | undefined;
  /**
   * Tool calls still waiting for their results, and any reasoning item waiting for the item it
   * precedes: an automatic trim waits for them (unless the window itself is exceeded), so that it
   * never drops a call whose results are still to come.
   */
  private readonly pendingCalls = new Set<string>();
  /** Pending calls a trim past the window removed: their results are left out when they come. */
  private readonly trimmedCalls = new Set<string>();
  /**
   * Tool units a trim removed. An item that joins one later (a parallel function_call after its
   * reasoning item, a result) would stand alone, so it is left out too; any item outside a unit
   * ends the chance that one is still being built, and the set is emptied.
   */
  private readonly trimmedUnits = new Set<number>();
  private pendingReasoning = false;
  /** The session's id in exports (the store's id when the manager has a session). */
  sessionId: string;
  private createdAt = Date.now();
  private updatedAt = this.createdAt;
  /** The summaries a compaction put in (an export marks them). */
  private summaries = new WeakSet<object>();
  /** The session log this manager's changes go to (ts/session/session-link.ts). */
  private readonly session: SessionLink<M> | undefined;
  /** Resolves once the session's log has been read into the manager (at once without a session). */
  readonly ready: Promise<void>;

  constructor(options: MessageContextManagerOptions<M>) {
    super();
    if (options === null || typeof options !== "object") throw typeError(`options must be an object, got ${describe(options)}`);
    this.model = requireString(options.model, "options.model");
    const mode = options.mode ?? TruncationMode.SMART;
    if (!Object.values(TruncationMode).includes(mode)) {
      throw rangeError(`options.mode must be one of ${Object.values(TruncationMode).join(", ")}, got ${describe(mode)}`);
    }
    if (mode === TruncationMode.SUMMARIZE && options.llm === undefined) {
      throw typeError("options.llm is required for TruncationMode.SUMMARIZE: the model that writes the summaries");
    }
    this.mode = mode;
    this.llm = options.llm;
    this.limits = options.limits instanceof ContextLimits ? options.limits : ContextLimits.forModel(this.model, options.limits ?? {}, { logger: options.logger });
    this.counter = options.counter ?? getCounter(this.model, { logger: options.logger });
    this.autoTruncate = options.autoTruncate ?? true;
    const trimAt = options.trimAt ?? 0.8;
    if (typeof trimAt !== "number" || !(trimAt > 0 && trimAt <= 1)) throw rangeError(`options.trimAt must be a number in (0, 1], got ${describe(trimAt)}`);
    this.trimAt = trimAt;
    const trimTo = options.trimTo ?? Math.min(0.6, trimAt);
    if (typeof trimTo !== "number" || !(trimTo > 0 && trimTo <= trimAt)) {
      throw rangeError(`options.trimTo must be a number in (0, trimAt = ${trimAt}], got ${describe(trimTo)}`);
    }
    this.trimTo = trimTo;
    this.strategy = options.strategy ?? strategyFor(mode);
    this.onTrim = options.onTrim;
    this.orphanToolResults = options.orphanToolResults ?? "error";
    this.logger = options.logger;
    if (this.orphanToolResults !== "error" && this.orphanToolResults !== "drop") {
      throw rangeError(`options.orphanToolResults must be "error" or "drop", got ${describe(options.orphanToolResults)}`);
    }
    this.reader = new MetadataReader({ orphanToolResults: this.orphanToolResults });
    this.requestOverhead = this.counter.countMessages([]);
    const maxSummaryTokens = requireCount(options.maxSummaryTokens ?? 500, "options.maxSummaryTokens", 1);
    this.compaction = new ProgressiveCompaction({
      maxToolResultTokens: options.maxToolResultTokens,
      keepToolResults: options.keepToolResults,
      // The room a trim makes: clearings then break the prompt cache no more often than trims.
      clearAtLeast: options.clearAtLeast ?? Math.floor((this.trimAt - this.trimTo) * this.limits.effectiveLimit),
      keepReasoningTurns: options.keepReasoningTurns,
      preserveLast: options.preserveLast,
      llm: options.llm,
      summaryRole: options.summaryRole,
      maxSummaryTokens,
      summaryInputTokens: options.summaryInputTokens ?? Math.max(64, this.limits.effectiveLimit - maxSummaryTokens),
      keepUserTokens: options.keepUserTokens,
      maxSummaryFailures: options.maxSummaryFailures,
      breakerResetMs: options.breakerResetMs,
      onBreaker: (event) => this.emit("breaker", event),
      logger: options.logger,
    });
    this.compactor = this.compaction.compactor;
    if (options.calibration !== undefined && !(options.calibration instanceof UsageCalibration)) {
      throw typeError(`options.calibration must be a UsageCalibration, got ${describe(options.calibration)}`);
    }
    this.calibration = options.calibration ?? new UsageCalibration();
    this.sessionId = options.session?.id ?? randomUUID();
    if (options.session !== undefined) {
      if (options.session === null || typeof options.session !== "object" || typeof options.session.store?.append !== "function") {
        throw typeError(`options.session must be { store, id } with a SessionStore, got ${describe(options.session)}`);
      }
      // eslint-disable-next-line @typescript-eslint/no-this-alias
      const self = this;
      // `metadata` through a getter: callers may replace the object.
      this.session = new SessionLink<M>(options.session, { get metadata() { return self.metadata; }, restoreFromLog: (state) => self.restoreState(state, true) }, options.logger);
      this.ready = this.session.ready;
    } else {
      this.ready = Promise.resolve();
    }
  }

  /** A manager whose session is open: the log read, the context continued where it was. */
  static async open<M extends MessageLike = MessageLike>(options: MessageContextManagerOptions<M>): Promise<MessageContextManager<M>> {
    const manager = new MessageContextManager<M>(options);
    await manager.ready;
    return manager;
  }

  /**
   * Resolves when every change so far is in the session's store (durable); at once without a
   * session. A compaction that addMessage started in the background is one of those changes: it is
   * waited for first (its failure is the compaction's to report, not flush's), and so is one that
   * the flush itself starts (a conflict makes the manager re-read the log, which may start one).
   */
  async flush(): Promise<void> {
    do {
      while (this.compacting !== undefined) await this.compacting.catch(() => undefined);
      await this.session?.flush();
    } while (this.compacting !== undefined);
  }

  /** Seed 000's /export: the metadata and the turns, summaries and the omission marker marked. */
  export(): ContextExport {
    return buildExport(
      {
        ...this.state(),
        sessionId: this.sessionId,
        // A session's times are its log's (the store's clock), so every worker exports the same.
        createdAt: this.session?.createdAt ?? this.createdAt,
        updatedAt: Math.max(this.updatedAt, this.session?.updatedAt ?? 0),
        metadata: this.metadata,
      },
      { model: this.model, mode: this.mode, tokenUsage: this.tokenUsage },
    );
  }

  /**
   * Seed 000's /import: validates `json` (an export, or its text) first, then replaces the
   * conversation and the system prompt with the export's and merges its metadata into this
   * manager's. A bad file throws ERR_CTXWIN_INVALID_EXPORT naming the first bad path and changes nothing.
   */
  import(json: unknown): void {
    const { sessionId: _id, createdAt: _created, updatedAt: _updated, model: _model, mode: _mode, ...state } = stateOfExport<M>(json);
    this.restoreState({ ...state, metadata: { ...this.metadata, ...state.metadata } }, false);
  }

  /** A manager restored from an export (model and mode from the file unless `options` names them). */
  static fromExport<M extends MessageLike = MessageLike>(json: unknown, options: Partial<MessageContextManagerOptions<M>> = {}): MessageContextManager<M> {
    const { model, mode, ...state } = stateOfExport<M>(json);
    const chosenModel = options.model ?? model;
    if (chosenModel === undefined) throw typeError("options.model is required: the export names no model (metadata.model)");
    const manager = new MessageContextManager<M>({
      ...options,
      model: chosenModel,
      mode: options.mode ?? (Object.values(TruncationMode).includes(mode as TruncationMode) ? (mode as TruncationMode) : undefined),
    });
    manager.restoreState(options.session ? { ...state, sessionId: undefined } : state, false);
    return manager;
  }

  /** The manager's state as an export sees it. */
  private state(): ContextState<M> {
    const summaries: number[] = [];
    this.messages.forEach((m, i) => {
      if (this.summaries.has(m as object)) summaries.push(i);
    });
    const marker = this.marker ? { index: this.marker.index, omitted: this.marker.omitted, role: this.marker.role } : undefined;
    return { messages: this.messages.slice(), summaries, marker, systemPrompt: this.systemPrompt ?? null };
  }

  /** Replaces the whole view (import, a session's log); everything is checked and counted first. */
  private restoreState(state: ContextState<M>, fromLog: boolean): void {
    const reader = new MetadataReader({ orphanToolResults: "error" });
    const facts = state.messages.map((m, i) => reader.read(m, i));
    const tokens = Array.from(messageTokens(this.counter, state.messages));
    const summaries = new Set(state.summaries);
    const prompt = state.systemPrompt === undefined ? this.systemPrompt : (state.systemPrompt ?? undefined);
    const systemTokens = prompt === undefined ? 0 : this.counter.countMessages([{ role: "system", content: prompt }]) - this.requestOverhead;
    let marker: typeof this.marker;
    if (state.marker) {
      const { omitted, role } = state.marker;
      const markerTokens = Math.max(0, this.counter.countMessages([omissionMarker(omitted, role)]) - this.requestOverhead);
      marker = { index: Math.min(state.marker.index, state.messages.length), omitted, tokens: markerTokens, role };
    }
    // Nothing above changed the manager; from here on nothing throws.
    this.reader = reader;
    this.rewritten();
    this.messages = state.messages.slice();
    this.roles = facts.map((f) => f.role);
    this.flags = facts.map((f, i) => (summaries.has(i) ? f.flags | FLAG_MARKED : f.flags));
    this.units = facts.map((f, i) => (summaries.has(i) ? -1 : f.unit));
    this.tokens = tokens;
    this.conversationTokens = tokens.reduce((a, b) => a + b, 0);
    this.summaries = new WeakSet(state.messages.filter((_, i) => summaries.has(i)) as object[]);
    this.marker = marker;
    this.systemPrompt = prompt;
    this.systemTokens = systemTokens;
    // A restored view shares no prefix with the last request, and its open tool calls are its own.
    this.stablePrefix = 0;
    this.pendingCalls.clear();
    this.trimmedCalls.clear();
    this.trimmedUnits.clear();
    state.messages.forEach((m, i) => this.trackExchange(m, facts[i] as MessageFacts));
    if (state.metadata !== undefined) this.metadata = state.metadata;
    if (state.sessionId !== undefined && this.session === undefined) this.sessionId = state.sessionId;
    if (state.createdAt !== undefined) this.createdAt = state.createdAt;
    this.updatedAt = state.updatedAt ?? (fromLog ? this.updatedAt : Date.now());
    if (!fromLog) this.session?.restored(state);
    if (this.compacting !== undefined) this.restoredWhileCompacting = true;
    this.rearmWarnings();
    this.afterChange();
  }

  /**
   * Progressive compaction (seed 003 FR-4.3). When usage is above `threshold` of the effective
   * limit, the levels run, cheapest first, until usage is at `trimTo` (at most the threshold):
   * (0) clear old reasoning, (1) compact large tool results, (2) replace old tool results by
   * "[Old tool result content cleared]" (the calls stay), at least `clearAtLeast` tokens at once,
   * (3) summarize old turns with `llm`, (4) truncate with the mode's strategy. Level 3 also runs
   * alone, earlier, when the messages to summarize would outgrow the summarizer's input budget.
   * Never blocks addMessage; a call while one runs gets the same promise; messages added
   * meanwhile are kept.
   */
  compactIfNeeded(options: { threshold?: number } = {}): Promise<CompactionReport<M>> {
    const threshold = options.threshold ?? 0.9;
    if (typeof threshold !== "number" || !(threshold > 0 && threshold <= 1)) {
      return Promise.reject(rangeError(`options.threshold must be a number in (0, 1], got ${describe(threshold)}`));
    }
    return this.startCompaction(threshold);
  }

  /** Whether level 3 must run before the messages to summarize outgrow the summarizer's input. */
  private summarizerFull(): boolean {
    if (!this.compaction.canSummarize()) return false;
    const capacity = this.compaction.summarizerCapacity(this.counter);
    // O(1) on the common path (addMessage stays O(1)): the part to summarize is never more than the conversation.
    if (this.conversationTokens < capacity) return false;
    return this.compaction.summarizableTokens(this.compactable()) >= capacity;
  }

  private startCompaction(threshold: number): Promise<CompactionReport<M>> {
    if (this.compacting !== undefined) return this.compacting;
    // The levels' first edits happen before run() returns its promise: they must not start another.
    this.startingCompaction = true;
    try {
      this.compacting = this.compaction
      .run(this.compactable(), { threshold, targetShare: this.trimTo, effectiveLimit: this.limits.effectiveLimit, summarizeEarly: () => this.summarizerFull() })
      .then((report) => {
        this.emit("compacted", report);
        return report;
      })
      .finally(() => {
        this.compacting = undefined;
      })
      .then((report) => {
        // While this ran, the history may have grown past trimAt again (its own summary beside the
        // user's kept words, messages added meanwhile) or been replaced (a session conflict brought
        // another worker's messages): afterChange, which found a compaction running, looks again.
        // Only after a run that changed something or a replaced history, so that a history
        // nothing can shrink does not start run after run.
        const changed = report.levels.some((level) => level.messagesChanged > 0);
        if (changed || this.restoredWhileCompacting) {
          this.restoredWhileCompacting = false;
          this.afterChange();
        }
        return report;
      });
    } finally {
      this.startingCompaction = false;
    }
    return this.compacting;
  }

  /** The view and the edits the compaction levels work with; the bookkeeping stays here. */
  private compactable(): CompactableHistory<M> {
    return {
      counter: this.counter,
      tokenUsage: () => this.tokenUsage,
      fixedTokens: () => this.systemTokens + this.requestOverhead,
      messages: () => this.messages,
      roles: () => this.roles,
      tokens: () => this.tokens,
      units: () => this.units,
      flags: () => this.flags,
      replace: (edits) => this.replace(edits),
      spliceSummary: (positions, summary) => this.spliceSummary(positions, summary),
      truncate: (target) => this.truncate(target)?.removed ?? [],
    };
  }

  /** Puts compacted copies in place of messages; returns how many changed. */
  private replace(edits: Array<[number, M]>): number {
    if (edits.length === 0) return 0;
    const counts = messageTokens(this.counter, edits.map(([, m]) => m));
    this.rewritten();
    this.touched(Math.min(...edits.map(([i]) => i)));
    edits.forEach(([i, after], k) => {
      this.conversationTokens += (counts[k] ?? 0) - (this.tokens[i] ?? 0);
      this.messages[i] = after;
      this.tokens[i] = counts[k] ?? 0;
    });
    this.session?.replaced(edits);
    this.touch();
    this.afterChange();
    return edits.length;
  }

  /** Removes the messages at `positions` and puts the summary where the first of them was. */
  private spliceSummary(positions: number[], summary: SummaryMessage): void {
    const remove = new Set(positions);
    const at = Math.min(...positions);
    const [summaryTokens] = messageTokens(this.counter, [summary as unknown as M]);
    this.touched(this.marker !== undefined ? Math.min(at, this.marker.index) : at, false);
    this.select(this.messages.map((_, i) => i).filter((i) => !remove.has(i)));
    // Every message before `at` is kept, so `at` is still the summary's place; it is never trimmed.
    this.insert(at, summary as unknown as M, { role: ROLE_CODES[summary.role], flags: FLAG_MARKED, unit: -1 }, summaryTokens ?? 0);
    this.marker = undefined;
    this.summaries.add(summary);
    this.session?.summarized(positions, summary, at);
    this.touch();
    this.afterChange();
  }

  /** Keeps only the messages at `indices`, in that order, with their metadata. */
  private select(indices: readonly number[]): void {
    const pick = <T>(array: readonly T[]) => indices.map((i) => array[i] as T);
    this.rewritten();
    this.messages = pick(this.messages);
    this.roles = pick(this.roles);
    this.tokens = pick(this.tokens);
    this.flags = pick(this.flags);
    this.units = pick(this.units);
    this.conversationTokens = this.tokens.reduce((a, b) => a + b, 0);
  }

  /** Puts `message` at `at` with its metadata and tokens. */
  private insert(at: number, message: M, facts: { role: number; flags: number; unit: number }, tokens: number): void {
    this.messages.splice(at, 0, message);
    this.roles.splice(at, 0, facts.role);
    this.tokens.splice(at, 0, tokens);
    this.flags.splice(at, 0, facts.flags);
    this.units.splice(at, 0, facts.unit);
    this.conversationTokens += tokens;
  }

  setSystemPrompt(prompt: string): number {
    requireString(prompt, "prompt");
    if (prompt !== this.systemPrompt) this.rewritten(); // a usage from before describes another prompt
    this.systemTokens = this.counter.countMessages([{ role: "system", content: prompt }]) - this.requestOverhead;
    // A worker that sets its prompt at every start does not grow the log with copies.
    if (prompt !== this.systemPrompt) this.session?.systemPromptSet(prompt);
    this.systemPrompt = prompt;
    this.touch();
    this.afterChange();
    return this.systemTokens;
  }

  /** Adds a message, counting only it; trims first when the total crosses `trimAt` (autoTruncate). */
  addMessage(message: M): void {
    // Checked, read and counted before anything changes: a failure leaves the manager as it was.
    const pending = this.reader.inspect(message, this.messages.length);
    if (pending.orphan) {
      // orphanToolResults: "drop": a result without its call never enters the history.
      this.reader.commit(pending);
      (this.logger ?? consoleLogger).warn("ctxwin: dropped a tool result whose call is not in the history");
      return;
    }
    if (pending.unit >= 0 && this.trimmedUnits.has(pending.unit)) {
      // The rest of an exchange a trim past the window cut into: alone it would be invalid.
      this.reader.commit(pending);
      for (const id of pending.callIds ?? []) this.trimmedCalls.add(id);
      for (const id of pending.resultIds ?? []) this.trimmedCalls.delete(id);
      (this.logger ?? consoleLogger).warn("ctxwin: left out an item whose tool exchange a trim removed");
      return;
    }
    if (pending.unit < 0) this.trimmedUnits.clear();
    if (pending.resultIds !== undefined && pending.resultIds.length > 0 && pending.resultIds.every((id) => this.trimmedCalls.has(id))) {
      // Its call was trimmed away (the window could not hold the exchange): a result alone is invalid.
      this.reader.commit(pending);
      for (const id of pending.resultIds) this.trimmedCalls.delete(id);
      (this.logger ?? consoleLogger).warn("ctxwin: dropped a tool result whose call a trim removed");
      return;
    }
    const [tokens] = messageTokens(this.counter, [message]);
    const facts = this.reader.commit(pending);
    this.insert(this.messages.length, message, facts, tokens ?? 0);
    this.trackExchange(message, facts);
    this.session?.added(message);
    this.touch();
    this.afterChange();
  }

  private trackExchange(message: M, facts: { callIds?: string[]; resultIds?: string[] }): void {
    for (const id of facts.resultIds ?? []) this.pendingCalls.delete(id);
    for (const id of facts.callIds ?? []) this.pendingCalls.add(id);
    const record = message as { role?: unknown; type?: unknown };
    this.pendingReasoning = record.role === undefined && record.type === "reasoning";
  }

  /** Whether `message` fits without trimming (seed 004's pre-check). */
  canAdd(message: M): boolean {
    new MetadataReader({ orphanToolResults: "drop" }).read(message, this.messages.length);
    const [tokens] = messageTokens(this.counter, [message]);
    const added = this.calibration.scale(this.model, (tokens ?? 0) + (this.tokenUsage === 0 ? this.requestOverhead : 0));
    return this.tokenUsage + added <= this.limits.effectiveLimit;
  }

  /** Starts from an existing history (a session's), counted exactly in one batch. */
  load(messages: readonly M[]): void {
    if (!Array.isArray(messages)) throw typeError(`messages must be an array, got ${describe(messages)}`);
    const reader = new MetadataReader({ orphanToolResults: this.orphanToolResults });
    const all = messages.map((m, i) => reader.read(m, i)); // validate everything first
    const keep = all.map((f) => !f.orphan);
    if (keep.includes(false)) (this.logger ?? consoleLogger).warn(`ctxwin: dropped ${keep.filter((k) => !k).length} tool results whose calls are not in the history`);
    messages = messages.filter((_, i) => keep[i]);
    const facts = all.filter((_, i) => keep[i]);
    const tokens = messageTokens(this.counter, messages);
    this.reader = reader;
    this.rewritten();
    this.messages = messages.slice();
    this.roles = facts.map((f) => f.role);
    this.flags = facts.map((f) => f.flags);
    this.units = facts.map((f) => f.unit);
    this.tokens = Array.from(tokens);
    this.conversationTokens = this.tokens.reduce((a, b) => a + b, 0);
    this.marker = undefined;
    this.stablePrefix = 0;
    this.pendingCalls.clear();
    this.trimmedCalls.clear();
    this.trimmedUnits.clear();
    messages.forEach((m, i) => this.trackExchange(m, facts[i] as MessageFacts));
    this.session?.restored({ messages: this.messages, summaries: [], marker: undefined });
    this.touch();
    this.afterChange();
  }

  getMessages(): M[] {
    return this.messages.slice();
  }

  /** The request: the system prompt first, then the conversation (with the omission marker, if any). */
  getContextForRequest(): Array<M | OmissionMarker | { role: "system"; content: string }> {
    this.countRequest();
    const conversation: Array<M | OmissionMarker> = this.messages.slice();
    if (this.marker) conversation.splice(this.marker.index, 0, omissionMarker(this.marker.omitted, this.marker.role));
    this.lastRequest = { rewrites: this.rewrites, counted: this.countedTokens };
    return this.systemPrompt === undefined ? conversation : [{ role: "system", content: this.systemPrompt }, ...conversation];
  }

  /**
   * Anchors the running total on the provider's figure for the request getContextForRequest()
   * last returned (AI SDK, OpenAI, Anthropic, LangChain and OpenAI Agents usage shapes). From then
   * on tokenUsage is the reported figure plus the (scaled) counts of what was added since, and the
   * model's reported-to-counted ratio scales later counts up. A usage that cannot be matched to
   * that request (no request yet, or the history was trimmed, compacted, loaded, cleared or given
   * a new system prompt since) is ignored with a warning. Returns whether it was applied.
   */
  observeUsage(usage: ReportedUsage): boolean {
    const reported = reportedInputTokens(usage); // throws before any change
    const warn = (why: string) => {
      (this.logger ?? consoleLogger).warn(`ctxwin: ignored a reported usage: ${why}`);
      return false;
    };
    if (reported === undefined) return warn("it reports no input tokens");
    const request = this.lastRequest;
    if (request === undefined) return warn("no request was made (call getContextForRequest() for the request the usage belongs to)");
    if (request.rewrites !== this.rewrites) return warn("the history was trimmed, compacted or replaced since the request it belongs to");
    this.calibration.observe(this.model, reported, request.counted);
    this.anchor = { reported, counted: request.counted };
    this.afterChange();
    return true;
  }

  /** The request's tokens: anchored on the last reported usage when there is one, scaled by the model's ratio. */
  get tokenUsage(): number {
    const counted = this.countedTokens;
    if (this.anchor) return this.anchor.reported + this.calibration.scale(this.model, Math.max(0, counted - this.anchor.counted));
    return this.calibration.scale(this.model, counted);
  }

  /** The local count of the request, before any reported usage. */
  private get countedTokens(): number {
    const content = this.systemTokens + this.conversationTokens + (this.marker?.tokens ?? 0);
    return content > 0 ? content + this.requestOverhead : 0;
  }

  private rewritten(): void {
    this.rewrites++;
    this.anchor = undefined;
  }

  get availableTokens(): number {
    return Math.max(0, this.limits.effectiveLimit - this.tokenUsage);
  }

  get usagePercentage(): number {
    const limit = this.limits.effectiveLimit;
    return limit === 0 ? 100 : (this.tokenUsage / limit) * 100;
  }

  /** At or above 80% of the effective limit. */
  get isNearLimit(): boolean {
    return this.usagePercentage >= 80;
  }

  getStats(): ContextStats {
    const byRole = { system: this.systemPrompt === undefined ? 0 : 1, user: 0, assistant: 0, tool: 0 };
    for (const role of this.roles) {
      const key = ROLE_KEYS[role];
      if (key) byRole[key]++;
    }
    return {
      model: this.model,
      mode: this.mode,
      messageCount: this.messages.length,
      byRole,
      tokenUsage: this.tokenUsage,
      availableTokens: this.availableTokens,
      usagePercentage: this.usagePercentage,
      countedTokens: this.countedTokens,
      anchored: this.anchor !== undefined,
      calibration: this.calibration.toJSON(),
      cache: { ...this.cacheStats, cacheableShare: this.cacheStats.promptTokens === 0 ? 0 : this.cacheStats.sharedPrefixTokens / this.cacheStats.promptTokens },
      breaker: this.compaction.breaker,
    };
  }

  /**
   * A request is sent: its prefix shared with the previous one is the system prompt (unless it
   * changed) and the conversation up to the first position an edit touched since.
   */
  private countRequest(): void {
    const total = this.tokenUsage;
    const shared = this.cacheStats.requests > 0 && this.systemPrompt === this.lastRequestSystemPrompt ? this.systemTokens + this.stablePrefix : 0;
    this.cacheStats.requests++;
    this.cacheStats.promptTokens += total;
    this.cacheStats.sharedPrefixTokens += Math.min(shared, total);
    this.stablePrefix = this.conversationTokens + (this.marker?.tokens ?? 0);
    this.lastRequestSystemPrompt = this.systemPrompt;
  }

  /**
   * The history changes at `position` (in its order before the change): the prefix the next
   * request shares ends there. Sums the shorter side of the cut, so the cost is O(changed) for the
   * edits at either end that trims and compactions make. `markerKept`: the omission marker before
   * `position`, if any, is unchanged.
   */
  private touched(position: number, markerKept = true): void {
    if (this.cacheStats.requests === 0) return;
    const n = this.tokens.length;
    const p = Math.max(0, Math.min(position, n));
    let before = 0;
    if (p <= n - p) {
      for (let i = 0; i < p; i++) before += this.tokens[i] ?? 0;
    } else {
      before = this.conversationTokens;
      for (let i = p; i < n; i++) before -= this.tokens[i] ?? 0;
    }
    if (this.marker !== undefined && this.marker.index <= p && (markerKept || this.marker.index < p)) before += this.marker.tokens;
    this.stablePrefix = Math.min(this.stablePrefix, before);
  }

  /** Trims now to `targetTokens` (default: trimTo of the effective limit). Returns what happened. */
  truncate(targetTokens?: number): TrimEvent<M> | undefined {
    const target = targetTokens === undefined ? Math.floor(this.limits.effectiveLimit * this.trimTo) : requireCount(targetTokens, "targetTokens");
    // Planned on local counts: a target in reported units shrinks by the model's ratio.
    const conversationTarget = Math.max(0, this.calibration.unscale(this.model, target) - this.systemTokens - this.requestOverhead);
    const before = this.tokenUsage;
    const kept = this.planKept(conversationTarget);
    if (kept === undefined || kept.indices.length === this.messages.length) return undefined;
    const keep = new Uint8Array(this.messages.length);
    for (const i of kept.indices) keep[i] = 1;
    const removed = this.messages.filter((_, i) => keep[i] === 0);
    this.units.forEach((unit, i) => {
      if (keep[i] === 0 && unit >= 0) this.trimmedUnits.add(unit);
    });
    if (this.pendingCalls.size > 0) {
      for (const m of removed) {
        visitMessage(m as unknown as Record<string, unknown>, {
          text: () => {},
          image: () => {},
          toolResult: () => {},
          toolCall: (id) => {
            if (id !== undefined && this.pendingCalls.delete(id)) this.trimmedCalls.add(id);
          },
        });
      }
    }
    // The first message removed ends the shared prefix; so does the marker, whose count changes.
    let firstRemoved = 0;
    while (firstRemoved < kept.indices.length && kept.indices[firstRemoved] === firstRemoved) firstRemoved++;
    this.touched(this.marker !== undefined ? Math.min(firstRemoved, this.marker.index) : firstRemoved, false);
    this.select(kept.indices);
    if (kept.markerIndex >= 0) {
      const omitted = (this.marker?.omitted ?? 0) + removed.length;
      const role = markerRoleOf([this.strategy]);
      const tokens = Math.max(0, this.counter.countMessages([omissionMarker(omitted, role)]) - this.requestOverhead);
      this.marker = { index: kept.markerIndex, omitted, tokens, role };
    } else if (this.marker) {
      // The marker stays before the first message that followed it, if that message is still here.
      const survivors = kept.indices.filter((i) => i < (this.marker as { index: number }).index).length;
      this.marker = { ...this.marker, index: survivors, omitted: this.marker.omitted + removed.length };
    }
    const first = kept.markerIndex >= 0 ? kept.markerIndex : 0;
    const message =
      kept.markerIndex >= 0
        ? `Context trimmed. Kept first ${first} and last ${this.messages.length - first} turns.`
        : `Context trimmed. Kept last ${this.messages.length} turns.`;
    this.session?.trimmed(kept.indices, this.marker);
    this.touch();
    const event: TrimEvent<M> = { removed, kept: this.messages.length, message, tokensBefore: before, tokensAfter: this.tokenUsage };
    this.rearmWarnings();
    this.onTrim?.(event);
    this.emit("trimmed", event);
    return event;
  }

  /** Drops the conversation; keeps the system prompt and session metadata (seed 000's /clear). */
  clear(): void {
    this.select([]);
    this.stablePrefix = 0;
    this.pendingCalls.clear();
    this.trimmedCalls.clear();
    this.trimmedUnits.clear();
    this.pendingReasoning = false;
    this.reader = new MetadataReader({ orphanToolResults: this.orphanToolResults });
    this.marker = undefined;
    this.session?.cleared();
    this.touch();
    this.rearmWarnings();
  }

  /** Everything back to new: conversation, system prompt and metadata. */
  reset(): void {
    this.clear();
    if (this.systemPrompt !== undefined) this.session?.systemPromptSet(null);
    this.systemPrompt = undefined;
    this.systemTokens = 0;
    this.metadata = {};
  }

  private touch(): void {
    this.updatedAt = Date.now();
  }

  private planKept(target: number): { indices: number[]; markerIndex: number } | undefined {
    if (this.messages.length === 0) return undefined;
    const chain = coreChain(this.strategy);
    if (chain) {
      // The metadata is already here: one call into the core, no walk over the messages.
      const plan = native.planTruncation(
        new Uint8Array(this.roles),
        new Uint32Array(this.tokens),
        new Uint8Array(this.flags),
        new Int32Array(this.units),
        target,
        chain.map((s) => s.spec(this.messages, this.counter)),
      );
      return { indices: Array.from(plan.kept), markerIndex: plan.markerPosition };
    }
    const plan = this.strategy.plan(this.messages, target, this.counter);
    return { indices: plan.keptIndices, markerIndex: plan.marker?.index ?? -1 };
  }

  private afterChange(): void {
    const usage = this.usagePercentage;
    if (usage >= 80 && !this.warned80) {
      this.warned80 = true;
      this.emit("warning", { level: 80, message: WARNING_80, usagePercentage: usage });
    }
    if (usage >= 90 && !this.warned90) {
      this.warned90 = true;
      this.emit("warning", { level: 90, message: WARNING_90, usagePercentage: usage });
    }
    if (!this.autoTruncate) return;
    const limit = this.limits.effectiveLimit;
    if (this.mode === TruncationMode.SUMMARIZE && this.compaction.compactor !== undefined) {
      // Summaries need the model, which addMessage never waits for: compaction starts in the
      // background (compactIfNeeded() joins it) and trims only what a request could not carry.
      if (this.compacting === undefined && !this.startingCompaction && (this.tokenUsage > limit * this.trimAt || this.summarizerFull())) {
        this.startCompaction(this.trimAt).catch((error: unknown) => (this.logger ?? consoleLogger).warn(`ctxwin: compaction failed: ${String(error)}`));
      }
      if (this.tokenUsage > limit) this.truncate();
      return;
    }
    const midExchange = this.pendingCalls.size > 0 || this.pendingReasoning;
    if (this.tokenUsage > (midExchange ? limit : limit * this.trimAt)) this.truncate();
  }

  private rearmWarnings(): void {
    const usage = this.usagePercentage;
    if (usage < 80) this.warned80 = false;
    if (usage < 90) this.warned90 = false;
  }
}

function strategyFor(mode: TruncationMode): TruncationStrategy {
  switch (mode) {
    case TruncationMode.SLIDING_WINDOW:
      return new SlidingWindowStrategy();
    case TruncationMode.TOKEN_BUDGET:
      return new TokenBudgetStrategy();
    case TruncationMode.SMART:
      return new SmartTruncationStrategy();
    case TruncationMode.SUMMARIZE:
      // Seed 001: SUMMARIZE uses a CompositeStrategy; summarizing old turns with `llm` is the
      // compaction issue's, and runs before this trimming does.
      return new CompositeStrategy([new SmartTruncationStrategy(), new TokenBudgetStrategy()]);
  }
}

export type { OmissionMarker };
export { omissionMarker };
