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
import { ContextLimits, type LimitOverrides } from "./context-limits.js";
import { describe, rangeError, requireCount, requireString, typeError } from "../runtime/errors.js";
import { visitMessage } from "../tokens/message-shape.js";
import { getCounter } from "../tokens/get-counter.js";
import { consoleLogger, type Logger } from "../runtime/logger.js";
import { FLAG_MARKED, MetadataReader, ROLE_CODES, messageTokens, type MessageFacts } from "./message-metadata.js";
import { native } from "../runtime/native.js";
import {
  CompositeStrategy,
  SlidingWindowStrategy,
  SmartTruncationStrategy,
  TokenBudgetStrategy,
  coreChain,
  markerRoleOf,
  omissionMarker,
  type InsertedRole,
  type OmissionMarker,
  type TruncationStrategy,
} from "./strategies.js";
import type { SummaryModel } from "../models/summary-model.js";
import type { MessageLike, TokenCounter } from "../tokens/token-counter.js";

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
}

export interface ContextStats {
  model: string;
  mode: TruncationMode;
  messageCount: number;
  byRole: { system: number; user: number; assistant: number; tool: number };
  tokenUsage: number;
  availableTokens: number;
  usagePercentage: number;
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
  /** Prompt-cache accounting: see getStats().cache. */
  private readonly cacheStats = { requests: 0, promptTokens: 0, sharedPrefixTokens: 0 };
  /** Conversation tokens (marker included) of the last request still the prefix of the history now. */
  private stablePrefix = 0;
  private systemStable = false;
  /**
   * Tool calls still waiting for their results, and any reasoning item waiting for the item it
   * precedes: an automatic trim waits for them (unless the window itself is exceeded), so that it
   * never drops a call whose results are still to come.
   */
  private readonly pendingCalls = new Set<string>();
  /** Pending calls a trim past the window removed: their results are left out when they come. */
  private readonly trimmedCalls = new Set<string>();
  private pendingReasoning = false;

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
    this.touched(Math.min(...edits.map(([i]) => i)));
    edits.forEach(([i, after], k) => {
      this.conversationTokens += (counts[k] ?? 0) - (this.tokens[i] ?? 0);
      this.messages[i] = after;
      this.tokens[i] = counts[k] ?? 0;
    });
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
    this.afterChange();
  }

  /** Keeps only the messages at `indices`, in that order, with their metadata. */
  private select(indices: readonly number[]): void {
    const pick = <T>(array: readonly T[]) => indices.map((i) => array[i] as T);
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
    if (prompt !== this.systemPrompt) this.systemStable = false;
    this.systemTokens = this.counter.countMessages([{ role: "system", content: prompt }]) - this.requestOverhead;
    this.systemPrompt = prompt;
    this.afterChange();
    return this.systemTokens;
  }

  /** Adds a message, counting only it; trims first when the total crosses `trimAt` (autoTruncate). */
  addMessage(message: M): void {
    const facts = this.reader.read(message, this.messages.length); // throws before any change
    if (facts.orphan) {
      // orphanToolResults: "drop": a result without its call never enters the history.
      (this.logger ?? consoleLogger).warn("ctxwin: dropped a tool result whose call is not in the history");
      return;
    }
    if (facts.resultIds !== undefined && facts.resultIds.length > 0 && facts.resultIds.every((id) => this.trimmedCalls.has(id))) {
      // Its call was trimmed away (the window could not hold the exchange): a result alone is invalid.
      for (const id of facts.resultIds) this.trimmedCalls.delete(id);
      (this.logger ?? consoleLogger).warn("ctxwin: dropped a tool result whose call a trim removed");
      return;
    }
    const [tokens] = messageTokens(this.counter, [message]);
    this.insert(this.messages.length, message, facts, tokens ?? 0);
    this.trackExchange(message, facts);
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
    return this.tokenUsage + (tokens ?? 0) + (this.tokenUsage === 0 ? this.requestOverhead : 0) <= this.limits.effectiveLimit;
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
    messages.forEach((m, i) => this.trackExchange(m, facts[i] as MessageFacts));
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
    return this.systemPrompt === undefined ? conversation : [{ role: "system", content: this.systemPrompt }, ...conversation];
  }

  get tokenUsage(): number {
    const content = this.systemTokens + this.conversationTokens + (this.marker?.tokens ?? 0);
    return content > 0 ? content + this.requestOverhead : 0;
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
    const shared = this.cacheStats.requests > 0 && this.systemStable ? this.systemTokens + this.stablePrefix : 0;
    this.cacheStats.requests++;
    this.cacheStats.promptTokens += total;
    this.cacheStats.sharedPrefixTokens += Math.min(shared, total);
    this.stablePrefix = this.conversationTokens + (this.marker?.tokens ?? 0);
    this.systemStable = true;
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
    const conversationTarget = Math.max(0, target - this.systemTokens - this.requestOverhead);
    const before = this.tokenUsage;
    const kept = this.planKept(conversationTarget);
    if (kept === undefined || kept.indices.length === this.messages.length) return undefined;
    const keep = new Uint8Array(this.messages.length);
    for (const i of kept.indices) keep[i] = 1;
    const removed = this.messages.filter((_, i) => keep[i] === 0);
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
    this.pendingReasoning = false;
    this.reader = new MetadataReader({ orphanToolResults: this.orphanToolResults });
    this.marker = undefined;
    this.rearmWarnings();
  }

  /** Everything back to new: conversation, system prompt and metadata. */
  reset(): void {
    this.clear();
    this.systemPrompt = undefined;
    this.systemTokens = 0;
    this.metadata = {};
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
