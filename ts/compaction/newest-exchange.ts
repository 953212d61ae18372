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
// the exchange go, as any other message would. A call too large for any cut (a command of thousands
// of tokens) may take the room of a summary a compaction wrote. And when even the pinned messages
// exceed the window, the last user message, unless pinned through the API, yields (lastUserYields).
import { newestExchange, planKept } from "../truncation/kept-plan.js";
import type { KeptPlan, MessageColumns, TruncationStrategy } from "../truncation/strategies.js";
import { FLAG_MARKED } from "../messages/metadata-reader.js";
import { ROLE_CODES } from "../messages/roles.js";
import type { MessageLike } from "../messages/types.js";
import { namedMarkerRoom, namedMarkerTokens } from "../messages/omission-marker.js";
import { messageTokens } from "../tokens/message-tokens.js";
import type { HistoryView } from "./history-edit.js";
import { messageId } from "./tool-events.js";
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
export function planTrim<M extends MessageLike>(
  view: HistoryView<M>,
  strategy: TruncationStrategy,
  targetTokens: number,
  limitTokens: number,
): TrimPlan<M> | undefined {
  // An omission marker already there stays unless the trim places its own: it takes its room, from
  // the target too. A target within a marker's size of the window (trimTo close to trimAt, or an
  // explicit target that is also the limit) would otherwise keep every message beside the old
  // marker and leave the request over the window by up to the marker.
  const window = view.conversationBudget(limitTokens);
  const room = Math.max(0, window - view.markerTokens);
  const target = Math.min(view.conversationBudget(targetTokens), room);
  const limit = Math.max(target, window - view.markerTokens);
  const planWithin = (columns: MessageColumns<M>): KeptPlan | undefined => {
    const plan = planKept(strategy, columns, target, view.counter, limit, view.markerTokens);
    if (plan === undefined || (plan.newestExchangeExcess ?? 0) === 0 || view.markerTokens === 0) return plan;
    // A trim that places its own marker replaces the old one (a named marker takes tens of
    // tokens): planned in the whole window, the exchange may fit where it did not beside both.
    const own = planKept(strategy, columns, target, view.counter, Math.max(target, window), view.markerTokens);
    return own !== undefined && own.markerIndex >= 0 && (own.newestExchangeExcess ?? 0) === 0 ? own : plan;
  };
  let plan = planWithin(view);
  if (plan === undefined) return undefined;
  // An old marker's names give way to the newest exchange: planned as if the marker were bare, it
  // is written again within what the kept messages leave it (history-editor.ts).
  // (The floor costs a count: read only when the exchange does not fit.)
  const floor = (plan.newestExchangeExcess ?? 0) > 0 ? view.markerFloorTokens : view.markerTokens;
  if (floor < view.markerTokens) {
    const bare = planKept(strategy, view, target, view.counter, Math.max(target, window - floor), view.markerTokens);
    if (bare?.tokens !== undefined && bare.markerIndex < 0 && (bare.newestExchangeExcess ?? 0) === 0)
      plan = { ...bare, markerTokens: Math.max(floor, Math.min(view.markerTokens, window - bare.tokens)) };
  }
  let cut: Array<readonly [number, M, number]> = [];
  const excess = plan.newestExchangeExcess ?? 0;
  if (excess > 0) {
    const results = cutNewestResults(view, excess) ?? [];
    const again = results.length === 0 ? undefined : planWithin(withCounts(view, results));
    if (again !== undefined && (again.newestExchangeExcess ?? 0) === 0) {
      plan = again;
      cut = results;
    }
  }
  // Still no room for the newest tool call and its results (a call or a note of thousands of
  // tokens, which no cut of a result makes room for): a summary a compaction wrote gives way, as
  // any older turn would; what it stood for stays recallable. In a chat without tools it stays.
  const wanted = newestExchange(view, true).filter((i) => (view.units[i] ?? -1) >= 0 || view.roles[i] === ROLE_CODES.tool);
  const keeps = (p: KeptPlan) => (p.newestExchangeExcess ?? 0) === 0 && wanted.every((i) => p.indices.includes(i));
  if (wanted.length > 0 && !keeps(plan) && view.messages.some((_, i) => view.isSummary(i))) {
    const results = excess > 0 && cut.length === 0 ? (cutNewestResults(view, excess) ?? []) : cut;
    const yielding = planWithin(summariesUnpinned(view, withCounts(view, results)));
    if (yielding !== undefined && keeps(yielding)) {
      plan = yielding;
      cut = results;
    }
  }
  // Still without the command run last before a note (the note itself the newest exchange, and
  // the two together over the window): the command's results are cut to what fits beside the note,
  // their notices naming the recall call, as the newest exchange's own would be, rather than the
  // whole unit dropped. The note is what the model answers next; the output it is about is what
  // the agent would otherwise run again.
  if (wanted.length > 0 && !keeps(plan) && plan.tokens !== undefined && (plan.newestExchangeExcess ?? 0) === 0) {
    const done = new Set(cut.map(([i]) => i));
    const results = wanted.filter((i) => view.roles[i] === ROLE_CODES.tool && !done.has(i));
    let missing = 0;
    for (const i of wanted) if (!plan.indices.includes(i)) missing += view.tokens[i] ?? 0;
    // What the plan keeps that a summary giving way would free is counted as room.
    let summaries = 0;
    for (const i of plan.indices) if (view.isSummary(i)) summaries += view.tokens[i] ?? 0;
    const over = plan.tokens + missing - limit;
    // The marker the plan places may grow by its reserve: a second try with that room.
    for (const excess of [over, over + namedMarkerSlack(limit), over - summaries, over - summaries + namedMarkerSlack(limit)]) {
      if (excess <= 0 || results.length === 0) continue;
      const more = cutResults(view, results, excess);
      if (more === undefined) continue;
      const counts = withCounts(view, [...cut, ...more]);
      let again = planWithin(counts);
      // With a summary giving way too, as above.
      if ((again === undefined || !keeps(again)) && view.messages.some((_, i) => view.isSummary(i)))
        again = planWithin(summariesUnpinned(view, counts));
      if (again !== undefined && keeps(again)) {
        plan = again;
        cut = [...cut, ...more];
        break;
      }
    }
  }
  const yielded = lastUserYields(view, plan, cut, limit);
  if (yielded !== undefined) ({ plan, cut } = yielded);
  // A plan past its target that places its own marker was planned beside the old one, which it
  // replaces: the old marker's room is the new one's too (within its share), so that it can name
  // what went rather than stand bare.
  if (plan.markerIndex >= 0 && plan.markerTokens !== undefined && view.markerTokens > 0 && (plan.tokens ?? 0) > target) {
    const room = window - (plan.tokens ?? 0) + namedMarkerTokens(target);
    plan = { ...plan, markerTokens: Math.max(plan.markerTokens, Math.min(namedMarkerRoom(target), room)) };
  }
  // A plan that keeps every message still shrinks an old marker it gives a budget (above).
  if (cut.length === 0 && plan.indices.length === view.messages.length && plan.markerTokens === undefined) return undefined;
  return { ...plan, cut: cut.map(([i, after]) => [i, after] as const) };
}

/** `columns` with the summaries a compaction wrote as plain messages: neither pinned nor system. */
function summariesUnpinned<M extends MessageLike>(view: HistoryView<M>, columns: MessageColumns<M>): MessageColumns<M> {
  const roles = Array.from(view.roles);
  const flags = Array.from(view.flags);
  for (let i = 0; i < roles.length; i++) {
    if (!view.isSummary(i)) continue;
    roles[i] = ROLE_CODES.assistant;
    flags[i] = (flags[i] ?? 0) & ~FLAG_MARKED;
  }
  return { ...columns, roles, flags };
}

/** `view`'s columns with the counts of `cut` in place of its messages'. */
function withCounts<M extends MessageLike>(view: HistoryView<M>, cut: ReadonlyArray<readonly [number, M, number]>): MessageColumns<M> {
  const tokens = Array.from(view.tokens);
  for (const [i, , count] of cut) tokens[i] = count;
  return { messages: view.messages, roles: view.roles, flags: view.flags, units: view.units, tokens };
}

/**
 * When even the pinned messages exceed the request's limit, the last user message, unless pinned
 * through the API (the task, `_preserve`), yields: cut to what fits (its notice naming its recall
 * id), or left out when no cut makes room. A request over the window fails at the provider; a
 * correction an agent framework sent is not worth that.
 */
function lastUserYields<M extends MessageLike>(
  view: HistoryView<M>,
  plan: KeptPlan,
  cut: Array<readonly [number, M, number]>,
  limit: number,
): { plan: KeptPlan; cut: Array<readonly [number, M, number]> } | undefined {
  if (plan.tokens === undefined || plan.tokens <= limit) return undefined;
  const excess = plan.tokens - limit;
  let user = view.roles.length - 1;
  while (user >= 0 && view.roles[user] !== ROLE_CODES.user) user--;
  const at = plan.indices.indexOf(user);
  if (user < 0 || at < 0 || ((view.flags[user] ?? 0) & FLAG_MARKED) !== 0 || cut.some(([i]) => i === user)) return undefined;
  const message = view.messages[user] as M;
  const tokens = view.tokens[user] ?? 0;
  if (typeof message.content === "string" && tokens - excess >= MIN_CUT_TOKENS) {
    const notice = `[Message truncated...; recall(${JSON.stringify(messageId(message))})]`;
    const after = {
      ...message,
      content: new ToolResultCompactor({ maxResultTokens: tokens - excess, truncationMessage: notice }).compactResult(
        message.content,
        view.counter,
      ),
    } as M;
    const [count] = messageTokens(view.counter, [after]);
    if (count !== undefined && tokens - count >= excess)
      return { plan: { ...plan, tokens: plan.tokens - (tokens - count) }, cut: [...cut, [user, after, count]] };
  }
  const indices = plan.indices.filter((i) => i !== user);
  // The marker stays before the message it preceded (the next one, when that was the user's).
  const markerIndex =
    plan.markerIndex < 0 || plan.markerIndex < at
      ? plan.markerIndex
      : plan.markerIndex === at && at === indices.length
        ? -1
        : plan.markerIndex - (plan.markerIndex > at ? 1 : 0);
  return { plan: { ...plan, indices, markerIndex, tokens: plan.tokens - tokens }, cut };
}

/**
 * The newest exchange's tool results cut so that together they free at least `excess` tokens,
 * each to one bound (halved until they do, down to MIN_CUT_TOKENS), with each one's new count; or
 * undefined when they cannot free that much.
 */
function cutNewestResults<M extends MessageLike>(view: HistoryView<M>, excess: number): Array<readonly [number, M, number]> | undefined {
  return cutResults(
    view,
    newestExchange(view).filter((i) => view.roles[i] === ROLE_CODES.tool),
    excess,
  );
}

/** The marker's room a plan may add to its reserve (1/16 of the limit, at most 200 tokens). */
function namedMarkerSlack(limit: number): number {
  return Math.min(200, Math.floor(limit / 16));
}

/** The tool results at `results` cut as cutNewestResults cuts the newest exchange's. */
function cutResults<M extends MessageLike>(
  view: HistoryView<M>,
  results: readonly number[],
  excess: number,
): Array<readonly [number, M, number]> | undefined {
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
