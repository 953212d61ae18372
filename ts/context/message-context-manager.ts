// MessageContextManager: a chat history kept inside its model's window.
//
// Counts each message once as it is added (a running total, O(1) per message), warns at 80% and
// 90%, and trims with its mode's strategy, planned in the core over per-message metadata kept
// alongside the caller's messages.
//
// Trims run with hysteresis: crossing `trimAt` cuts down to `trimTo`, so that between trims each
// request only grows at the end and providers' prompt caches keep hitting.
//
// The manager keeps the public API and the policy (when to warn, trim and compact). What it holds
// has one owner each: HistoryEditor, the one place the history changes, over HistoryColumns (the
// messages and their metadata, kept in step), ToolExchanges (open tool calls and what a trim cut)
// and PromptCacheAccounting; UsageAnchor (reported usage, shared with ContextTracker);
// UsageWarnings; the SessionLink to a session's log; and ProgressiveCompaction, whose edits the
// manager applies through the editor.
import type { ContextCompactor } from "../compaction/context-compactor.js";
import type { CompactionLevelName } from "../compaction/compaction-level.js";
import type { AppliedEdit, HistoryEdit, HistoryView } from "../compaction/history-edit.js";
import { ProgressiveCompaction, type CompactionReport } from "../compaction/progressive-compaction.js";
import { checkProblemRecord } from "../compaction/open-problems.js";
import type { ContextLimits } from "../budget/context-limits.js";
import type { KeptPlan, TruncationStrategy } from "../truncation/strategies.js";
import { planTrim } from "../compaction/newest-exchange.js";
import { UsageAnchor } from "../budget/usage-anchor.js";
import type { ReportedUsage, UsageCalibration } from "../budget/usage-calibration.js";
import { MetadataReader } from "../messages/metadata-reader.js";
import type { OmissionMarker } from "../messages/omission-marker.js";
import type { MessageLike } from "../messages/types.js";
import type { SummaryModel } from "../models/summary-model.js";
import { describe, rangeError, requireCount, requireString, typeError } from "../runtime/errors.js";
import { randomUuid } from "../runtime/random-id.js";
import { TypedEventEmitter } from "../runtime/event-emitter.js";
import { consoleLogger, type Logger } from "../runtime/logger.js";
import { buildExport, stateOfExport, type ContextExport, type ContextState } from "../session/export.js";
import { SessionLink } from "../session/session-link.js";
import type { SessionLostError } from "../session/store.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import { costForManager } from "../cost/ledger-for-manager.js";
import { BackgroundCompaction } from "./background-compaction.js";
import { managerSetup } from "./manager-setup.js";
import { contextOverflowError } from "./context-overflow.js";
import { HistoryEditor } from "./history-editor.js";
import { countMessagesNow } from "./large-message-count.js";
import { previewCompaction, type CompactionPreview } from "./compaction-preview.js";
import { managerStats } from "./manager-stats.js";
import { ManagerAgent, type CompactionRequest, type CompactionRequestAnswer, type ContextStatus } from "./manager-agent.js";
import {
  TruncationMode,
  type ContextEvents,
  type ContextStats,
  type MessageContextManagerOptions,
  type RequestMessages,
  type RequestOptions,
  type SeparatedRequest,
  type TrimEvent,
} from "./options.js";
import { UsageWarnings } from "./usage-warnings.js";

/** Why a reported usage is not applied (UsageAnchor's warnings). */
const USAGE_IGNORED = {
  noRequest: "no request was made (call getContextForRequest() for the request the usage belongs to)",
  rewritten: "the history was trimmed, compacted or replaced since the request it belongs to",
};

export class MessageContextManager<M extends MessageLike = MessageLike> extends TypedEventEmitter<ContextEvents<M>> {
  readonly model: string;
  readonly mode: TruncationMode;
  readonly limits: ContextLimits;
  readonly counter: TokenCounter;
  readonly strategy: TruncationStrategy;
  /** The summarizing model (options.compaction.summarizer), if any. */
  readonly summarizer: SummaryModel | undefined;
  readonly autoTruncate: boolean;
  /** What getContextForRequest does with a history still over the window after every trim: throw ERR_CTXWIN_CONTEXT_OVERFLOW, or send it. */
  readonly onOverflow: "error" | "send";
  readonly trimAt: number;
  readonly trimTo: number;
  /** Session metadata: kept by clear(), dropped by reset(). */
  metadata: Record<string, unknown> = {};
  /** Reported-to-counted ratios per model (observeUsage). */
  readonly calibration: UsageCalibration;
  /** Set when a summarizer is given (or SUMMARIZE mode summarizes offline): compaction level 3. */
  readonly compactor: ContextCompactor | undefined;
  /** The session's id in exports (the store's id when the manager has a session). */
  sessionId: string;
  /** Resolves once the session's log has been read into the manager (at once without a session). */
  readonly ready: Promise<void>;

  private readonly onTrim: ((event: TrimEvent<M>) => void) | undefined;
  private readonly logger: Logger | undefined;
  private readonly editor: HistoryEditor<M>;
  private readonly anchor: UsageAnchor;
  private readonly warnings = new UsageWarnings();
  /** The session log this manager's changes go to. */
  private readonly session: SessionLink<M> | undefined;
  private readonly compaction: ProgressiveCompaction;
  /** The compaction running now, if any, in the background of addMessage. */
  private readonly background: BackgroundCompaction<M>;
  /** The default mode's policy is running its levels (they change the history, and the policy must not start again). */
  private clearing = false;
  /** What the compaction levels read: the history as it is, never a copy. */
  private readonly view: HistoryView<M>;
  /** context_status, compact_context and the notices (context/manager-agent.ts). */
  private readonly agent: ManagerAgent<M>;
  private createdAt = Date.now();

  constructor(given: MessageContextManagerOptions<M>) {
    super();
    const setup = managerSetup(given);
    this.model = setup.model;
    this.mode = setup.mode;
    this.summarizer = setup.summarizer;
    this.limits = setup.limits;
    this.counter = setup.counter;
    this.autoTruncate = setup.autoTruncate;
    this.onOverflow = setup.onOverflow;
    this.trimAt = setup.trimAt;
    this.trimTo = setup.trimTo;
    this.strategy = setup.strategy;
    this.onTrim = setup.onTrim;
    this.logger = setup.logger;
    this.calibration = setup.calibration;
    this.compaction = new ProgressiveCompaction({ ...setup.levels, onBreaker: (event) => this.emit("breaker", event) });
    this.compactor = this.compaction.compactor;
    this.anchor = new UsageAnchor(this.model, this.limits, this.calibration, USAGE_IGNORED, this.logger);
    this.sessionId = setup.session?.id ?? randomUuid();
    const events = {
      metadata: () => this.metadata,
      restoreFromLog: (state: ContextState<M>) => this.restoreState(state, true),
      sessionLost: (error: SessionLostError) => this.emit("sessionLost", { sessionId: this.sessionId, error }),
    };
    this.session = SessionLink.forOption<M>(setup.session, events, this.logger);
    this.ready = this.session?.ready ?? Promise.resolve();
    const { counter, strategy, anchor, session, logger } = this;
    this.editor = new HistoryEditor<M>(
      counter,
      counter.countMessages([]),
      strategy,
      anchor,
      session,
      setup.orphanToolResults,
      logger,
      setup.pinFirstUserMessage,
      setup.createMessage,
    );
    const costFrom = Math.floor(this.limits.effectiveLimit * this.trimAt);
    Object.assign(this.editor.cache, costForManager(this.model, setup.cost, setup.timing, costFrom));
    this.view = this.editor.view();
    this.background = new BackgroundCompaction(this.compaction, this.view, {
      apply: (edit, level) => this.apply(edit, level),
      done: (report) => this.emit("compacted", report),
      arrivals: () => this.editor.arrivals,
      lookAgain: () => this.afterChange(),
    });
    this.editor.onRecount = () => this.afterChange();
    const [apply, quiet] = [this.apply.bind(this), (on: boolean) => (this.clearing = on)];
    this.agent = new ManagerAgent<M>(given.notices, this, { editor: this.editor, compaction: this.compaction, apply, quiet });
  }

  private startCompaction(threshold: number): Promise<CompactionReport<M>> {
    const room = this.mode === TruncationMode.SMART ? "target" : "none"; // compaction/room-share.ts
    return this.background.start({ threshold, targetShare: this.trimTo, effectiveLimit: this.limits.effectiveLimit, room });
  }

  /** @deprecated The summarizing model: read `summarizer` (`llm` was its 0.x name). */
  get llm(): SummaryModel | undefined {
    return this.summarizer;
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
      // A large message's count, still running off the main thread, may start a compaction.
      await this.editor.counted;
      while (this.background.running !== undefined) await this.background.running.catch(() => undefined);
      await this.session?.flush();
    } while (this.background.running !== undefined);
  }

  /** The metadata and the turns, summaries and the omission marker marked (a chat's /export). */
  export(): ContextExport {
    const state = this.editor.state();
    return buildExport(
      {
        ...state,
        problems: this.compaction.problems.recordOf(state.messages),
        sessionId: this.sessionId,
        // A session's times are its log's (the store's clock), so every worker exports the same.
        createdAt: this.session?.createdAt ?? this.createdAt,
        updatedAt: Math.max(this.editor.updatedAt, this.session?.updatedAt ?? 0),
        metadata: this.metadata,
      },
      { model: this.model, mode: this.mode, tokenUsage: this.tokenUsage },
    );
  }

  /**
   * A chat's /import: validates `json` (an export, or its text) first, then replaces the
   * conversation and the system prompt with the export's and merges its metadata into this
   * manager's. A bad file throws ERR_CTXWIN_INVALID_EXPORT naming the first bad path and changes nothing.
   */
  import(json: unknown): void {
    const { sessionId: _id, createdAt: _created, updatedAt: _updated, model: _model, mode: _mode, ...state } = stateOfExport<M>(json);
    this.restoreState({ ...state, metadata: { ...this.metadata, ...state.metadata } }, false);
  }

  /** A manager restored from an export (model and mode from the file unless `options` names them). */
  static fromExport<M extends MessageLike = MessageLike>(
    json: unknown,
    options: Partial<MessageContextManagerOptions<M>> = {},
  ): MessageContextManager<M> {
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

  /** Replaces the whole view (import, a session's log); everything is checked and counted first. */
  private restoreState(state: ContextState<M>, fromLog: boolean): void {
    const problems = state.problems === undefined ? undefined : checkProblemRecord(state.problems, "the export's open_problems");
    const read = this.editor.read(state);
    // Nothing above changed the manager; from here on nothing throws.
    this.editor.load(read, fromLog ? undefined : state);
    if (!fromLog) this.compaction.problems.load(problems, read.messages);
    if (state.metadata !== undefined) this.metadata = state.metadata;
    if (state.sessionId !== undefined && this.session === undefined) this.sessionId = state.sessionId;
    if (state.createdAt !== undefined) this.createdAt = state.createdAt;
    this.editor.updatedAt = state.updatedAt ?? (fromLog ? this.editor.updatedAt : Date.now());
    this.warnings.rearm(this.usagePercentage);
    this.afterChange();
  }

  /**
   * Progressive compaction. When usage is above `threshold` of the effective limit, the levels
   * run, cheapest first, until usage is at `trimTo` (at most the threshold): (0) clear old
   * reasoning, (1) compact large tool results, (2) replace old tool results by "[Old tool result
   * content cleared]" (the calls stay), at least `clearAtLeast` tokens at once, (3) summarize old
   * turns with the summarizer, (4) truncate with the mode's strategy. Level 3 also runs alone, earlier, when
   * the messages to summarize would outgrow the summarizer's input budget. Never blocks
   * addMessage; a call while one runs gets the same promise; messages added meanwhile are kept.
   */
  compactIfNeeded(options: { threshold?: number } = {}): Promise<CompactionReport<M>> {
    const threshold = options.threshold ?? 0.9;
    if (typeof threshold !== "number" || !(threshold > 0 && threshold <= 1)) {
      return Promise.reject(rangeError(`options.threshold must be a number in (0, 1], got ${describe(threshold)}`));
    }
    return this.startCompaction(threshold);
  }

  /** Applies an edit a compaction planned, tells it (`compactionEdit`: what a Recall keeps the originals of, before the policy may trim the copies), then runs the policy once (a trim re-arms the warnings instead, as truncate() does; its own `trimmed` event names what it took and cut). */
  private apply(edit: HistoryEdit<M>, level: CompactionLevelName): AppliedEdit<M> {
    if (edit.kind === "trim") {
      const event = this.trim(
        { indices: edit.kept.slice(), markerIndex: edit.markerIndex, markerTokens: edit.markerTokens },
        edit.cut ?? [],
      );
      return { changed: event.removed.length + event.replaced.length, removed: event.removed };
    }
    const replaced =
      edit.kind === "replace" ? edit.replacements.map(([i, after]) => ({ before: this.editor.history.messages[i] as M, after })) : [];
    const applied: AppliedEdit<M> =
      edit.kind === "replace"
        ? { changed: this.editor.replace(edit.replacements), removed: [] }
        : this.editor.summarize(edit.removed, edit.summary);
    if (applied.changed > 0) {
      this.emit("compactionEdit", { level, replaced, removed: applied.removed.slice() });
      this.afterChange();
    }
    return applied;
  }

  /** The plan of a compaction (`{ target }` tokens, or compactIfNeeded's `{ threshold }`), nothing changed: context/compaction-preview.ts. */
  preview(options: { target?: number; threshold?: number } = {}): Promise<CompactionPreview> {
    return previewCompaction(
      { ...this, editor: this.editor, compaction: this.compaction, policy: this.autoTruncate ? "window" : "none" },
      options,
    );
  }

  /** What the agent's context_status reads: window, usage, components, compactions, cost (context/agent-tools/). */
  status(): ContextStatus {
    return this.agent.status();
  }

  /** compact_context: queues a compaction for the next getContextForRequest, answers its preview. */
  requestCompaction(request: CompactionRequest): Promise<CompactionRequestAnswer> {
    return this.agent.requestCompaction(request);
  }

  setSystemPrompt(prompt: string): number {
    requireString(prompt, "prompt");
    const tokens = this.editor.setSystemPrompt(prompt);
    this.afterChange();
    return tokens;
  }

  /** Adds a message, counting only it; trims first when the total crosses `trimAt` (autoTruncate). */
  addMessage(message: M): void {
    if (this.editor.appendMessage(message)) this.afterChange();
  }

  /** Whether `message` fits without trimming. */
  canAdd(message: M): boolean {
    this.editor.checkIncoming(message);
    new MetadataReader({ orphanToolResults: "drop" }).read(message, this.editor.history.length);
    // A message past the synchronous bound is judged by its upper bound.
    const [tokens] = countMessagesNow(this.counter, [message], true, true).tokens;
    const added = this.anchor.scale((tokens ?? 0) + (this.tokenUsage === 0 ? this.editor.requestOverhead : 0));
    return this.tokenUsage + added <= this.limits.effectiveLimit;
  }

  /** Starts from an existing history (a session's), counted exactly in one batch. */
  load(messages: readonly M[]): void {
    if (!Array.isArray(messages)) throw typeError(`messages must be an array, got ${describe(messages)}`);
    const read = this.editor.readMessages(messages);
    this.editor.load(read, { messages: read.messages.slice(), summaries: [], marker: undefined });
    this.editor.touch();
    this.afterChange();
  }

  getMessages(): M[] {
    return this.editor.messages();
  }

  /**
   * The request: the system prompt first, then the conversation (with the omission marker, if
   * any). With `{ separateSystem: true }`, the system prompt apart (`system`, undefined when none
   * is set) from the conversation (`messages`), for SDKs that take it apart: the AI SDK's
   * `generateText({ system, messages })` warns about system messages inside `messages`.
   */
  getContextForRequest(): RequestMessages<M>;
  getContextForRequest(options: { separateSystem: true }): SeparatedRequest<M>;
  getContextForRequest(options?: RequestOptions): RequestMessages<M> | SeparatedRequest<M>;
  getContextForRequest(options?: RequestOptions): RequestMessages<M> | SeparatedRequest<M> {
    if (options !== undefined && (options === null || typeof options !== "object"))
      throw typeError(`options must be an object, got ${describe(options)}`);
    if (options?.separateSystem !== undefined && typeof options.separateSystem !== "boolean")
      throw typeError(`options.separateSystem must be a boolean, got ${describe(options.separateSystem)}`);
    this.agent.beforeRequest();
    // Past the window after the manager trimmed all it could: what is left is pinned. Sending it
    // would fail at the provider (or be cut there, silently): a coded error with the figures.
    if (this.autoTruncate && this.onOverflow === "error" && this.tokenUsage > this.limits.effectiveLimit)
      throw contextOverflowError(this.view, this.tokenUsage, this.limits.effectiveLimit);
    const request = this.agent.decorate(this.editor.request(this.tokenUsage));
    this.anchor.requestMade(this.editor.countedTokens);
    if (!options?.separateSystem) return request;
    const system = this.editor.systemPrompt;
    return { system, messages: (system === undefined ? request : request.slice(1)) as Array<M | OmissionMarker> };
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
    if (!this.anchor.observe(usage)) return false;
    this.afterChange();
    return true;
  }

  /** The request's tokens: anchored on the last reported usage when there is one, scaled by the model's ratio. */
  get tokenUsage(): number {
    return this.editor.tokenUsage;
  }

  get availableTokens(): number {
    return this.anchor.available(this.editor.countedTokens);
  }

  get usagePercentage(): number {
    return this.anchor.percentage(this.editor.countedTokens);
  }

  /** At or above 80% of the effective limit. */
  get isNearLimit(): boolean {
    return this.usagePercentage >= 80;
  }

  getStats(): ContextStats {
    return managerStats(this, this.editor, this.compaction.breaker, this.anchor.anchored);
  }

  /** Trims now to `targetTokens` (default: trimTo); the newest exchange stays while the request fits the window (or `targetTokens`): compaction/newest-exchange.ts. */
  truncate(targetTokens?: number): TrimEvent<M> | undefined {
    const limit = this.limits.effectiveLimit;
    const target = targetTokens === undefined ? Math.floor(limit * this.trimTo) : requireCount(targetTokens, "targetTokens");
    const trim = planTrim(this.view, this.strategy, target, targetTokens === undefined ? limit : target);
    return trim === undefined ? undefined : this.trim(trim, trim.cut);
  }

  /** Cuts what `cut` names, keeps what `kept` names, and tells the caller (the 'trimmed' event, onTrim). */
  private trim(kept: KeptPlan, cut: ReadonlyArray<readonly [number, M]> = []): TrimEvent<M> {
    const before = this.tokenUsage;
    const replaced = cut.map(([i, after]) => ({ before: this.editor.history.messages[i] as M, after }));
    if (cut.length > 0) this.editor.replace(cut);
    const all = kept.indices.length === this.editor.history.length && kept.markerIndex < 0 && kept.markerTokens === undefined;
    const { removed, message } = all
      ? { removed: [], message: `Context trimmed. Kept every turn; cut ${cut.length} of the newest to fit the window.` }
      : this.editor.trim(kept);
    const event: TrimEvent<M> = {
      removed,
      replaced,
      kept: this.editor.history.length,
      message,
      tokensBefore: before,
      tokensAfter: this.tokenUsage,
    };
    this.warnings.rearm(this.usagePercentage);
    this.onTrim?.(event);
    this.emit("trimmed", event);
    return event;
  }

  /** Drops the conversation; keeps the system prompt and session metadata (a chat's /clear). */
  clear(): void {
    this.editor.clear();
    this.warnings.rearm(this.usagePercentage);
  }

  /** Everything back to new: conversation, system prompt and metadata. */
  reset(): void {
    this.clear();
    this.editor.dropSystemPrompt();
    this.metadata = {};
  }

  /** The policy, after every change: warn at 80% and 90%, then compact or trim when usage calls for it. */
  private afterChange(): void {
    const usage = this.usagePercentage;
    for (const warning of this.warnings.crossed(usage)) this.emit("warning", warning);
    if (!this.autoTruncate || this.clearing) return;
    const limit = this.limits.effectiveLimit;
    if (this.mode === TruncationMode.SUMMARIZE && this.compaction.compactor !== undefined && this.background.running === undefined) {
      // Summaries need the model, which addMessage never waits for: compaction starts in the
      // background (compactIfNeeded() joins it) and trims only what a request could not carry.
      if (this.tokenUsage > this.editor.cache.trimLine(limit, this.trimAt, this.trimTo) || this.compaction.summarizerFull(this.view)) {
        this.startCompaction(this.trimAt).catch((error: unknown) =>
          (this.logger ?? consoleLogger).warn(`ctxwin: compaction failed: ${String(error)}`),
        );
      }
    }
    // A compaction running brings usage down to its target itself, cheapest level first: until it
    // has, only a request past the window is trimmed.
    if (this.background.running !== undefined || this.mode === TruncationMode.SUMMARIZE) {
      if (this.tokenUsage > limit) this.truncate();
      return;
    }
    const room = this.mode === TruncationMode.SMART ? this.view : undefined;
    if (this.tokenUsage <= (this.editor.exchanges.midExchange ? limit : this.editor.cache.trimLine(limit, this.trimAt, this.trimTo, room)))
      return;
    if (this.mode === TruncationMode.SMART) this.clearThenTrim();
    else this.truncate();
  }

  /**
   * The default mode's trim, at once as a plain trim is: the levels without a model first, down to
   * trimTo (old results cleared to placeholders that keep their error lines and recall call), and
   * only then whole turns dropped with the strategy. Reported as a compaction ('compacted').
   */
  private clearThenTrim(): void {
    const limit = this.limits.effectiveLimit;
    this.clearing = true;
    const report = (() => {
      try {
        return this.compaction.runNow(
          this.view,
          { threshold: this.trimTo, targetShare: this.trimTo, effectiveLimit: limit, room: "all" },
          (edit, level) => this.apply(edit, level.name),
        );
      } finally {
        this.clearing = false;
      }
    })();
    this.emit("compacted", report);
    // Levels that freed nothing more (a history of pinned messages) leave it past the window: trim.
    if (this.tokenUsage > limit) this.truncate();
  }
}
