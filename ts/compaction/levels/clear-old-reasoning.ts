// Level 0: the reasoning of older assistant turns goes (as Anthropic's clear_thinking does),
// oldest first, only until the history is at the run's target; the last `keepTurns` turns with
// reasoning keep theirs, and so do pinned turns. The turns themselves and their tool calls stay.
import { removeReasoning, hasReasoning } from "../../messages/reasoning.js";
import { ROLE_CODES } from "../../messages/roles.js";
import type { MessageLike } from "../../messages/types.js";
import {
  REPEAT_NOTICE,
  isProtected,
  takeOldestUntilTarget,
  type CompactionLevel,
  type LevelContext,
  type LevelPlan,
} from "../compaction-level.js";
import type { HistoryView } from "../history-edit.js";
import { messageId } from "../tool-events.js";

export class ClearOldReasoning implements CompactionLevel {
  readonly level = 0;
  readonly name = "clear_old_reasoning";

  constructor(readonly keepTurns: number) {}

  plan<M extends MessageLike>(view: HistoryView<M>, context: LevelContext): LevelPlan<M> {
    const { messages, roles } = view;
    const withReasoning: number[] = [];
    messages.forEach((m, i) => {
      if (roles[i] !== ROLE_CODES.user && hasReasoning(m)) withReasoning.push(i);
    });
    const old = withReasoning.slice(0, Math.max(0, withReasoning.length - this.keepTurns)).filter((i) => !isProtected(view, i));
    const candidates = old.map((i) => messages[i] as M);
    if (context.repeated(candidates)) return { skipped: REPEAT_NOTICE };
    const taken = takeOldestUntilTarget(
      view,
      context,
      old.map((i) => [i, removeReasoning(messages[i] as M), messageId(messages[i] as M)] as const),
    );
    return { ...taken, candidates };
  }
}
