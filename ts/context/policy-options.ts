// The manager's policy options, checked together before anything is built: a bad value throws a
// coded RangeError naming it, and the manager is never half made.
import type { ProgressiveCompactionOptions } from "../compaction/progressive-compaction.js";
import { checkRole, type InsertedRole } from "../messages/roles.js";
import type { MessageLike } from "../messages/types.js";
import { extractiveSummarizer } from "../models/extractive-summarizer.js";
import { describe, rangeError, requireCount } from "../runtime/errors.js";
import type { Logger } from "../runtime/logger.js";
import type { TruncationStrategy } from "../truncation/strategies.js";
import { TruncationMode, type CompactionOptions, type WarningOptions } from "./options.js";

/**
 * The summary message's role when the options name none, on the manager and on every adapter:
 * "user", because the summary follows the task and several providers (Anthropic, Gemini) take
 * system messages only before the conversation. (0.x wrote "system" on the manager.)
 */
export const DEFAULT_SUMMARY_ROLE: InsertedRole = "user";

export interface PolicyOptions {
  /** What a request over the window after every trim gets: a coded error, or sent as it is. */
  onOverflow: "error" | "send";
  /** The share of the window at which a trim starts. */
  trimAt: number;
  /** The share a trim cuts down to (hysteresis: below trimAt, so requests grow between trims). */
  trimTo: number;
  /** A tool result without its call: an error, or dropped. */
  orphanToolResults: "error" | "drop";
}

export function checkPolicyOptions(compaction: Pick<CompactionOptions, "trimAt" | "trimTo">, warnings: WarningOptions): PolicyOptions {
  const onOverflow = warnings.onOverflow ?? "error";
  if (onOverflow !== "error" && onOverflow !== "send")
    throw rangeError(`options.warnings.onOverflow must be "error" or "send", got ${describe(onOverflow)}`);
  const trimAt = compaction.trimAt ?? 0.8;
  if (typeof trimAt !== "number" || !(trimAt > 0 && trimAt <= 1))
    throw rangeError(`options.compaction.trimAt must be a number in (0, 1], got ${describe(trimAt)}`);
  const trimTo = compaction.trimTo ?? Math.min(0.6, trimAt);
  if (typeof trimTo !== "number" || !(trimTo > 0 && trimTo <= trimAt)) {
    throw rangeError(`options.compaction.trimTo must be a number in (0, trimAt = ${trimAt}], got ${describe(trimTo)}`);
  }
  const orphanToolResults = warnings.orphanToolResults ?? "error";
  if (orphanToolResults !== "error" && orphanToolResults !== "drop") {
    throw rangeError(`options.warnings.orphanToolResults must be "error" or "drop", got ${describe(warnings.orphanToolResults)}`);
  }
  return { onOverflow, trimAt, trimTo, orphanToolResults };
}

/** The compaction group's counts and their least values (those of the levels that take them). */
const COUNTS: ReadonlyArray<
  readonly [
    Exclude<
      keyof CompactionOptions,
      "autoTruncate" | "trimAt" | "trimTo" | "timing" | "strategy" | "onTrim" | "pinFirstUserMessage" | "summarizer" | "summaryRole"
    >,
    number,
  ]
> = [
  ["keepReasoningTurns", 0],
  ["maxToolResultTokens", 16],
  ["keepToolResults", 0],
  ["clearAtLeast", 0],
  ["maxSummaryTokens", 1],
  ["summaryInputTokens", 64],
  ["keepUserTokens", 0],
  ["preserveLast", 0],
  ["maxSummaryFailures", 1],
  ["breakerResetMs", 0],
];

/** What the levels are built with, from the compaction group and what the manager resolved (its window, trimAt, trimTo, strategy). */
export function levelOptions<M extends MessageLike>(
  c: CompactionOptions<M>,
  at: {
    mode: TruncationMode;
    effectiveLimit: number;
    trimAt: number;
    trimTo: number;
    strategy: TruncationStrategy;
    logger: Logger | undefined;
  },
): Omit<ProgressiveCompactionOptions, "onBreaker"> {
  // Checked here so that a bad value's error names where the caller put it (options.compaction.*).
  for (const [key, min] of COUNTS) if (c[key] !== undefined) requireCount(c[key], `options.compaction.${key}`, min);
  if (c.summaryRole !== undefined) checkRole(c.summaryRole, "options.compaction.summaryRole");
  const maxSummaryTokens = c.maxSummaryTokens ?? 500;
  return {
    maxToolResultTokens: c.maxToolResultTokens,
    keepToolResults: c.keepToolResults,
    // The room a trim makes: clearings then break the prompt cache no more often than trims.
    clearAtLeast: c.clearAtLeast ?? Math.floor((at.trimAt - at.trimTo) * at.effectiveLimit),
    keepReasoningTurns: c.keepReasoningTurns,
    preserveLast: c.preserveLast,
    // SUMMARIZE mode without a model (an import, a CLI) summarizes offline with the core's digest.
    llm: c.summarizer ?? (at.mode === TruncationMode.SUMMARIZE ? extractiveSummarizer() : undefined),
    summaryRole: c.summaryRole ?? DEFAULT_SUMMARY_ROLE,
    maxSummaryTokens,
    summaryInputTokens: c.summaryInputTokens ?? Math.max(64, at.effectiveLimit - maxSummaryTokens),
    keepUserTokens: c.keepUserTokens,
    maxSummaryFailures: c.maxSummaryFailures,
    breakerResetMs: c.breakerResetMs,
    strategy: at.strategy,
    logger: at.logger,
  };
}
