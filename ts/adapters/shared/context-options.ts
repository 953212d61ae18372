// The options every framework adapter takes (ContextOptions), checked and grouped, and what the
// adapters report of each model call (FitEvent, FitResult): the types PromptFitter works from,
// apart from its engine.
import type { CompactionReport } from "../../compaction/progressive-compaction.js";
import type { SummaryMessage } from "../../compaction/context-compactor.js";
import type { ContextLimits, LimitOverrides } from "../../budget/context-limits.js";
import {
  SlidingWindowStrategy,
  SmartTruncationStrategy,
  TokenBudgetStrategy,
  type TruncationStrategy,
} from "../../truncation/strategies.js";
import { UsageCalibration } from "../../budget/usage-calibration.js";
import type { SummaryModel } from "../../models/summary-model.js";
import { describe, rangeError, requireCount, requireString, typeError } from "../../runtime/errors.js";
import type { Logger } from "../../runtime/logger.js";
import type { TokenCounter } from "../../tokens/token-counter.js";
import type { MessageLike, ToolDefinition } from "../../messages/types.js";
import { checkRole, type InsertedRole } from "../../messages/roles.js";
import { TruncationMode, type CompactionOptions } from "../../context/options.js";
import { ADAPTER_SHAPE, groupOptions } from "../../context/grouped-options.js";
import type { UnknownModelPolicy } from "../../catalog/model-registry.js";
import type { NoticeEvent, NoticeOptions } from "../../context/agent-tools/notices.js";

/**
 * The compaction options an adapter passes to its manager: the manager's compaction group
 * (CompactionOptions), as far as an adapter uses it, under the same names and defaults. `strategy`
 * also takes a mode's name; its default is the mode's strategy as on the manager (strategyFor):
 * "token_budget" (the oldest tool units first), or "summarize" when a summarizer is given.
 * `trimTo` is the share of the available window a prompt that does not fit is brought down to
 * (default 0.6), so the next steps fit as they are.
 */
export interface AdapterCompactionOptions
  extends Pick<CompactionOptions, "trimTo" | "keepToolResults" | "maxToolResultTokens" | "summarizer" | "preserveLast" | "summaryRole"> {
  strategy?: TruncationStrategy | "token_budget" | "smart" | "sliding_window";
}

/** The options every adapter takes: flat what a first use needs, the levels in `compaction` (as on MessageContextManager). */
export interface GroupedContextOptions {
  /** The model id: its window and output limit (ContextLimits.forModel) and its counter (getCounter). */
  model: string;
  /** Overrides for the model's limits (`maxTokens`, `contextLength`, `maxOutputTokens`, `reservedTokens`), or the limits themselves. */
  limits?: LimitOverrides | ContextLimits;
  /**
   * A model id the catalog does not resolve (and `limits` gives no window): a RangeError with code
   * ERR_CTXWIN_UNKNOWN_MODEL naming the closest known ids (`"error"`, default), or the default
   * limits with a warning (`"warn"`).
   */
  unknownModel?: UnknownModelPolicy;
  /** The counter (default getCounter(model)). */
  counter?: TokenCounter;
  /** Shared reported-to-counted ratios (default: one per adapter instance). */
  calibration?: UsageCalibration;
  logger?: Logger;
  /** Told about every call whose prompt had to be brought within the window. */
  onCompact?: (event: FitEvent) => void;
  /** How a prompt that does not fit is brought within the window: the levels' knobs and the summarizer. */
  compaction?: AdapterCompactionOptions;
  /** What the model is told about its context, once each: after a compaction, before one (docs/agent-tools.md). Off by default. */
  notices?: NoticeOptions;
  /** Told about every notice the model is given (the manager's `notice` event). */
  onNotice?: (event: NoticeEvent) => void;
}

/** The adapters' flat names of 0.x, accepted for one release (context/grouped-options.ts). */
export interface DeprecatedFlatContextOptions {
  /** @deprecated Use `compaction.strategy`. */
  strategy?: AdapterCompactionOptions["strategy"];
  /** @deprecated Use `compaction.trimTo`. */
  trimTo?: number;
  /** @deprecated Use `compaction.keepToolResults`. */
  keepToolResults?: number;
  /** @deprecated Use `compaction.maxToolResultTokens`. */
  maxToolResultTokens?: number;
  /** @deprecated Use `compaction.summarizer`. */
  summarizer?: SummaryModel;
  /** @deprecated Use `compaction.preserveLast`. */
  preserveLast?: number;
  /** @deprecated Use `compaction.summaryRole`. */
  summaryRole?: InsertedRole;
}

export interface ContextOptions extends GroupedContextOptions, DeprecatedFlatContextOptions {}

/** ContextOptions after checkContextOptions: grouped, the group present. */
export type CheckedContextOptions = Omit<GroupedContextOptions, "compaction"> & { compaction: AdapterCompactionOptions };

/** What one call's fitting did. */
export interface FitEvent {
  /** The prompt's tokens before and after (local counts, tools included). */
  tokensBefore: number;
  tokensAfter: number;
  /** What the prompt may use (window less reserved output and reserve, in local counts). */
  budget: number;
  /**
   * The compaction levels' report (results compacted at earlier steps are not in it); undefined
   * when the earlier prompt plus the new messages fit without running the levels.
   */
  report: CompactionReport<MessageLike> | undefined;
  /**
   * The tool results this call cut on arrival (level 1, applied to what the caller added before
   * the levels run): each message as the caller added it, and its copy, whose cut names the recall
   * call that reads the whole result back. A Recall's `onCompact` keeps these originals.
   */
  cut: Array<{ before: MessageLike; after: MessageLike }>;
}

export interface FitRequest {
  /** Tool definitions sent with the call. */
  tools?: readonly ToolDefinition[];
  /** The output the call reserves (default: the model's output limit). */
  maxOutputTokens?: number;
}

export interface FitResult<M> {
  /** The prompt to send: the caller's own messages where unchanged, copies where compacted, a summary where summarized. */
  messages: Array<M | SummaryMessage>;
  /** Whether anything changed. */
  changed: boolean;
  /** The prompt's exact local count, tools included. */
  tokens: number;
  budget: number;
}

/** `options` checked and in the grouped form (the flat names of 0.x moved, with a deprecation warning). */
export function checkContextOptions(options: unknown, name = "options"): CheckedContextOptions {
  if (options === null || typeof options !== "object") throw typeError(`${name} must be an object, got ${describe(options)}`);
  const o = groupOptions(options, ADAPTER_SHAPE, name) as CheckedContextOptions;
  const c = o.compaction;
  requireString(o.model, `${name}.model`);
  if (c.trimTo !== undefined && (typeof c.trimTo !== "number" || !(c.trimTo > 0 && c.trimTo <= 1)))
    throw rangeError(`${name}.compaction.trimTo must be a number in (0, 1], got ${describe(c.trimTo)}`);
  if (c.keepToolResults !== undefined) requireCount(c.keepToolResults, `${name}.compaction.keepToolResults`);
  if (c.maxToolResultTokens !== undefined) requireCount(c.maxToolResultTokens, `${name}.compaction.maxToolResultTokens`, 16);
  if (c.preserveLast !== undefined) requireCount(c.preserveLast, `${name}.compaction.preserveLast`);
  if (c.summaryRole !== undefined) checkRole(c.summaryRole, `${name}.compaction.summaryRole`);
  if (c.summarizer === null) throw typeError(`${name}.compaction.summarizer must be a model, got null`);
  if (o.calibration !== undefined && !(o.calibration instanceof UsageCalibration))
    throw typeError(`${name}.calibration must be a UsageCalibration, got ${describe(o.calibration)}`);
  if (o.onCompact !== undefined && typeof o.onCompact !== "function")
    throw typeError(`${name}.onCompact must be a function, got ${describe(o.onCompact)}`);
  if (o.onNotice !== undefined && typeof o.onNotice !== "function")
    throw typeError(`${name}.onNotice must be a function, got ${describe(o.onNotice)}`);
  return o;
}

/** The strategy the last level trims with: the mode's (as on the manager) unless one is named. */
export function strategyOf(value: AdapterCompactionOptions["strategy"], name: string): TruncationStrategy {
  // The oldest tool units first, summarizer or not: a framework's prompt has no place for the
  // omission marker a SMART trim leaves (a second system message mid-history, which AI SDK 7's
  // prepareStep passes on as it is), and the summary already says what went.
  if (value === undefined) return new TokenBudgetStrategy();
  if (value === TruncationMode.TOKEN_BUDGET) return new TokenBudgetStrategy();
  if (value === TruncationMode.SMART) return new SmartTruncationStrategy();
  if (value === TruncationMode.SLIDING_WINDOW) return new SlidingWindowStrategy();
  if (typeof value === "object" && value !== null && typeof (value as TruncationStrategy).plan === "function") return value;
  throw typeError(`${name} must be a TruncationStrategy or one of "token_budget", "smart", "sliding_window", got ${describe(value)}`);
}
