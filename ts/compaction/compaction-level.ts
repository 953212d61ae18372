// One level of progressive compaction: a planner over a read-only view of the history that says
// what to change (an edit) and never changes it itself. The levels run cheapest first under
// ProgressiveCompaction, which decides whether each is needed and keeps the report.
import type { MessageLike } from "../messages/types.js";
import type { HistoryEdit, HistoryView } from "./history-edit.js";

export type CompactionLevelName = "clear_old_reasoning" | "compact_tool_results" | "clear_old_tool_results" | "summarize" | "truncate";

/** What a level knows of the run it is part of. */
export interface LevelContext {
  /** The usage the run brings the history down to, in tokens. */
  readonly target: number;
  /** The share of the effective limit above which the run was started. */
  readonly threshold: number;
  /** The share of the effective limit the run brings the history down to (the target's share, before the threshold caps it). */
  readonly targetShare: number;
  readonly effectiveLimit: number;
  /** The run is below its threshold and runs level 3 only because the messages to summarize are about to outgrow the summarizer's input. */
  readonly early: boolean;
  /** Whether this level freed nothing last time for the same `candidates`: it is not run on them again. */
  repeated(candidates: readonly object[]): boolean;
}

/** What a level plans. */
export interface LevelPlan<M> {
  /** The change to make, if any. */
  edit?: HistoryEdit<M>;
  /** Why the level did nothing although it was needed (no llm, the circuit breaker, a repeat, ...). */
  skipped?: string;
  /** The messages the level looked at: when its edit freed nothing, it is not run on the same ones again. */
  candidates?: readonly object[];
}

export interface CompactionLevel {
  readonly level: 0 | 1 | 2 | 3 | 4;
  readonly name: CompactionLevelName;
  /** Plans this level's edit over `view` (a level that waits for a model returns a promise). */
  plan<M extends MessageLike>(view: HistoryView<M>, context: LevelContext): LevelPlan<M> | Promise<LevelPlan<M>>;
  /** Whether this level must run although the history is at the run's target (asked only then). */
  neededEarly?<M extends MessageLike>(view: HistoryView<M>): boolean;
}

/** Why a level that freed nothing last time is not run on the same messages again. */
export const REPEAT_NOTICE = "freed nothing last time for the same messages";
