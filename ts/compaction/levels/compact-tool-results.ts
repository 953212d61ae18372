// Level 1: tool results above the compactor's bound are compacted to it (ToolResultCompactor: the
// head and tail kept, error lines kept, JSON kept valid), oldest first, only until the history is
// at the run's target; pinned results and the newest exchange's stay whole. The calls and the results' places stay, and
// each cut names the recall call that reads the whole result back.
import { ROLE_CODES } from "../../messages/roles.js";
import type { MessageLike } from "../../messages/types.js";
import {
  REPEAT_NOTICE,
  isProtected,
  newestExchangeOf,
  takeOldestUntilTarget,
  type CompactionLevel,
  type LevelContext,
  type LevelPlan,
} from "../compaction-level.js";
import type { HistoryView } from "../history-edit.js";
import { messageId } from "../tool-events.js";
import type { ToolResultCompactor } from "../tool-result-compactor.js";

export class CompactToolResults implements CompactionLevel {
  readonly level = 1;
  readonly name = "compact_tool_results";

  constructor(readonly compactor: ToolResultCompactor) {}

  plan<M extends MessageLike>(view: HistoryView<M>, context: LevelContext): LevelPlan<M> {
    const { messages, roles, tokens } = view;
    const large: number[] = [];
    const newest = newestExchangeOf(view);
    messages.forEach((_, i) => {
      if (roles[i] === ROLE_CODES.tool && (tokens[i] ?? 0) > this.compactor.maxResultTokens && !isProtected(view, i) && !newest.has(i))
        large.push(i);
    });
    const candidates = large.map((i) => messages[i] as M);
    if (context.repeated(candidates)) return { skipped: REPEAT_NOTICE };
    // Compacted one at a time, oldest first, so that a run that reaches its target early compacts no more.
    const excess = view.tokenUsage - context.target;
    const replacements: Array<readonly [number, M, string]> = [];
    let freed = 0;
    for (const i of large) {
      if (freed >= excess) break;
      const message = messages[i] as M;
      // The notice names the recall call that reads the whole result back (recall/).
      const compacted = this.compactor.compactMessage(message, view.counter, { nameRecall: true });
      if (compacted === message) continue;
      replacements.push([i, compacted, messageId(message)]);
      freed += (tokens[i] ?? 0) - this.compactor.maxResultTokens;
    }
    return { ...takeOldestUntilTarget(view, context, replacements), candidates };
  }
}
