// What a MessageContextManager is made with, what it reports, and the modes it trims in.
import type { UnknownModelPolicy } from "../catalog/model-registry.js";
import type { BreakerEvent, BreakerState } from "../compaction/circuit-breaker.js";
import type { CompactionLevelName } from "../compaction/compaction-level.js";
import type { CompactionReport } from "../compaction/progressive-compaction.js";
import type { ContextLimits, LimitOverrides } from "../budget/context-limits.js";
import {
  CompositeStrategy,
  SlidingWindowStrategy,
  SmartTruncationStrategy,
  TokenBudgetStrategy,
  type TruncationStrategy,
} from "../truncation/strategies.js";
import type { ModelCalibration, UsageCalibration } from "../budget/usage-calibration.js";
import type { OmissionMarker } from "../messages/omission-marker.js";
import type { InsertedRole } from "../messages/roles.js";
import type { MessageLike } from "../messages/types.js";
import type { SummaryModel } from "../models/summary-model.js";
import type { Logger } from "../runtime/logger.js";
import type { SessionOptions } from "../session/session-link.js";
import type { SessionLostError } from "../session/store.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import type { CostOptions, CostStats } from "../cost/cost-ledger.js";
import type { CacheStats } from "./prompt-cache.js";
import type { ContextWarning } from "./usage-warnings.js";
import type { NoticeEvent, NoticeOptions } from "./agent-tools/notices.js";

export const TruncationMode = {
  SLIDING_WINDOW: "sliding_window",
  TOKEN_BUDGET: "token_budget",
  SMART: "smart",
  SUMMARIZE: "summarize",
} as const;
export type TruncationMode = (typeof TruncationMode)[keyof typeof TruncationMode];

export interface TrimEvent<M> {
  removed: M[];
  /** The newest exchange's results the trim cut so that the request fits with them (before, after): empty unless it had to. */
  replaced: Array<{ before: M; after: M }>;
  kept: number;
  /** "Context trimmed. Kept first 2 and last 10 turns." with the real numbers. */
  message: string;
  tokensBefore: number;
  tokensAfter: number;
}

/**
 * How the history is kept inside the window: when trims and compactions start and what they cut
 * down to, the levels' knobs (0: reasoning, 1: large tool results, 2: old tool results, 3: the
 * summary, 4: the strategy's trim) and the summarizing model. One concern: what the manager does
 * when the history grows. The adapters take the subset they use (AdapterCompactionOptions).
 */
export interface CompactionOptions<M extends MessageLike = MessageLike> {
  /** Trim automatically when usage crosses `trimAt` (default true). */
  autoTruncate?: boolean;
  /** The share of the effective limit at which trimming starts (default 0.8, when the 80% warning is given). */
  trimAt?: number;
  /**
   * The share of the effective limit a trim (or a compaction) cuts down to (default 0.6, at most
   * trimAt). The gap is what keeps prompt caches hitting: between trims requests only grow.
   */
  trimTo?: number;
  /**
   * When trims and compactions start: at trimAt (`"threshold"`, default), or where a trim pays
   * through the provider's prompt cache (`"cache-aware"`: between trimTo and the window, from the
   * cache's read and write prices and the tokens each request adds; bills the session, `cost`).
   */
  timing?: "threshold" | "cache-aware";
  /** Replaces the mode's strategy (the last level's trim; default: the mode's, strategyFor(mode)). */
  strategy?: TruncationStrategy;
  /** Told about every trim, e.g. to keep a session store consistent (also the 'trimmed' event). */
  onTrim?: (event: TrimEvent<M>) => void;
  /**
   * The first user message (the task, in the user's words) is pinned, in every mode: no trim,
   * compaction level or summary removes or rewrites it (default true; false unpins it).
   */
  pinFirstUserMessage?: boolean;
  /** Level 0: the reasoning of the last this many assistant turns with reasoning stays (default 1). */
  keepReasoningTurns?: number;
  /** Level 1: tool results above this many tokens are compacted (default 1000). */
  maxToolResultTokens?: number;
  /** Level 2: tool results of the last this many tool units stay whole (default 3). */
  keepToolResults?: number;
  /**
   * Level 2: clear at least this many tokens of old tool results at once, or none (unless less
   * reaches the target). Default (trimAt - trimTo) x the effective limit: the room a trim makes,
   * so that clearings break the prompt cache no more often than trims do.
   */
  clearAtLeast?: number;
  /**
   * Level 3: the summarizing model (any SummaryModel: an AI SDK model, a function, an `invoke()`
   * model, extractiveSummarizer()). Without one, SUMMARIZE mode summarizes offline with
   * `extractiveSummarizer()`, so that an import (`fromExport`) never needs the model.
   */
  summarizer?: SummaryModel;
  /**
   * Level 3: the summary message's role (default "user", on the manager and every adapter: the
   * summary follows the task, and several providers take system messages only before the conversation).
   */
  summaryRole?: InsertedRole;
  /** Level 3: the summary's bound in tokens (default 500). */
  maxSummaryTokens?: number;
  /**
   * Level 3: the summarizer's input budget (default: the effective limit less maxSummaryTokens,
   * for a summarizer with this model's window). Compaction starts before the messages to
   * summarize outgrow it, so that a summary never has to leave some out.
   */
  summaryInputTokens?: number;
  /** Level 3: the user's own messages kept verbatim beside the summary, in tokens (default 2,000). */
  keepUserTokens?: number;
  /** Level 3: recent messages kept out of the summary while its target can be reached without them (default 10); else summarized rather than dropped by level 4. */
  preserveLast?: number;
  /** Failed summaries in a row that open the circuit breaker (default 3); while open, levels 0, 1, 2 and 4 run. */
  maxSummaryFailures?: number;
  /** How long the breaker stays open before one trial summary (default 300,000 ms). */
  breakerResetMs?: number;
}

/** Where the manager either throws a coded error or goes on with a warning: one concern, how strict it is. */
export interface WarningOptions {
  /**
   * A history still over the window after every trim and compaction (its system prompt, system and
   * pinned messages alone are larger): "error" (default) makes getContextForRequest() throw a
   * RangeError with code ERR_CTXWIN_CONTEXT_OVERFLOW and the figures (`tokens`, `limit`,
   * `pinnedTokens`); "send" sends it anyway (with the 90% warning only). Applies with autoTruncate.
   */
  onOverflow?: "error" | "send";
  /** A tool result whose call is not in the history: reject it (`"error"`, default) or leave it out of the history with a warning (`"drop"`). */
  orphanToolResults?: "error" | "drop";
}

/**
 * A MessageContextManager's options: the few a first use needs flat (model, mode, limits, counter),
 * the rest grouped by concern (compaction, warnings, cost, session). docs/options.md has the table
 * from the flat names of 0.x to these.
 */
export interface GroupedManagerOptions<M extends MessageLike = MessageLike> {
  model: string;
  mode?: TruncationMode;
  /** Limits, or overrides for the model's (maxTokens, contextLength, ...). */
  limits?: ContextLimits | LimitOverrides;
  /**
   * A model id the catalog does not resolve (and `limits` gives no window): a RangeError with code
   * ERR_CTXWIN_UNKNOWN_MODEL naming the closest known ids (`"error"`, default), or the default
   * limits with a warning (`"warn"`).
   */
  unknownModel?: UnknownModelPolicy;
  counter?: TokenCounter;
  logger?: Logger;
  /** Reported-to-counted ratios per model, shared with other managers when given (observeUsage). */
  calibration?: UsageCalibration;
  /** Trims, compaction levels and the summarizing model. */
  compaction?: CompactionOptions<M>;
  /** Where to throw and where to warn and go on. */
  warnings?: WarningOptions;
  /**
   * Bill each request (getContextForRequest) through the provider's prompt cache, in dollars:
   * getStats().cost. `true`: the catalog's prices and the provider's cache semantics for the
   * model; an object sets provider, TTL, prices, minimum prefix or clock. Default off.
   */
  cost?: boolean | CostOptions;
  /**
   * Keep the context in a session's append-only log (docs/sessions.md): the manager opens it (use
   * `await MessageContextManager.open(options)`, or `await manager.ready`), appends each message
   * and each trim or compaction as it happens, and `await manager.flush()` makes them durable.
   */
  session?: SessionOptions;
  /**
   * Builds the messages the manager writes itself (the omission marker, summaries, the system
   * prompt in a request) in the history's own shape. Default: LangChain messages of the caller's
   * `@langchain/core` for a history of LangChain messages (on Node), the plain `{ role, content }`
   * otherwise. What the manager keeps, exports and logs stays the plain form.
   */
  createMessage?: (message: { role: InsertedRole; content: string }) => MessageLike;
  /** What the model is told about its context, once each (docs/agent-tools.md): after a compaction, and before one at a share of the window. Off by default. */
  notices?: NoticeOptions;
}

/**
 * The flat names of 0.x, accepted for one release: each is moved into its group (context/
 * grouped-options.ts) with a deprecation warning once per process; giving a flat name and its
 * grouped place both is a TypeError naming both.
 */
export interface DeprecatedFlatOptions<M extends MessageLike = MessageLike> {
  /** @deprecated Use `compaction.summarizer`. */
  llm?: SummaryModel;
  /** @deprecated Use `compaction.autoTruncate`. */
  autoTruncate?: boolean;
  /** @deprecated Use `compaction.trimAt`. */
  trimAt?: number;
  /** @deprecated Use `compaction.trimTo`. */
  trimTo?: number;
  /** @deprecated Use `compaction.timing`. */
  compactionTiming?: "threshold" | "cache-aware";
  /** @deprecated Use `compaction.strategy`. */
  strategy?: TruncationStrategy;
  /** @deprecated Use `compaction.onTrim`. */
  onTrim?: (event: TrimEvent<M>) => void;
  /** @deprecated Use `compaction.pinFirstUserMessage`. */
  pinFirstUserMessage?: boolean;
  /** @deprecated Use `compaction.keepReasoningTurns`. */
  keepReasoningTurns?: number;
  /** @deprecated Use `compaction.maxToolResultTokens`. */
  maxToolResultTokens?: number;
  /** @deprecated Use `compaction.keepToolResults`. */
  keepToolResults?: number;
  /** @deprecated Use `compaction.clearAtLeast`. */
  clearAtLeast?: number;
  /** @deprecated Use `compaction.summaryRole`. */
  summaryRole?: InsertedRole;
  /** @deprecated Use `compaction.maxSummaryTokens`. */
  maxSummaryTokens?: number;
  /** @deprecated Use `compaction.summaryInputTokens`. */
  summaryInputTokens?: number;
  /** @deprecated Use `compaction.keepUserTokens`. */
  keepUserTokens?: number;
  /** @deprecated Use `compaction.preserveLast`. */
  preserveLast?: number;
  /** @deprecated Use `compaction.maxSummaryFailures`. */
  maxSummaryFailures?: number;
  /** @deprecated Use `compaction.breakerResetMs`. */
  breakerResetMs?: number;
  /** @deprecated Use `warnings.onOverflow`. */
  onOverflow?: "error" | "send";
  /** @deprecated Use `warnings.orphanToolResults`. */
  orphanToolResults?: "error" | "drop";
}

/** What the constructor takes: the grouped options, and for one release the flat names beside them. */
export interface MessageContextManagerOptions<M extends MessageLike = MessageLike>
  extends GroupedManagerOptions<M>,
    DeprecatedFlatOptions<M> {}

/** The window a manager plans with, and what it reserves. */
export interface LimitStats {
  /** The window used (the model's, or a cap). */
  window: number;
  /** Tokens reserved for the response. */
  responseReserve: number;
  /** The model's output limit as its provider publishes it (0: none published). */
  modelMaxOutput: number;
  /** Tokens kept free besides the response. */
  reservedTokens: number;
  /** What the prompt may use: window - responseReserve - reservedTokens. */
  effectiveLimit: number;
  /** Present when the response reserve is less than the model's output limit, and says why. */
  responseReserveNote?: string;
}

/** What getStats() says of `limits`. */
export function limitStats(limits: ContextLimits): LimitStats {
  const note = limits.responseReserveNote;
  return {
    window: limits.maxTokens,
    responseReserve: limits.maxOutputTokens,
    modelMaxOutput: limits.modelMaxOutput,
    reservedTokens: limits.reservedTokens,
    effectiveLimit: limits.effectiveLimit,
    ...(note === undefined ? {} : { responseReserveNote: note }),
  };
}

export interface ContextStats {
  model: string;
  mode: TruncationMode;
  /** The window and what is reserved of it. */
  limits: LimitStats;
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
  /** Each request and the session in tokens the provider's cache read, wrote and left uncached, and dollars (with the `cost` option). */
  cost?: CostStats;
  /** The summarizer's circuit breaker (closed when there is no summarizer). */
  breaker: BreakerState;
}

/** The events a MessageContextManager emits. */
/**
 * The session's log vanished or changed under the manager (expired, deleted, replaced, lost by a
 * store restarted without persistence): the manager keeps its view and its queued changes, and
 * flush() rejects with `error` (ERR_CTXWIN_SESSION_LOST) until the context goes on elsewhere.
 */
export interface SessionLostEvent {
  sessionId: string;
  error: SessionLostError;
}

/**
 * One edit of a running compaction, told as the manager applies it (the `compacted` report comes
 * when the whole run ends, which a summary's model call may delay): the messages a level rewrote,
 * each with its copy, and those a summary removed. A trim inside a compaction is `trimmed`.
 */
export interface CompactionEditEvent<M> {
  level: CompactionLevelName;
  replaced: Array<{ before: M; after: M }>;
  removed: M[];
}

export interface ContextEvents<M> {
  warning: [ContextWarning];
  trimmed: [TrimEvent<M>];
  compactionEdit: [CompactionEditEvent<M>];
  compacted: [CompactionReport<M>];
  /** The summarizer's circuit breaker opened, let a trial call through, or closed. */
  breaker: [BreakerEvent];
  sessionLost: [SessionLostEvent];
  /** A notice the model was given in this request (`notices`): after a compaction, or before one. */
  notice: [NoticeEvent];
}

/** The strategy each mode trims with, when the options name none. */
export function strategyFor(mode: TruncationMode): TruncationStrategy {
  switch (mode) {
    case TruncationMode.SLIDING_WINDOW:
      return new SlidingWindowStrategy();
    case TruncationMode.TOKEN_BUDGET:
      return new TokenBudgetStrategy();
    case TruncationMode.SMART:
      return new SmartTruncationStrategy({ dropMiddle: "as-needed" });
    case TruncationMode.SUMMARIZE:
      // Summaries of old turns come first, from compaction's level 3; what a request still cannot
      // carry is trimmed with the smart strategy, and the oldest go first when that is not enough.
      return new CompositeStrategy([new SmartTruncationStrategy(), new TokenBudgetStrategy()]);
  }
}

/** getContextForRequest({ separateSystem: true }): the system prompt apart from the conversation. */
/** The request getContextForRequest() returns: the system prompt first, then the conversation. */
export type RequestMessages<M> = Array<M | OmissionMarker | { role: "system"; content: string }>;

/** What getContextForRequest() takes. */
export interface RequestOptions {
  /** The system prompt apart from the conversation (a SeparatedRequest). */
  separateSystem?: boolean;
}

export interface SeparatedRequest<M> {
  /** The system prompt, or undefined when none is set. */
  system: string | undefined;
  /** The conversation, with the omission marker, if any. */
  messages: Array<M | OmissionMarker>;
}
