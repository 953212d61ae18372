// Level 0: the reasoning of older assistant turns goes (as Anthropic's clear_thinking does); the
// last `keepTurns` turns with reasoning keep theirs. The turns themselves and their tool calls stay.
import { removeReasoning, hasReasoning } from "../../messages/reasoning.js";
import { ROLE_CODES } from "../../messages/roles.js";
import type { MessageLike } from "../../messages/types.js";
import { REPEAT_NOTICE, type CompactionLevel, type LevelContext, type LevelPlan } from "../compaction-level.js";
import type { HistoryView } from "../history-edit.js";

export class ClearOldReasoning implements CompactionLevel {
  readonly level = 0;
  readonly name = "clear_old_reasoning";

  constructor(readonly keepTurns: number) {}

  plan<M extends MessageLike>(view: HistoryView<M>, context: LevelContext): LevelPlan<M> {
    const { messages, roles } = view;
    const withReasoning: number[] = [];
    messages.forEach((m, i) => {
      if (roles[i] !== ROLE_CODES.user && roles[i] !== ROLE_CODES.system && hasReasoning(m)) withReasoning.push(i);
    });
    const old = withReasoning.slice(0, Math.max(0, withReasoning.length - this.keepTurns));
    const candidates = old.map((i) => messages[i] as M);
    if (context.repeated(candidates)) return { skipped: REPEAT_NOTICE };
    const replacements = old.map((i) => [i, removeReasoning(messages[i] as M)] as const);
    return { edit: { kind: "replace", replacements }, candidates };
  }
}
