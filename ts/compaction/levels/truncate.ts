// Level 4: the history is trimmed to the target with its own truncation strategy (the system
// prompt, pinned messages and whole tool units kept, order kept), the omission marker where the
// strategy puts one.
import { planKept, type TruncationStrategy } from "../../history/strategies.js";
import type { MessageLike } from "../../messages/types.js";
import { REPEAT_NOTICE, type CompactionLevel, type LevelContext, type LevelPlan } from "../compaction-level.js";
import type { HistoryView } from "../history-edit.js";

export class Truncate implements CompactionLevel {
  readonly level = 4;
  readonly name = "truncate";

  constructor(readonly strategy: TruncationStrategy) {}

  plan<M extends MessageLike>(view: HistoryView<M>, context: LevelContext): LevelPlan<M> {
    const candidates = view.messages;
    if (context.repeated(candidates)) return { skipped: REPEAT_NOTICE };
    const snapshot = candidates.slice();
    const kept = planKept(this.strategy, view, view.conversationBudget(context.target), view.counter);
    if (kept === undefined || kept.indices.length === view.messages.length) return { candidates: snapshot };
    return { edit: { kind: "trim", kept: kept.indices, markerIndex: kept.markerIndex, markerTokens: kept.markerTokens }, candidates: snapshot };
  }
}
