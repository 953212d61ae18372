// Progressive compaction: the levels a managed history goes through when it nears its window,
// cheapest first, each a unit of its own under levels/:
//   0. clear the reasoning of older assistant turns (as Anthropic's clear_thinking does),
//   1. compact tool results above `maxToolResultTokens` (ToolResultCompactor),
//   2. replace old tool results by a short notice, at least `clearAtLeast` tokens at once (the
//      calls stay, so the conversation stays valid),
//   3. summarize old turns with a model (ContextCompactor), when there is one,
//   4. truncate with the history's strategy.
//
// A run never changes the history itself. It is a generator over a read-only view: it yields
// each level's edit for the history's owner to apply (and is resumed with what the edit did), and
// a promise to wait for when a level waits for its model (and is resumed with its value), so that
// the owner's bookkeeping and policy stay its own and nothing calls back into it mid-change.
//
// Compaction must never become the problem it solves. Once started it brings usage down to its
// target (hysteresis: fewer, larger edits keep providers' prompt caches hitting between them); a
// level that freed nothing is not run again on the same messages; and after `maxSummaryFailures`
// failed summaries in a row a circuit breaker stops calling the model (levels 0, 1, 2 and 4 still
// run) until `breakerResetMs` have passed, when one trial call may close it again.
import type { TruncationStrategy } from "../truncation/strategies.js";
import type { InsertedRole } from "../messages/roles.js";
import type { MessageLike } from "../messages/types.js";
import { ExtractiveSummarizer } from "../models/extractive-summarizer.js";
import type { SummaryModel } from "../models/summary-model.js";
import { plainError, requireCount } from "../runtime/errors.js";
import type { Logger } from "../runtime/logger.js";
import { CircuitBreaker, type BreakerEvent, type BreakerState } from "./circuit-breaker.js";
import type { CompactionLevel, CompactionLevelName, LevelContext, LevelPlan, TakenUnit } from "./compaction-level.js";
import { ContextCompactor, planForModel, type SummaryMessage } from "./context-compactor.js";
import type { AppliedEdit, HistoryEdit, HistoryView } from "./history-edit.js";
import { ClearOldReasoning } from "./levels/clear-old-reasoning.js";
import { ClearOldToolResults } from "./levels/clear-old-tool-results.js";
import { CompactToolResults } from "./levels/compact-tool-results.js";
import { Summarize } from "./levels/summarize.js";
import { Truncate } from "./levels/truncate.js";
import { OpenProblems } from "./open-problems.js";
import { lineAt, type RoomShares } from "./room-share.js";
import { ToolResultCompactor } from "./tool-result-compactor.js";

export interface CompactionLevelReport {
  level: 0 | 1 | 2 | 3 | 4;
  name: CompactionLevelName;
  /** False when usage was already at the target, the level had nothing to take, or it was skipped (see `skipped`). */
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

/**
 * What a run asks of the history's owner: apply an edit (resume with the AppliedEdit), or wait for
 * a promise (resume with its value, or throw its error). A `pause` between levels only spreads the
 * work over turns of the event loop: a run of levels that plan at once may go on without it.
 */
export type CompactionStep<M> =
  | { kind: "apply"; edit: HistoryEdit<M>; level: CompactionLevel; taken?: readonly TakenUnit[] }
  | { kind: "wait"; promise: Promise<unknown>; pause?: true };

export type CompactionRun<M> = Generator<CompactionStep<M>, CompactionReport<M>, unknown>;

export interface ProgressiveCompactionOptions {
  /** Level 0: the reasoning of the last this many assistant turns with reasoning stays (default 1). */
  keepReasoningTurns?: number;
  /** Level 1: tool results above this many tokens are compacted (default 1000). */
  maxToolResultTokens?: number;
  /** Level 2: tool results of the last this many tool units stay whole (default 3). */
  keepToolResults?: number;
  /** Level 2: clear at least this many tokens of old tool results at once, or none, unless clearing less reaches the target (levels/clear-old-tool-results.ts). */
  clearAtLeast?: number;
  /** Level 3: the summarizing model; without it level 3 is skipped. */
  llm?: SummaryModel;
  /** Level 3: recent messages kept out of the summary while its target can be reached without them (default 10); else summarized rather than dropped by level 4. */
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
  /** Level 4: the history's truncation strategy. */
  strategy: TruncationStrategy;
  logger?: Logger;
}

/** What a run of the levels aims at (ProgressiveCompaction.run). */
export interface RunOptions {
  /** The share of the effective limit above which the run starts. */
  threshold: number;
  /** The share the run brings the history down to (at most the threshold's). */
  targetShare: number;
  effectiveLimit: number;
  /** A run to this many tokens instead (started above it, brought down to it). */
  target?: number;
  /** The shares that are of the room the pinned messages leave rather than of the whole limit (room-share.ts; default "none"). */
  room?: RoomShares;
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
  readonly preserveLast: number;
  /** The levels, cheapest first. */
  readonly levels: readonly CompactionLevel[];
  /** The levels that plan at once, without a model (all but level 3): a run of them needs no waiting. */
  readonly immediateLevels: readonly CompactionLevel[];
  private readonly circuitBreaker: CircuitBreaker;
  private readonly summarize: Summarize;
  private identities = new Identities();
  /** What `problems` returns (a fork replaces it with a fork of its parent's). */
  private problemLedger = new OpenProblems();
  /** Per level, the messages it last freed nothing from. */
  private readonly fruitless = new Map<CompactionLevelName, string>();

  constructor(private readonly options: ProgressiveCompactionOptions) {
    const keepReasoningTurns = requireCount(options.keepReasoningTurns ?? 1, "options.keepReasoningTurns");
    const toolResultCompactor = new ToolResultCompactor({
      maxResultTokens: requireCount(options.maxToolResultTokens ?? 1000, "options.maxToolResultTokens", 16),
    });
    const keepToolResults = requireCount(options.keepToolResults ?? 3, "options.keepToolResults");
    const clearAtLeast = options.clearAtLeast === undefined ? undefined : requireCount(options.clearAtLeast, "options.clearAtLeast");
    this.preserveLast = requireCount(options.preserveLast ?? 10, "options.preserveLast");
    this.circuitBreaker = new CircuitBreaker(options);
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
    this.summarize = new Summarize(this.compactor, this.preserveLast, this.circuitBreaker);
    this.levels = [
      new ClearOldReasoning(keepReasoningTurns),
      new CompactToolResults(toolResultCompactor),
      new ClearOldToolResults(keepToolResults, clearAtLeast),
      this.summarize,
      new Truncate(options.strategy),
    ];
    this.immediateLevels = this.levels.filter((level) => level !== this.summarize);
  }

  /**
   * A compaction that starts where this one is (its circuit breaker, the messages each level freed
   * nothing from, the problems read so far) and goes on alone: a preview runs it
   * and this one never learns of it. `llm` replaces the summarizing model (a preview plans level 3
   * offline rather than pay for a summary).
   */
  fork(llm: SummaryModel | undefined = this.options.llm): ProgressiveCompaction {
    const fork = new ProgressiveCompaction({ ...this.options, llm, onBreaker: undefined });
    fork.circuitBreaker.copyFrom(this.circuitBreaker);
    fork.identities = this.identities;
    for (const [name, key] of this.fruitless) fork.fruitless.set(name, key);
    fork.problemLedger = this.problemLedger.fork();
    // Offline in place of a model: the span is still the one the model's compaction would take.
    if (llm !== this.options.llm && !(this.options.llm instanceof ExtractiveSummarizer) && fork.compactor !== undefined)
      planForModel(fork.compactor);
    return fork;
  }

  /** The failures the history's tool results reported, open until the same check passes: what every summary receives. */
  get problems(): OpenProblems {
    return this.problemLedger;
  }

  /** The circuit breaker as it is now. */
  get breaker(): BreakerState {
    return this.circuitBreaker.state;
  }

  /** Whether level 3 may call the model now (there is one, and the breaker lets the call through). */
  canSummarize(now = Date.now()): boolean {
    return this.summarize.canSummarize(now);
  }

  /** Whether level 3 must run before the messages to summarize outgrow the summarizer's input budget. */
  summarizerFull<M extends MessageLike>(view: HistoryView<M>): boolean {
    return this.summarize.neededEarly(view);
  }

  /**
   * Runs the levels over `view`: when its usage is above `threshold` of `effectiveLimit`, down to
   * `targetShare` of it (the hysteresis). Level 3 runs even below the threshold when the messages
   * to summarize are about to outgrow the summarizer's input budget. The first level plans at once;
   * each later one after a wait, so that the caller that starts a run (addMessage) never waits for
   * more than the first level. `levels`: the levels to run, cheapest first (this compaction's own
   * unless given). `target`: a run to that many tokens instead (started above it, brought down to it).
   */
  *run<M extends MessageLike>(
    view: HistoryView<M>,
    options: RunOptions,
    levels: readonly CompactionLevel[] = this.levels,
  ): CompactionRun<M> {
    const { threshold, targetShare, effectiveLimit, room = "none" } = options;
    const trigger = options.target ?? (room === "all" ? lineAt(view, effectiveLimit, threshold) : Math.floor(effectiveLimit * threshold));
    const target =
      options.target ??
      (room === "none"
        ? Math.floor(effectiveLimit * Math.min(targetShare, threshold))
        : Math.min(trigger, lineAt(view, effectiveLimit, targetShare)));
    const triggered = view.tokenUsage > trigger;
    const report: CompactionReport<M> = {
      threshold,
      targetTokens: target,
      tokensBefore: view.tokenUsage,
      tokensAfter: 0,
      levels: [],
      replaced: [],
      removed: [],
      breaker: this.breaker,
    };
    const over = () => triggered && view.tokenUsage > target;
    const trimFollows = !(levels.includes(this.summarize) && this.summarize.canSummarize());
    // Every tool result is read for failures before any level clears, cuts or summarizes one.
    if (triggered || levels.some((level) => level.neededEarly?.(view) === true)) this.problems.observe(view.messages);
    for (const level of levels) {
      // A level may have to run although the history is at its target (level 3: before the
      // messages to summarize outgrow the summarizer's input budget).
      const early = !over() && level.neededEarly?.(view) === true;
      const needed = over() || early;
      const context: LevelContext = {
        target,
        threshold,
        targetShare,
        effectiveLimit,
        limit: options.target ?? effectiveLimit,
        early,
        trimFollows,
        problems: this.problems.describe(),
        repeated: (candidates) => candidates.length > 0 && this.fruitless.get(level.name) === this.identities.key(candidates),
      };
      report.levels.push(yield* this.runLevel(level, view, context, needed, report));
      yield { kind: "wait", promise: Promise.resolve(), pause: true };
    }
    report.tokensAfter = view.tokenUsage;
    report.breaker = this.breaker;
    return report;
  }

  /**
   * run() over the levels that plan at once (immediateLevels), to its end without waiting: each
   * edit goes to `apply` as it is planned, and what apply throws goes back into the run, as
   * driveRun does. For a policy that must be done inside the call that set it off.
   */
  runNow<M extends MessageLike>(
    view: HistoryView<M>,
    options: RunOptions,
    apply: (edit: HistoryEdit<M>, level: CompactionLevel) => AppliedEdit<M>,
  ): CompactionReport<M> {
    const run = this.run(view, options, this.immediateLevels);
    let step = run.next();
    while (!step.done) {
      const request = step.value;
      if (request.kind === "wait" && request.pause !== true)
        throw plainError("ctxwin: a level that waits for its model ran in runNow (a bug to report)", "ERR_CTXWIN_INTERNAL");
      let input: AppliedEdit<M> | undefined;
      try {
        input = request.kind === "apply" ? apply(request.edit, request.level) : undefined;
      } catch (error) {
        step = run.throw(error);
        continue;
      }
      step = run.next(input);
    }
    return step.value;
  }

  /** One level: planned if needed, its edit applied by the owner, its outcome in the report. */
  private *runLevel<M extends MessageLike>(
    level: CompactionLevel,
    view: HistoryView<M>,
    context: LevelContext,
    needed: boolean,
    report: CompactionReport<M>,
  ): Generator<CompactionStep<M>, CompactionLevelReport, unknown> {
    const before = view.tokenUsage;
    const entry: CompactionLevelReport = {
      level: level.level,
      name: level.name,
      applied: false,
      messagesChanged: 0,
      tokensBefore: before,
      tokensAfter: before,
    };
    if (needed) {
      entry.applied = true;
      try {
        const planned = level.plan(view, context);
        const plan = planned instanceof Promise ? ((yield { kind: "wait", promise: planned }) as LevelPlan<M>) : planned;
        let candidates = plan.candidates;
        if (plan.edit !== undefined) {
          const edit = plan.edit;
          // A trim's cut of the newest exchange's results is a replacement too.
          const replacements = edit.kind === "replace" ? edit.replacements : edit.kind === "trim" ? (edit.cut ?? []) : [];
          for (const [i, after] of replacements) {
            report.replaced.push({ before: view.messages[i] as M, after });
            this.problems.markObserved(after); // its original was read
          }
          const applied = (yield {
            kind: "apply",
            edit,
            level,
            ...(plan.taken === undefined ? {} : { taken: plan.taken }),
          }) as AppliedEdit<M>;
          entry.messagesChanged = applied.changed;
          if (edit.kind === "summarize") {
            if (applied.changed === 0)
              candidates = undefined; // its messages were trimmed away meanwhile: dropped
            else report.summary = edit.summary;
          }
          report.removed.push(...applied.removed);
        }
        if (plan.skipped !== undefined) {
          entry.applied = false;
          entry.skipped = plan.skipped;
        } else if (candidates !== undefined) {
          // Freed nothing: not again for the same messages.
          if (view.tokenUsage >= before) this.fruitless.set(level.name, this.identities.key(candidates));
          else this.fruitless.delete(level.name);
        }
        if (plan.edit === undefined) entry.applied = false; // nothing to take
      } catch (error) {
        entry.error = error instanceof Error ? error.message : String(error);
      }
    }
    entry.tokensAfter = view.tokenUsage;
    return entry;
  }
}

/**
 * Drives `run` to its end as a history's owner does: each edit planned goes to `apply` (what it
 * throws goes back into the run), each wait is awaited and the run resumed with its value.
 */
export async function driveRun<M>(
  run: CompactionRun<M>,
  apply: (edit: HistoryEdit<M>, level: CompactionLevel) => unknown,
): Promise<CompactionReport<M>> {
  let step = run.next();
  while (!step.done) {
    const request = step.value;
    let input: unknown;
    try {
      input = request.kind === "apply" ? apply(request.edit, request.level) : await request.promise;
    } catch (error) {
      step = run.throw(error);
      continue;
    }
    step = run.next(input);
  }
  return step.value;
}
