// Where a share of the window lies once the pinned messages are counted. In the default mode (no
// model: old results cleared, then whole turns dropped) trimAt and trimTo are shares of the room
// the pinned messages (the system prompt, system messages, the task, messages pinned through the
// API) leave, not of the whole window: no trim can take the pinned tokens, so a share of the whole
// window leaves the turns too little when they are large (SWE-agent's 4,800-token demonstration
// left a 16K window's turns 2,000 tokens at trimTo 0.6, where dropping the oldest turns kept twice
// as much), while a share of the room leaves them the same hysteresis whatever is pinned. Without
// pinned messages the two are the same. SUMMARIZE keeps shares of the window: a trim line nearer
// the window left a large result less room to arrive in while a summary was being written
// (measured on the trajectories: more turns dropped unread).
import type { HistoryView } from "./history-edit.js";
import { FLAG_MARKED } from "../messages/metadata-reader.js";
import { ROLE_CODES } from "../messages/roles.js";

/** The tokens of `view` that no level removes: fixed overhead, system and pinned messages. */
export function pinnedTokens(view: HistoryView): number {
  const { roles, flags, tokens, fixedTokens } = view;
  let pinned = fixedTokens;
  for (let i = 0; i < roles.length; i++) {
    if (roles[i] === ROLE_CODES.system || ((flags[i] ?? 0) & FLAG_MARKED) !== 0) pinned += tokens[i] ?? 0;
  }
  return pinned;
}

/**
 * The tokens at `share` of `limit` for `view`: its pinned tokens plus that share of the room they
 * leave (at most `limit`). `share` 1 is the limit itself.
 */
export function lineAt(view: HistoryView, limit: number, share: number): number {
  const pinned = Math.min(limit, pinnedTokens(view));
  return Math.floor(pinned + (limit - pinned) * share);
}

/** Which of a run's lines are shares of the room the pinned messages leave: none, its target, or its trigger too. */
export type RoomShares = "none" | "target" | "all";
