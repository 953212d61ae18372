// Level 2: old tool results are replaced by a placeholder, oldest first, only until the history is
// at the run's target; the calls stay, so the conversation stays valid, and the results of the
// last `keepUnits` tool units and pinned results stay whole. The placeholder names the size of
// the result and the call that reads it back by its tool call's id (the recall tool, ts/recall/),
// and keeps how its run went (the core's cleared_result, judged with the call): a failed run's
// error lines, so a failure stays in front of the model after its output is gone, and a passing
// run's outcome line, so the success that fixed it does too; a read (`cat`, `sed -n`, a view) keeps
// nothing, its output being content:
//
//   [tool result cleared: 5.2 KB; recall("call_17")]
//   Error lines kept:
//   Error: duplicate charge detected for ch_17_5
//
//   [tool result cleared: 2.8 KB; recall("call_21")]
//   Outcome kept: Tests  212 passed (212)
//
// At least `clearAtLeast` tokens go at once, or none (unless clearing less reaches the target, or
// only a trim follows, which drops whole turns): a clearing breaks the prompt cache from the first
// cleared result on, and clearing little at a time would break it every few requests.
// MessageContextManager passes the room a trim makes,
// (trimAt - trimTo) of the effective limit, so that clearings come no more often than trims;
// without it, the gap between the run's threshold and its target. A result whose placeholder
// would cost as much as it does is never cleared.
import { toolOutputText } from "../../messages/message-shape.js";
import { ROLE_CODES } from "../../messages/roles.js";
import { mapToolResults } from "../../messages/tool-results.js";
import type { MessageLike } from "../../messages/types.js";
import { native } from "../../runtime/native.js";
import {
  isProtected,
  newestExchangeOf,
  takeOldestUntilTarget,
  type CompactionLevel,
  type LevelContext,
  type LevelPlan,
} from "../compaction-level.js";
import type { HistoryView } from "../history-edit.js";
import { messageId, toolCallsById } from "../tool-events.js";

/** How every placeholder of a cleared tool result begins. */
export const CLEARED_TOOL_RESULT = "[tool result cleared: ";

/** Whether `text` is the placeholder of a cleared tool result. */
export function isClearedToolResult(text: unknown): boolean {
  return typeof text === "string" && text.startsWith(CLEARED_TOOL_RESULT);
}

export class ClearOldToolResults implements CompactionLevel {
  readonly level = 2;
  readonly name = "clear_old_tool_results";

  constructor(
    readonly keepUnits: number,
    readonly clearAtLeast: number | undefined,
  ) {}

  plan<M extends MessageLike>(view: HistoryView<M>, context: LevelContext): LevelPlan<M> {
    const { messages, roles, units } = view;
    // The last keepUnits units that hold tool results (a reasoning item's unit may hold none).
    const resultUnits: number[] = [];
    for (let i = 0; i < units.length; i++) {
      const unit = units[i] ?? -1;
      if (unit >= 0 && roles[i] === ROLE_CODES.tool) resultUnits.push(unit);
    }
    const recent = new Set([...new Set(resultUnits)].slice(-this.keepUnits));
    const old: number[] = [];
    const newest = newestExchangeOf(view);
    messages.forEach((m, i) => {
      const unit = units[i] ?? -1;
      if (roles[i] === ROLE_CODES.tool && unit >= 0 && !recent.has(unit) && !isProtected(view, i) && !newest.has(i) && !isCleared(m))
        old.push(i);
    });
    if (old.length === 0) return {};
    // Every result's text, call id and call (a read keeps no lines, a passing run its outcome),
    // then every placeholder in one core call.
    const texts: string[] = [];
    const ids: string[] = [];
    const tools: string[] = [];
    const args: string[] = [];
    const calls = toolCallsById(messages);
    for (const i of old) {
      mapToolResults(messages[i] as M, (value, _kind, id) => {
        const call = id === undefined ? undefined : calls.get(id);
        texts.push(isClearedToolResult(value) ? (value as string) : toolOutputText(value));
        ids.push(id ?? messageId(messages[i] as M));
        tools.push(call?.name ?? "");
        args.push(JSON.stringify(call?.args ?? null) ?? "null");
        return value;
      });
    }
    const placeholders = native.clearedToolResults(texts, ids, tools, args).map((text, k) => withRecallHint(text, ids[k] as string));
    let next = 0;
    const replacements = old.map((i) => {
      const cleared = mapToolResults(messages[i] as M, (value) => {
        const placeholder = placeholders[next++] as string;
        return isClearedToolResult(value) ? value : placeholder;
      });
      return [i, cleared, messageId(messages[i] as M)] as const;
    });
    const { threshold, targetShare, effectiveLimit } = context;
    const atLeast = this.clearAtLeast ?? Math.max(0, Math.floor(effectiveLimit * (threshold - Math.min(targetShare, threshold))));
    const plan = takeOldestUntilTarget(view, context, replacements, atLeast);
    if (plan === undefined) return {};
    const sum = plan.taken.reduce((total, unit) => total + unit.freed, 0);
    // Less than clearAtLeast and short of the target: a summary (which reads the results whole)
    // breaks the cache next anyway. When only a trim follows, everything is cleared first, so that
    // the trim drops as few turns as it can (it breaks the cache as early).
    if (sum < atLeast && sum < view.tokenUsage - context.target && !context.trimFollows) {
      return { skipped: `clearing every old tool result frees ${sum} tokens, less than clearAtLeast (${atLeast}) and than needed` };
    }
    return plan;
  }
}

/**
 * The core's placeholder with the call that reads the result back in place of its bare id: its
 * first line, `[tool result cleared: 5.2 KB, id call_17]`, becomes
 * `[tool result cleared: 5.2 KB; recall("call_17")]`. The id is named once, in the call, so that
 * a placeholder costs about what it did: clearing stays enough where it was (a longer one tips
 * sessions into summaries sooner).
 */
export function withRecallHint(placeholder: string, id: string): string {
  const head = `, id ${id}]`;
  const at = placeholder.indexOf(head);
  if (at < 0) return placeholder;
  return `${placeholder.slice(0, at)}; recall(${JSON.stringify(id)})]${placeholder.slice(at + head.length)}`;
}

/** Whether every tool result of `message` is a placeholder already. */
function isCleared(message: MessageLike): boolean {
  let cleared = true;
  let seen = false;
  mapToolResults(message, (value) => {
    seen = true;
    if (!isClearedToolResult(value)) cleared = false;
    return value;
  });
  return seen && cleared;
}
