// Level 1: tool results above the compactor's bound are compacted to it (ToolResultCompactor: the
// head and tail kept, errors kept, JSON kept valid); the calls and the results' places stay.
import { ROLE_CODES } from "../../messages/roles.js";
import type { MessageLike } from "../../messages/types.js";
import { REPEAT_NOTICE, type CompactionLevel, type LevelContext, type LevelPlan } from "../compaction-level.js";
import type { HistoryView } from "../history-edit.js";
import type { ToolResultCompactor } from "../tool-result-compactor.js";

export class CompactToolResults implements CompactionLevel {
  readonly level = 1;
  readonly name = "compact_tool_results";

  constructor(readonly compactor: ToolResultCompactor) {}

  plan<M extends MessageLike>(view: HistoryView<M>, context: LevelContext): LevelPlan<M> {
    const { messages, roles, tokens } = view;
    const large: number[] = [];
    messages.forEach((_, i) => {
      if (roles[i] === ROLE_CODES.tool && (tokens[i] ?? 0) > this.compactor.maxResultTokens) large.push(i);
    });
    const candidates = large.map((i) => messages[i] as M);
    if (context.repeated(candidates)) return { skipped: REPEAT_NOTICE };
    const compacted = large.map((i) => [i, this.compactor.compactMessage(messages[i] as M, view.counter)] as const);
    return { edit: { kind: "replace", replacements: compacted.filter(([i, m]) => m !== messages[i]) }, candidates };
  }
}
