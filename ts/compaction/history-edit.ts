// What compaction works on and what it hands back: a read-only view of a history, and the edits
// its levels plan. Compaction never changes a history itself: the history's owner
// (MessageContextManager) applies each edit, with its own bookkeeping, and runs its policy once
// afterwards.
import type { MessageColumns } from "../truncation/strategies.js";
import type { MessageLike } from "../messages/types.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import type { SummaryMessage } from "./context-compactor.js";

/** A history as the compaction levels read it: its columns as they are now, and its totals. */
export interface HistoryView<M extends MessageLike = MessageLike> extends MessageColumns<M> {
  readonly counter: TokenCounter;
  /** The whole request's tokens as the model would receive it (anchored on reported usage and scaled). */
  readonly tokenUsage: number;
  /** The conversation's tokens (the messages' tokens summed, local counts). */
  readonly conversationTokens: number;
  /** Tokens the request costs beyond the conversation: the system prompt and the request's frame. */
  readonly fixedTokens: number;
  /** The omission marker's tokens (0 without one): counted in tokenUsage, not in the conversation. */
  readonly markerTokens: number;
  /** The least the omission marker takes once its names give way (its bare form; markerTokens when it names none). */
  readonly markerFloorTokens: number;
  /** Whether the message at `index` is a summary a compaction wrote (pinned, and recallable by the ids its head names). */
  isSummary(index: number): boolean;
  /** The conversation tokens, in local counts, that a request of `requestTokens` leaves (a trim's target). */
  conversationBudget(requestTokens: number): number;
}

/** A change to a history, planned over its view. */
export type HistoryEdit<M> =
  /** Puts `after` in place of the message at `index`, for each pair; every message stays where it is. */
  | { kind: "replace"; replacements: ReadonlyArray<readonly [index: number, after: M]> }
  /**
   * Removes `removed` and puts `summary` where the first of them is, pinned. The messages are found
   * by identity in the history as it is when the edit is applied (a summary is written while the
   * history goes on): messages added meanwhile stay, and when one of `removed` is gone, the edit
   * no longer applies.
   */
  | { kind: "summarize"; removed: readonly M[]; summary: SummaryMessage }
  /**
   * Keeps the messages at `kept`, in order, with the omission marker before kept[markerIndex] (-1:
   * none) at up to `markerTokens`; first puts `cut` in place (the newest exchange's results cut so
   * that the request fits with them: newest-exchange.ts).
   */
  | {
      kind: "trim";
      kept: readonly number[];
      markerIndex: number;
      markerTokens?: number | undefined;
      cut?: ReadonlyArray<readonly [index: number, after: M]>;
    };

/** What applying an edit did. */
export interface AppliedEdit<M> {
  /** Messages replaced, summarized or removed; 0 when the edit no longer applied. */
  changed: number;
  /** The messages a summary or a trim removed. */
  removed: M[];
}
