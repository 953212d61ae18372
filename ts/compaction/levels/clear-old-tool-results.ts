// Level 2: old tool results are replaced by a short notice, oldest first; the calls stay, so the
// conversation stays valid, and the results of the last `keepUnits` tool units stay whole.
//
// At least `clearAtLeast` tokens go at once, or none (unless clearing less reaches the target): a
// clearing breaks the prompt cache from the first cleared result on, and clearing little at a
// time would break it every few requests. MessageContextManager passes the room a trim makes,
// (trimAt - trimTo) of the effective limit, so that clearings come no more often than trims;
// without it, the gap between the run's threshold and its target.
import { mapToolResults } from "../../messages/tool-results.js";
import { ROLE_CODES } from "../../messages/roles.js";
import type { MessageLike } from "../../messages/types.js";
import { messageTokens } from "../../tokens/message-tokens.js";
import type { CompactionLevel, LevelContext, LevelPlan } from "../compaction-level.js";
import type { HistoryView } from "../history-edit.js";

/** The text that replaces an old tool result at compaction level 2. */
export const CLEARED_TOOL_RESULT = "[Old tool result content cleared]";

export class ClearOldToolResults implements CompactionLevel {
  readonly level = 2;
  readonly name = "clear_old_tool_results";

  constructor(
    readonly keepUnits: number,
    readonly clearAtLeast: number | undefined,
  ) {}

  plan<M extends MessageLike>(view: HistoryView<M>, context: LevelContext): LevelPlan<M> {
    const { messages, roles, units, tokens } = view;
    // The last keepUnits units that hold tool results (a reasoning item's unit may hold none).
    const resultUnits = units.filter((u, i) => u >= 0 && roles[i] === ROLE_CODES.tool);
    const recent = new Set([...new Set(resultUnits)].slice(-this.keepUnits));
    const edits: Array<readonly [number, M]> = [];
    messages.forEach((m, i) => {
      const unit = units[i] ?? -1;
      if (roles[i] === ROLE_CODES.tool && unit >= 0 && !recent.has(unit)) {
        const cleared = mapToolResults(m, () => CLEARED_TOOL_RESULT);
        if (cleared !== m && !isCleared(m)) edits.push([i, cleared]);
      }
    });
    if (edits.length === 0) return {};
    // Oldest first, until the target is reached and at least clearAtLeast tokens are cleared.
    const after = messageTokens(view.counter, edits.map(([, m]) => m));
    const freed = edits.map(([i], k) => Math.max(0, (tokens[i] ?? 0) - (after[k] ?? 0)));
    const { threshold, targetShare, effectiveLimit } = context;
    const atLeast = this.clearAtLeast ?? Math.max(0, Math.floor(effectiveLimit * (threshold - Math.min(targetShare, threshold))));
    const excess = view.tokenUsage - context.target;
    let take = 0;
    let sum = 0;
    while (take < edits.length && (sum < excess || sum < atLeast)) sum += freed[take++] ?? 0;
    if (sum < atLeast && sum < excess) {
      return { skipped: `clearing every old tool result frees ${sum} tokens, less than clearAtLeast (${atLeast}) and than needed` };
    }
    return { edit: { kind: "replace", replacements: edits.slice(0, take) } };
  }
}

/** Whether every tool result of `message` is the notice already. */
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
