// One level of progressive compaction: a planner over a read-only view of the history that says
// what to change (an edit) and never changes it itself. The levels run cheapest first under
// ProgressiveCompaction, which decides whether each is needed and keeps the report.
import { FLAG_MARKED } from "../messages/metadata-reader.js";
import { ROLE_CODES } from "../messages/roles.js";
import type { MessageLike } from "../messages/types.js";
import { newestExchange } from "../truncation/kept-plan.js";
import { messageTokens } from "../tokens/message-tokens.js";
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
  /**
   * What the whole request may hold, in tokens: the effective limit, or a run's own target. A
   * level aims at `target` but never takes the newest exchange while the request fits this with it.
   */
  readonly limit: number;
  /** The run is below its threshold and runs level 3 only because the messages to summarize are about to outgrow the summarizer's input. */
  readonly early: boolean;
  /**
   * No summary can follow in this run (no model, the circuit breaker open, or a run without level
   * 3): what the levels before the trim leave above the target, the trim drops as whole turns.
   */
  readonly trimFollows: boolean;
  /** The session's open and resolved problems as a summary lists them ("" for none): every summary receives them. */
  readonly problems: string;
  /** Whether this level freed nothing last time for the same `candidates`: it is not run on them again. */
  repeated(candidates: readonly object[]): boolean;
}

/** One unit a level would take: a message it would replace, with the tokens that frees. */
export interface TakenUnit {
  /** A stable id, independent of the message's position: the tool call id it answers or makes, else its own id or a hash (tool-events.ts `messageId`). */
  id: string;
  /** Its position in the view. */
  index: number;
  /** The tokens taking it frees. */
  freed: number;
}

/** What a level plans. */
export interface LevelPlan<M> {
  /** The change to make, if any. */
  edit?: HistoryEdit<M>;
  /** The units the edit takes, oldest first, with the tokens each frees (levels 0 to 2; a preview lists them). */
  taken?: TakenUnit[];
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

/**
 * The replacements a level makes, oldest first, only as many as bring `view` to the run's target
 * (one unit past it at most), and at least `atLeast` tokens' worth when there are that many. A
 * replacement that frees nothing is never taken: a compaction must not cost tokens. Returns the
 * edit and the units it takes, or nothing.
 */
export function takeOldestUntilTarget<M extends MessageLike>(
  view: HistoryView<M>,
  context: LevelContext,
  replacements: ReadonlyArray<readonly [index: number, after: M, id: string]>,
  atLeast = 0,
): { edit: HistoryEdit<M>; taken: TakenUnit[] } | undefined {
  if (replacements.length === 0) return undefined;
  const after = messageTokens(
    view.counter,
    replacements.map(([, m]) => m),
  );
  const excess = view.tokenUsage - context.target;
  const taken: TakenUnit[] = [];
  const chosen: Array<readonly [number, M]> = [];
  let sum = 0;
  for (let k = 0; k < replacements.length && (sum < excess || sum < atLeast); k++) {
    const [index, message, id] = replacements[k] as readonly [number, M, string];
    const freed = (view.tokens[index] ?? 0) - (after[k] ?? 0);
    if (freed <= 0) continue;
    sum += freed;
    taken.push({ id, index, freed });
    chosen.push([index, message]);
  }
  if (chosen.length === 0) return undefined;
  return { edit: { kind: "replace", replacements: chosen }, taken };
}

/** Whether the message at `index` of `view` is pinned or a system message: no level rewrites it. */
export function isProtected<M extends MessageLike>(view: HistoryView<M>, index: number): boolean {
  return view.roles[index] === ROLE_CODES.system || ((view.flags[index] ?? 0) & FLAG_MARKED) !== 0;
}

/**
 * The newest exchange's messages, with the newest tool unit (the results the
 * model is about to read): levels 1 and 2 leave them whole, and only a trim that cannot fit the
 * request otherwise cuts them (newest-exchange.ts).
 */
export function newestExchangeOf<M extends MessageLike>(view: HistoryView<M>): ReadonlySet<number> {
  return new Set(newestExchange(view, true));
}
