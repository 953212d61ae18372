// Level 3: old turns become one summary written by a model (ContextCompactor), placed where the
// first of them was and pinned; the recent turns, the newest exchange, system messages and the
// user's own words (up to a bound) stay. The model is called only while the circuit breaker lets it.
//
// The summary is written while the history goes on: its edit names the summarized messages
// themselves, so that messages added meanwhile stay, and a summary whose messages were meanwhile
// trimmed away is dropped rather than misplaced.
import { FLAG_MARKED } from "../../messages/metadata-reader.js";
import { ROLE_CODES } from "../../messages/roles.js";
import type { MessageLike } from "../../messages/types.js";
import type { CircuitBreaker } from "../circuit-breaker.js";
import { REPEAT_NOTICE, newestExchangeOf, type CompactionLevel, type LevelContext, type LevelPlan } from "../compaction-level.js";
import type { ContextCompactor } from "../context-compactor.js";
import type { HistoryView } from "../history-edit.js";
import type { TokenCounter } from "../../tokens/token-counter.js";

export class Summarize implements CompactionLevel {
  readonly level = 3;
  readonly name = "summarize";
  /** The summary prompt's tokens per counter (checked on every addMessage in SUMMARIZE mode). */
  private readonly promptTokens = new WeakMap<TokenCounter, number>();

  constructor(
    /** Writes the summaries; without one this level is skipped. */
    readonly compactor: ContextCompactor | undefined,
    /** Recent messages kept out of the summary. */
    readonly preserveLast: number,
    readonly breaker: CircuitBreaker,
  ) {}

  /** Whether the model may be called now: there is one, and the circuit breaker lets the call through. */
  canSummarize(now = Date.now()): boolean {
    return this.compactor !== undefined && this.breaker.allows(now);
  }

  /**
   * Level 3 runs even when the history is at its target once the messages a summary would take no
   * longer fit the summarizer's input budget: the summary would otherwise have to leave some out.
   */
  neededEarly<M extends MessageLike>(view: HistoryView<M>): boolean {
    if (!this.canSummarize()) return false;
    const capacity = this.summarizerCapacity(view.counter);
    // O(1) on the common path (addMessage stays O(1)): the part to summarize is never more than the conversation.
    if (view.conversationTokens < capacity) return false;
    return this.summarizableTokens(view) >= capacity;
  }

  /**
   * Tokens of the messages a summary would take now: those before the last `preserveLast`
   * non-system messages, without system and pinned ones.
   */
  summarizableTokens<M extends MessageLike>(view: HistoryView<M>): number {
    const { roles, tokens, flags } = view;
    let kept = 0;
    let cut = roles.length;
    while (cut > 0 && kept < this.preserveLast) {
      cut--;
      if (roles[cut] !== ROLE_CODES.system) kept++;
    }
    let total = 0;
    for (let i = 0; i < cut; i++) if (roles[i] !== ROLE_CODES.system && ((flags[i] ?? 0) & FLAG_MARKED) === 0) total += tokens[i] ?? 0;
    return total;
  }

  /** The summarizer's input budget left for messages (its budget less the prompt), or Infinity without one. */
  summarizerCapacity(counter: TokenCounter): number {
    const c = this.compactor;
    if (c === undefined) return Number.POSITIVE_INFINITY;
    let prompt = this.promptTokens.get(counter);
    if (prompt === undefined) {
      prompt = counter.count(c.summaryPrompt);
      this.promptTokens.set(counter, prompt);
    }
    return c.maxInputTokens - prompt;
  }

  async plan<M extends MessageLike>(view: HistoryView<M>, context: LevelContext): Promise<LevelPlan<M>> {
    const compactor = this.compactor;
    if (compactor === undefined) return { skipped: "no llm" };
    if (!this.canSummarize(Date.now())) return { skipped: "circuit breaker open" };
    const snapshot = view.messages.slice();
    const roles = view.roles;
    const summarizable = snapshot.filter((_, i) => roles[i] !== ROLE_CODES.system);
    if (context.repeated(summarizable)) return { skipped: REPEAT_NOTICE };
    this.breaker.calling();
    const goal = context.early ? 0 : context.target;
    const result = await compactor.compactWithDetails(snapshot, Math.max(0, goal - view.fixedTokens), view.counter, {
      // At least the last message stays: the summary never splits a tool unit, so the newest exchange stays whole.
      // The last `preserveLast` stay out of the summary only while the target can be reached
      // without them: the compactor takes the oldest turns first and only as many as the target
      // needs, so with a lower bound it takes them only when it must. Past that, level 4 would drop
      // them unread (their failures, their edits); summarized, what they did stays in front of the
      // model. An early run (for the summarizer's input budget) keeps them all.
      preserveLast: context.early ? Math.max(1, this.preserveLast) : 1,
      problems: context.problems,
      // Pinned messages stay beside the summary, and so does the newest tool unit (the command run
      // last and its output) when notes and corrections after it outnumber preserveLast.
      pinned: new Set([
        ...snapshot.filter((_, i) => ((view.flags[i] ?? 0) & FLAG_MARKED) !== 0),
        ...[...newestExchangeOf(view)].map((i) => snapshot[i] as M),
      ] as object[]),
    });
    if (result.error) {
      this.breaker.failed(result.error);
      throw result.error;
    }
    this.breaker.succeeded();
    if (result.summarized === 0 || !result.summary) return { candidates: summarizable };
    const kept = new Set<object>(result.messages as object[]);
    const removed = snapshot.filter((m) => !kept.has(m));
    return { edit: { kind: "summarize", removed, summary: result.summary }, candidates: summarizable };
  }
}
