// A trim that keeps the exchange the model is about to answer (DESIGN.md invariant 13): the last
// message, system messages aside, with its tool unit (the calls the model just made and the
// results it is about to read). Without it the agent runs the same command again, or answers
// without its output.
//
// A trim aims at its target (trimTo of the window, for the hysteresis) but stops before that
// exchange: the strategy, planned in the core, drops older messages first and keeps the exchange
// while the request (pinned messages, marker, exchange) fits the window. When even that does not
// fit, the exchange's tool results are cut to what fits, their notices naming the recall call that
// reads them back whole (`[Output truncated...; recall("call_17")]`), and the trim is planned again
// on the cut counts; only when no cut makes room (a result cannot shrink below its notice) does
// the exchange go, as any other message would.
import { newestExchange, planKept, type KeptPlan, type TruncationStrategy } from "../history/strategies.js";
import { ROLE_CODES } from "../messages/roles.js";
import type { MessageLike } from "../messages/types.js";
import { messageTokens } from "../tokens/message-tokens.js";
import type { HistoryView } from "./history-edit.js";
import { ToolResultCompactor } from "./tool-result-compactor.js";

/** What a trim does: the messages it keeps and, first, the newest exchange's results it cuts in place. */
export interface TrimPlan<M> extends KeptPlan {
  cut: Array<readonly [index: number, after: M]>;
}

/** The least a cut result keeps, in tokens: its head, the notice and the recall call. */
const MIN_CUT_TOKENS = 32;

/**
 * The trim of `view` with `strategy` down to a request of `targetTokens`, keeping the newest
 * exchange while the request fits `limitTokens` (the window) with it; undefined when the trim
 * would change nothing.
 */
export function planTrim<M extends MessageLike>(view: HistoryView<M>, strategy: TruncationStrategy, targetTokens: number, limitTokens: number): TrimPlan<M> | undefined {
  const target = view.conversationBudget(targetTokens);
  // An omission marker already there stays unless the trim places its own: it takes its room.
  const limit = Math.max(target, view.conversationBudget(limitTokens) - view.markerTokens);
  const kept = planKept(strategy, view, target, view.counter, limit);
  if (kept === undefined) return undefined;
  const excess = kept.newestExchangeExcess ?? 0;
  if (excess > 0) {
    const cut = cutNewestResults(view, excess);
    if (cut !== undefined) {
      const tokens = Array.from(view.tokens);
      for (const [i, , count] of cut) tokens[i] = count;
      const columns = { messages: view.messages, roles: view.roles, flags: view.flags, units: view.units, tokens };
      const again = planKept(strategy, columns, target, view.counter, limit);
      if (again !== undefined && (again.newestExchangeExcess ?? 0) === 0) return { ...again, cut: cut.map(([i, after]) => [i, after] as const) };
    }
  }
  if (kept.indices.length === view.messages.length) return undefined;
  return { ...kept, cut: [] };
}

/**
 * The newest exchange's tool results cut so that together they free at least `excess` tokens,
 * each to one bound (halved until they do, down to MIN_CUT_TOKENS), with each one's new count; or
 * undefined when they cannot free that much.
 */
function cutNewestResults<M extends MessageLike>(view: HistoryView<M>, excess: number): Array<readonly [number, M, number]> | undefined {
  const results = newestExchange(view).filter((i) => view.roles[i] === ROLE_CODES.tool);
  if (results.length === 0) return undefined;
  let total = 0;
  for (const i of results) total += view.tokens[i] ?? 0;
  let bound = Math.max(MIN_CUT_TOKENS, Math.floor((total - excess) / results.length));
  for (;;) {
    const compactor = new ToolResultCompactor({ maxResultTokens: bound });
    const after = results.map((i) => compactor.compactMessage(view.messages[i] as M, view.counter, { nameRecall: true }));
    const counts = messageTokens(view.counter, after);
    let freed = 0;
    results.forEach((i, k) => (freed += (view.tokens[i] ?? 0) - (counts[k] ?? 0)));
    if (freed >= excess) {
      // A result under the bound comes back as a copy that frees nothing: left as it is.
      return results.flatMap((i, k) => ((counts[k] ?? 0) < (view.tokens[i] ?? 0) ? [[i, after[k] as M, counts[k] ?? 0] as const] : []));
    }
    if (bound <= MIN_CUT_TOKENS) return undefined;
    bound = Math.max(MIN_CUT_TOKENS, Math.floor(bound / 2));
  }
}
