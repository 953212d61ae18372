// Level 4: the history is trimmed to the target with its own truncation strategy (the system
// prompt, pinned messages and whole tool units kept, order kept), the omission marker where the
// strategy puts one. The trim stops before the newest exchange while the request fits with it, and
// cuts that exchange's results when it does not (newest-exchange.ts).
import type { TruncationStrategy } from "../../truncation/strategies.js";
import type { MessageLike } from "../../messages/types.js";
import { REPEAT_NOTICE, type CompactionLevel, type LevelContext, type LevelPlan } from "../compaction-level.js";
import type { HistoryView } from "../history-edit.js";
import { planTrim } from "../newest-exchange.js";

export class Truncate implements CompactionLevel {
  readonly level = 4;
  readonly name = "truncate";

  constructor(readonly strategy: TruncationStrategy) {}

  plan<M extends MessageLike>(view: HistoryView<M>, context: LevelContext): LevelPlan<M> {
    const candidates = view.messages;
    if (context.repeated(candidates)) return { skipped: REPEAT_NOTICE };
    const snapshot = candidates.slice();
    const trim = planTrim(view, this.strategy, context.target, context.limit);
    if (trim === undefined) return { candidates: snapshot };
    return {
      edit: { kind: "trim", kept: trim.indices, markerIndex: trim.markerIndex, markerTokens: trim.markerTokens, cut: trim.cut },
      candidates: snapshot,
    };
  }
}
