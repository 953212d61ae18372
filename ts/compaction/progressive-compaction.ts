// Progressive compaction (seed 003 FR-4.3): the levels a managed history goes through when it
// nears its window, cheapest first:
//   0. clear the reasoning of older assistant turns (as Anthropic's clear_thinking does),
//   1. compact tool results above `maxToolResultTokens` (ToolResultCompactor),
//   2. replace old tool results by a short notice, at least `clearAtLeast` tokens at once (the
//      calls stay, so the conversation stays valid),
//   3. summarize old turns with a model (ContextCompactor), when there is one,
//   4. truncate with the history's strategy.
// The levels work on a `CompactableHistory`: the view of its messages and the edits that
// MessageContextManager lends them, so that its bookkeeping stays its own.
//
// Compaction must never become the problem it solves. Once started it brings usage down to its
// target (hysteresis: fewer, larger edits keep providers' prompt caches hitting between them); a
// level that freed nothing is not run again on the same messages; and after `maxSummaryFailures`
// failed summaries in a row a circuit breaker stops calling the model (levels 0, 1, 2 and 4 still
// run) until `breakerResetMs` have passed, when one trial call may close it again.
import { describe, requireCount, typeError } from "../runtime/errors.js";
import type { Logger } from "../runtime/logger.js";
import { ROLE_CODES, type InsertedRole } from "../messages/roles.js";
import { FLAG_MARKED } from "../messages/metadata-reader.js";
import { mapToolResults, removeReasoning, hasReasoning } from "../messages/message-shape.js";
import { messageTokens } from "../tokens/message-tokens.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import type { SummaryModel } from "../models/summary-model.js";
import { ContextCompactor, type SummaryMessage } from "./context-compactor.js";
import { ToolResultCompactor } from "./tool-result-compactor.js";
import type { MessageLike } from "../messages/types.js";

/** The text that replaces an old tool result at compaction level 2. */
export const CLEARED_TOOL_RESULT = "[Old tool result content cleared]";

export type CompactionLevelName = "clear_old_reasoning" | "compact_tool_results" | "clear_old_tool_results" | "summarize" | "truncate";

export interface CompactionLevelReport {
  level: 0 | 1 | 2 | 3 | 4;
  name: CompactionLevelName;
  /** False when usage was already at the target, or the level was skipped (see `skipped`). */
  applied: boolean;
  messagesChanged: number;
  tokensBefore: number;
  tokensAfter: number;
  /** Why a level that was needed did not run: no llm, the circuit breaker, too little to clear, ... */
  skipped?: string;
  error?: string;
}

export interface CompactionReport<M> {
  threshold: number;
  /** The usage compaction brought the history down to, in tokens (trimTo of the window, at most the threshold). */
  targetTokens: number;
  tokensBefore: number;
  tokensAfter: number;
  levels: CompactionLevelReport[];
  /** Messages replaced by compacted copies (levels 0, 1 and 2): tell a session store. */
  replaced: Array<{ before: M; after: M }>;
  /** Messages a summary or a trim removed. */
  removed: M[];
  summary?: SummaryMessage;
  /** The circuit breaker after this run. */
  breaker: BreakerState;
}

/** What the levels need of a history: a read view of its messages and the edits they make. */
export interface CompactableHistory<M extends MessageLike> {
  readonly counter: TokenCounter;
  /** The whole request's tokens, as the model would receive it. */
  tokenUsage(): number;
  /** Tokens the request costs beyond the conversation (system prompt, request overhead). */
  fixedTokens(): number;
  messages(): readonly M[];
  roles(): readonly number[];
  tokens(): readonly number[];
  /** Tool-unit id per message (-1 outside a tool unit). */
  units(): readonly number[];
  /** Per-message flags (bit 1: pinned). */
  flags(): readonly number[];
  /** Puts copies in place of messages at the given indices; returns how many changed. */
  replace(edits: Array<[number, M]>): number;
  /** Removes the messages at `positions` and pins `summary` where the first of them was. */
  spliceSummary(positions: number[], summary: SummaryMessage): void;
  /** Trims to `targetTokens`; returns the removed messages. */
  truncate(targetTokens: number): M[];
}

export interface BreakerState {
  state: "closed" | "open" | "half-open";
  /** Failed summaries in a row. */
  consecutiveFailures: number;
  /** When it opened last (ms since the epoch), if it is not closed. */
  openedAt?: number;
  lastError?: string;
}

export interface BreakerEvent extends BreakerState {
  /** "opened" after the last allowed failure, "trial" when a trial call is let through, "closed" after a success. */
  transition: "opened" | "trial" | "closed";
}

export interface ProgressiveCompactionOptions {
  /** Level 0: the reasoning of the last this many assistant turns with reasoning stays (default 1). */
  keepReasoningTurns?: number;
  /** Level 1: tool results above this many tokens are compacted (default 1000). */
  maxToolResultTokens?: number;
  /** Level 2: tool results of the last this many tool units stay whole (default 3). */
  keepToolResults?: number;
  /**
   * Level 2: clear at least this many tokens of old tool results at once, or none (unless clearing
   * less reaches the target). A clearing breaks the prompt cache from the first cleared result on;
   * clearing little at a time would break it every few requests. MessageContextManager passes the
   * room a trim makes, (trimAt - trimTo) of the effective limit, so clearings are no more frequent
   * than trims; without it, the gap between the run's threshold and its target.
   */
  clearAtLeast?: number;
  /** Level 3: the summarizing model; without it level 3 is skipped. */
  llm?: SummaryModel;
  /** Level 3: recent messages kept out of the summary (default 10). */
  preserveLast?: number;
  /** Level 3: the summary message's role (default "system"). */
  summaryRole?: InsertedRole;
  /** Level 3: the summary's bound in tokens (default 500). */
  maxSummaryTokens?: number;
  /** Level 3: the summarizer's input budget in tokens (default 16,000; MessageContextManager passes its window's). */
  summaryInputTokens?: number;
  /** Level 3: the user's own messages kept verbatim beside the summary, in tokens (default 2,000). */
  keepUserTokens?: number;
  /** Failed summaries in a row that open the circuit breaker (default 3). */
  maxSummaryFailures?: number;
  /** How long the breaker stays open before one trial call (default 300,000 ms: 5 minutes). */
  breakerResetMs?: number;
  /** Told when the breaker opens, lets a trial through, or closes. */
  onBreaker?: (event: BreakerEvent) => void;
  logger?: Logger;
}

/** Identity of messages for "the same messages as last time": a number per object, never reused. */
class Identities {
  private readonly ids = new WeakMap<object, number>();
  private next = 1;
  of(value: object): number {
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.next++;
      this.ids.set(value, id);
    }
    return id;
  }
  key(values: readonly object[]): string {
    return values.length === 0 ? "" : `${values.length}:${this.of(values[0] as object)}:${this.of(values[values.length - 1] as object)}`;
  }
}

export class ProgressiveCompaction {
  /** Set when `llm` is given: level 3. */
  readonly compactor: ContextCompactor | undefined;
  readonly keepReasoningTurns: number;
  readonly keepToolResults: number;
  readonly clearAtLeast: number | undefined;
  readonly preserveLast: number;
  readonly maxSummaryFailures: number;
  readonly breakerResetMs: number;
  private readonly toolResultCompactor: ToolResultCompactor;
  private readonly onBreaker: ((event: BreakerEvent) => void) | undefined;
  private readonly identities = new Identities();
  /** Per level, the messages it last freed nothing from. */
  private readonly fruitless = new Map<CompactionLevelName, string>();
  private breakerState: BreakerState = { state: "closed", consecutiveFailures: 0 };
  /** The summary prompt's tokens per counter (checked on every addMessage in SUMMARIZE mode). */
  private readonly promptTokens = new WeakMap<TokenCounter, number>();

  constructor(options: ProgressiveCompactionOptions = {}) {
    this.keepReasoningTurns = requireCount(options.keepReasoningTurns ?? 1, "options.keepReasoningTurns");
    this.toolResultCompactor = new ToolResultCompactor({ maxResultTokens: requireCount(options.maxToolResultTokens ?? 1000, "options.maxToolResultTokens", 16) });
    this.keepToolResults = requireCount(options.keepToolResults ?? 3, "options.keepToolResults");
    this.clearAtLeast = options.clearAtLeast === undefined ? undefined : requireCount(options.clearAtLeast, "options.clearAtLeast");
    this.preserveLast = requireCount(options.preserveLast ?? 10, "options.preserveLast");
    this.maxSummaryFailures = requireCount(options.maxSummaryFailures ?? 3, "options.maxSummaryFailures", 1);
    this.breakerResetMs = requireCount(options.breakerResetMs ?? 300_000, "options.breakerResetMs");
    if (options.onBreaker !== undefined && typeof options.onBreaker !== "function") {
      throw typeError(`options.onBreaker must be a function, got ${describe(options.onBreaker)}`);
    }
    this.onBreaker = options.onBreaker;
    this.compactor =
      options.llm === undefined
        ? undefined
        : new ContextCompactor({
            model: options.llm,
            logger: options.logger,
            summaryRole: options.summaryRole,
            maxSummaryTokens: options.maxSummaryTokens,
            maxInputTokens: options.summaryInputTokens,
            keepUserTokens: options.keepUserTokens,
          });
  }

  /** The circuit breaker as it is now. */
  get breaker(): BreakerState {
    return { ...this.breakerState };
  }

  /**
   * Whether level 3 may call the model now: the breaker closed, open long enough for a trial, or
   * half-open (a trial was let through but never reached the model, e.g. too few messages).
   */
  canSummarize(now = Date.now()): boolean {
    if (this.compactor === undefined) return false;
    const b = this.breakerState;
    return b.state !== "open" || now - (b.openedAt ?? 0) >= this.breakerResetMs;
  }

  /**
   * Tokens of the messages a summary would take now: those before the last `preserveLast`
   * non-system messages, without system and pinned ones. When they no longer fit the summarizer's
   * input budget, compaction must start, or the summary would have to leave some out.
   */
  summarizableTokens<M extends MessageLike>(history: CompactableHistory<M>): number {
    const roles = history.roles();
    const tokens = history.tokens();
    const flags = history.flags();
    let kept = 0;
    let cut = roles.length;
    while (cut > 0 && kept < this.preserveLast) {
      cut--;
      if (roles[cut] !== ROLE_CODES.system) kept++;
    }
    let total = 0;
    for (let i = 0; i < cut; i++) if (roles[i] !== ROLE_CODES.system && ((flags[i] ?? 0) & FLAG_MARKED) === 0) total += tokens[i] ?? 0;
    return total;
  }

  /** The summarizer's input budget left for messages (its budget less the prompt), or Infinity without one. */
  summarizerCapacity(counter: TokenCounter): number {
    const c = this.compactor;
    if (c === undefined) return Number.POSITIVE_INFINITY;
    let prompt = this.promptTokens.get(counter);
    if (prompt === undefined) {
      prompt = counter.count(c.summaryPrompt);
      this.promptTokens.set(counter, prompt);
    }
    return c.maxInputTokens - prompt;
  }

  /**
   * Runs the levels on `history`: when its usage is above `threshold` of `effectiveLimit`, down to
   * `targetShare` of it (the hysteresis); `summarizeEarly`, asked once levels 0 to 2 are done,
   * runs level 3 even below the threshold (the messages to summarize are about to outgrow the
   * summarizer's input budget).
   */
  async run<M extends MessageLike>(
    history: CompactableHistory<M>,
    options: { threshold: number; targetShare: number; effectiveLimit: number; summarizeEarly?: () => boolean },
  ): Promise<CompactionReport<M>> {
    const { threshold, effectiveLimit } = options;
    const trigger = Math.floor(effectiveLimit * threshold);
    const target = Math.floor(effectiveLimit * Math.min(options.targetShare, threshold));
    const triggered = history.tokenUsage() > trigger;
    const report: CompactionReport<M> = {
      threshold,
      targetTokens: target,
      tokensBefore: history.tokenUsage(),
      tokensAfter: 0,
      levels: [],
      replaced: [],
      removed: [],
      breaker: this.breaker,
    };
    const over = () => triggered && history.tokenUsage() > target;
    const replace = (edits: Array<[number, M]>) => {
      const messages = history.messages();
      for (const [i, after] of edits) report.replaced.push({ before: messages[i] as M, after });
      return history.replace(edits);
    };
    type Outcome = { changed: number; skipped?: string; candidates?: readonly object[] };
    const level = async (n: CompactionLevelReport["level"], name: CompactionLevelName, needed: boolean, run: () => Promise<Outcome> | Outcome) => {
      const before = history.tokenUsage();
      const entry: CompactionLevelReport = { level: n, name, applied: false, messagesChanged: 0, tokensBefore: before, tokensAfter: before };
      if (needed) {
        entry.applied = true;
        try {
          const outcome = await run();
          entry.messagesChanged = outcome.changed;
          if (outcome.skipped !== undefined) {
            entry.applied = false;
            entry.skipped = outcome.skipped;
          } else if (outcome.candidates !== undefined) {
            // Freed nothing: not again for the same messages.
            if (history.tokenUsage() >= before) this.fruitless.set(name, this.identities.key(outcome.candidates));
            else this.fruitless.delete(name);
          }
        } catch (error) {
          entry.error = error instanceof Error ? error.message : String(error);
        }
      }
      entry.tokensAfter = history.tokenUsage();
      report.levels.push(entry);
    };
    const repeated = (name: CompactionLevelName, candidates: readonly object[]) =>
      candidates.length > 0 && this.fruitless.get(name) === this.identities.key(candidates);
    const repeatNotice = "freed nothing last time for the same messages";

    await level(0, "clear_old_reasoning", over(), () => {
      const messages = history.messages();
      const roles = history.roles();
      const withReasoning: number[] = [];
      messages.forEach((m, i) => {
        if (roles[i] !== ROLE_CODES.user && roles[i] !== ROLE_CODES.system && hasReasoning(m)) withReasoning.push(i);
      });
      const old = withReasoning.slice(0, Math.max(0, withReasoning.length - this.keepReasoningTurns));
      const candidates = old.map((i) => messages[i] as M);
      if (repeated("clear_old_reasoning", candidates)) return { changed: 0, skipped: repeatNotice };
      return { changed: replace(old.map((i) => [i, removeReasoning(messages[i] as M)] as [number, M])), candidates };
    });

    await level(1, "compact_tool_results", over(), () => {
      const roles = history.roles();
      const tokens = history.tokens();
      const messages = history.messages();
      const large: number[] = [];
      messages.forEach((_, i) => {
        if (roles[i] === ROLE_CODES.tool && (tokens[i] ?? 0) > this.toolResultCompactor.maxResultTokens) large.push(i);
      });
      const candidates = large.map((i) => messages[i] as M);
      if (repeated("compact_tool_results", candidates)) return { changed: 0, skipped: repeatNotice };
      const edits = large.map((i) => [i, this.toolResultCompactor.compactMessage(messages[i] as M, history.counter)] as [number, M]);
      return { changed: replace(edits.filter(([i, m]) => m !== messages[i])), candidates };
    });

    await level(2, "clear_old_tool_results", over(), () => {
      const roles = history.roles();
      const units = history.units();
      const tokens = history.tokens();
      // The last keepToolResults units that hold tool results (a reasoning item's unit may hold none).
      const resultUnits = units.filter((u, i) => u >= 0 && roles[i] === ROLE_CODES.tool);
      const recent = new Set([...new Set(resultUnits)].slice(-this.keepToolResults));
      const messages = history.messages();
      const edits: Array<[number, M]> = [];
      messages.forEach((m, i) => {
        const unit = units[i] ?? -1;
        if (roles[i] === ROLE_CODES.tool && unit >= 0 && !recent.has(unit)) {
          const cleared = mapToolResults(m, () => CLEARED_TOOL_RESULT);
          if (cleared !== m && !isCleared(m)) edits.push([i, cleared]);
        }
      });
      if (edits.length === 0) return { changed: 0 };
      // Oldest first, until the target is reached and at least clearAtLeast tokens are cleared.
      const after = messageTokens(history.counter, edits.map(([, m]) => m));
      const freed = edits.map(([i], k) => Math.max(0, (tokens[i] ?? 0) - (after[k] ?? 0)));
      const atLeast = this.clearAtLeast ?? Math.max(0, Math.floor(effectiveLimit * (threshold - Math.min(options.targetShare, threshold))));
      const excess = history.tokenUsage() - target;
      let take = 0;
      let sum = 0;
      while (take < edits.length && (sum < excess || sum < atLeast)) sum += freed[take++] ?? 0;
      if (sum < atLeast && sum < excess) {
        return { changed: 0, skipped: `clearing every old tool result frees ${sum} tokens, less than clearAtLeast (${atLeast}) and than needed` };
      }
      return { changed: replace(edits.slice(0, take)) };
    });

    const early = !over() && this.compactor !== undefined && options.summarizeEarly?.() === true;
    const summarizeNeeded = over() || early;
    await level(3, "summarize", summarizeNeeded, async () => {
      const compactor = this.compactor;
      if (compactor === undefined) return { changed: 0, skipped: "no llm" };
      const now = Date.now();
      if (!this.canSummarize(now)) return { changed: 0, skipped: "circuit breaker open" };
      const snapshot = history.messages().slice();
      const summarizable = snapshot.filter((_, i) => history.roles()[i] !== ROLE_CODES.system);
      if (repeated("summarize", summarizable)) return { changed: 0, skipped: repeatNotice };
      if (this.breakerState.state === "open") this.transition("trial", { ...this.breakerState, state: "half-open" });
      const goal = early ? 0 : target;
      const result = await compactor.compactWithDetails(snapshot, Math.max(0, goal - history.fixedTokens()), history.counter, { preserveLast: this.preserveLast });
      if (result.error) {
        this.failed(result.error);
        throw result.error;
      }
      this.succeeded();
      if (result.summarized === 0 || !result.summary) return { changed: 0, candidates: summarizable };
      // Apply to the history as it is now: messages added while the model ran stay, and a
      // summary whose messages were meanwhile trimmed away is dropped rather than misplaced.
      const kept = new Set<object>(result.messages as object[]);
      const summarized = snapshot.filter((m) => !kept.has(m));
      const position = new Map<object, number>();
      history.messages().forEach((m, i) => position.set(m, i));
      const positions = summarized.map((m) => position.get(m) ?? -1);
      if (positions.some((p) => p < 0)) return { changed: 0 };
      report.summary = result.summary;
      report.removed.push(...summarized);
      history.spliceSummary(positions, result.summary);
      return { changed: summarized.length, candidates: summarizable };
    });

    await level(4, "truncate", over(), () => {
      const candidates = history.messages();
      if (repeated("truncate", candidates)) return { changed: 0, skipped: repeatNotice };
      const snapshot = candidates.slice();
      const removed = history.truncate(target);
      report.removed.push(...removed);
      return { changed: removed.length, candidates: snapshot };
    });

    report.tokensAfter = history.tokenUsage();
    report.breaker = this.breaker;
    return report;
  }

  private failed(error: Error): void {
    const b = this.breakerState;
    const failures = b.consecutiveFailures + 1;
    if (b.state === "half-open" || (b.state === "closed" && failures >= this.maxSummaryFailures)) {
      this.transition("opened", { state: "open", consecutiveFailures: failures, openedAt: Date.now(), lastError: error.message });
    } else {
      this.breakerState = { ...b, consecutiveFailures: failures, lastError: error.message };
    }
  }

  private succeeded(): void {
    const wasOpen = this.breakerState.state !== "closed";
    this.breakerState = { state: "closed", consecutiveFailures: 0 };
    if (wasOpen) this.onBreaker?.({ ...this.breakerState, transition: "closed" });
  }

  private transition(transition: BreakerEvent["transition"], state: BreakerState): void {
    this.breakerState = state;
    this.onBreaker?.({ ...state, transition });
  }
}

function isCleared(message: MessageLike): boolean {
  let cleared = true;
  let seen = false;
  mapToolResults(message, (value) => {
    seen = true;
    if (value !== CLEARED_TOOL_RESULT) cleared = false;
    return value;
  });
  return seen && cleared;
}
