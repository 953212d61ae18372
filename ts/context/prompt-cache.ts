// How much of each request a provider's prompt cache could serve: the tokens of its prefix that
// the previous request had too. Each getContextForRequest() is a request; the shared prefix is the
// system prompt (unless it changed) and the conversation up to the first position an edit touched
// since, tracked from the edits (O(changed)), never by re-reading the messages.
//
// With a CostLedger (the `cost` option), each request is also billed through the provider's cache
// model: breakpoints where ctxwin's cache hints put them (end of the system prompt, the omission
// marker that closes the last compaction, the newest turn).
import type { HistoryView } from "../compaction/history-edit.js";
import { lineAt } from "../compaction/room-share.js";
import type { CompactionTiming } from "../cost/compaction-timing.js";
import type { CostLedger, CostStats } from "../cost/cost-ledger.js";
import type { HistoryColumns } from "./history-columns.js";
import type { MessageLike } from "../messages/types.js";

export interface CacheStats {
  requests: number;
  /** Prompt tokens of all requests. */
  promptTokens: number;
  /** Tokens of each request's prefix that the previous request had too, summed. */
  sharedPrefixTokens: number;
  /** sharedPrefixTokens / promptTokens (0 before the first request). */
  cacheableShare: number;
}

export class PromptCacheAccounting {
  private requests = 0;
  private promptTokens = 0;
  private sharedPrefixTokens = 0;
  /** Conversation tokens (marker included) of the last request still the prefix of the history now. */
  private stablePrefix = 0;
  /** The system prompt the last request carried (compared, not tracked: a prompt changed and changed back is the same prefix). */
  private lastSystemPrompt: string | undefined;
  /** The conversation tokens of the last request: an edit since brings stablePrefix below them. */
  private lastConversation = 0;
  /** Bills each request in dollars when the manager was given a `cost` option. */
  ledger: CostLedger | undefined;
  /** Times trims by the cache's prices (the `compactionTiming: "cache-aware"` option). */
  timing: CompactionTiming | undefined;

  /**
   * A request of `total` tokens is sent: its prefix shared with the previous one is the system
   * prompt (unless it changed) and the conversation up to the first position an edit touched since.
   */
  request(total: number, systemPrompt: string | undefined, systemTokens: number, conversationTokens: number, boundaryTokens = 0): void {
    const shared = this.requests > 0 && systemPrompt === this.lastSystemPrompt ? systemTokens + this.stablePrefix : 0;
    if (this.ledger !== undefined) {
      // Counts are whole tokens; a reported usage scaled by a ratio is rounded up (an upper bound).
      const tokens = Math.ceil(total);
      const fixed = Math.min(systemTokens, tokens);
      // The newest turn's breakpoint ends the conversation: the request's own overhead (reply
      // priming) follows it and is no prefix of the next request.
      const breakpoints = [
        ...new Set([fixed, Math.min(tokens, systemTokens + boundaryTokens), Math.min(tokens, systemTokens + conversationTokens)]),
      ].filter((b) => b > 0);
      const added = Math.max(0, conversationTokens - (this.requests > 0 ? this.stablePrefix : 0));
      this.timing?.observe(
        added,
        tokens,
        this.requests > 0 && (this.stablePrefix < this.lastConversation || systemPrompt !== this.lastSystemPrompt),
      );
      this.ledger.record({
        inputTokens: tokens,
        sharedPrefixTokens: Math.min(Math.floor(shared), tokens),
        breakpoints,
        fixedTokens: fixed,
        addedTokens: Math.min(added, tokens),
      });
    }
    this.requests++;
    this.promptTokens += total;
    this.sharedPrefixTokens += Math.min(shared, total);
    this.stablePrefix = conversationTokens;
    this.lastConversation = conversationTokens;
    this.lastSystemPrompt = systemPrompt;
  }

  /**
   * The history changes at `position` (in its order before the change): the prefix the next
   * request shares ends there. `markerKept`: the omission marker before `position`, if any, is
   * unchanged.
   */
  touched<M extends MessageLike>(history: HistoryColumns<M>, position: number, markerKept = true): void {
    if (this.requests === 0) return;
    this.stablePrefix = Math.min(this.stablePrefix, history.tokensBefore(position, markerKept));
  }

  /** The history was replaced or cleared: the next request shares no conversation with the last. */
  restart(): void {
    this.stablePrefix = 0;
  }

  /**
   * The usage (tokens) above which the manager trims: trimAt, or where a trim pays through the cache
   * (cache-aware timing). With `room` (the default mode's history) trimAt and trimTo are shares of
   * the room its pinned messages leave (compaction/room-share.ts).
   */
  trimLine(limit: number, trimAt: number, trimTo: number, room?: HistoryView): number {
    // No line of the room lies below the window's (pinned tokens only raise it): most calls end here.
    if (room !== undefined && room.tokenUsage <= limit * Math.min(trimAt, trimTo)) return limit;
    const at = room === undefined ? limit * trimAt : lineAt(room, limit, trimAt);
    const to = room === undefined ? limit * trimTo : lineAt(room, limit, trimTo);
    return this.timing?.trimLine(limit, to, at) ?? at;
  }

  /** The dollars of the requests so far (undefined without a `cost` option). */
  get cost(): CostStats | undefined {
    return this.ledger?.stats;
  }

  get stats(): CacheStats {
    const { requests, promptTokens, sharedPrefixTokens } = this;
    return { requests, promptTokens, sharedPrefixTokens, cacheableShare: promptTokens === 0 ? 0 : sharedPrefixTokens / promptTokens };
  }
}
