// Progressive compaction (seed 003 FR-4.3): the levels a managed history goes through when it
// nears its window, cheapest first, each only while usage is still above the threshold:
//   1. compact tool results above `maxToolResultTokens` (ToolResultCompactor),
//   2. replace tool results older than the last `keepToolResults` tool units by a short notice
//      (the calls stay, so the conversation stays valid),
//   3. summarize old turns with a model (ContextCompactor), when there is one,
//   4. truncate with the history's strategy.
// The levels work on a `CompactableHistory`: the view of its messages and the edits that
// MessageContextManager lends them, so that its bookkeeping stays its own.
import { requireCount } from "../runtime/errors.js";
import type { Logger } from "../runtime/logger.js";
import type { InsertedRole } from "../history/strategies.js";
import { mapToolResults } from "../tokens/message-shape.js";
import type { MessageLike, TokenCounter } from "../tokens/token-counter.js";
import type { SummaryModel } from "../models/summary-model.js";
import { ContextCompactor, type SummaryMessage } from "./context-compactor.js";
import { ToolResultCompactor } from "./tool-result-compactor.js";

/** The text that replaces an old tool result at compaction level 2. */
export const CLEARED_TOOL_RESULT = "[Old tool result content cleared]";

/** Role code of tool-result messages in the per-message metadata (history/message-metadata). */
const TOOL_ROLE = 3;

export interface CompactionLevelReport {
  level: 1 | 2 | 3 | 4;
  name: "compact_tool_results" | "clear_old_tool_results" | "summarize" | "truncate";
  /** False when usage was already under the threshold (or, for level 3, there is no llm). */
  applied: boolean;
  messagesChanged: number;
  tokensBefore: number;
  tokensAfter: number;
  error?: string;
}

export interface CompactionReport<M> {
  threshold: number;
  tokensBefore: number;
  tokensAfter: number;
  levels: CompactionLevelReport[];
  /** Messages replaced by compacted copies (levels 1 and 2): tell a session store. */
  replaced: Array<{ before: M; after: M }>;
  /** Messages a summary or a trim removed. */
  removed: M[];
  summary?: SummaryMessage;
}

/** What the levels need of a history: a read view of its messages and the edits they make. */
export interface CompactableHistory<M extends MessageLike> {
  readonly counter: TokenCounter;
  /** The whole request's tokens, as the model would receive it. */
  tokenUsage(): number;
  /** Tokens the request costs beyond the conversation (system prompt, request overhead). */
  fixedTokens(): number;
  messages(): readonly M[];
  roles(): readonly number[];
  tokens(): readonly number[];
  /** Tool-unit id per message (-1 outside a tool unit). */
  units(): readonly number[];
  /** Puts copies in place of messages at the given indices; returns how many changed. */
  replace(edits: Array<[number, M]>): number;
  /** Removes the messages at `positions` and pins `summary` where the first of them was. */
  spliceSummary(positions: number[], summary: SummaryMessage): void;
  /** Trims to `targetTokens`; returns the removed messages. */
  truncate(targetTokens: number): M[];
}

export interface ProgressiveCompactionOptions {
  /** Level 1: tool results above this many tokens are compacted (default 1000). */
  maxToolResultTokens?: number;
  /** Level 2: tool results of the last this many tool units stay whole (default 3). */
  keepToolResults?: number;
  /** Level 3: the summarizing model; without it level 3 is skipped. */
  llm?: SummaryModel;
  /** Level 3: recent messages kept out of the summary (default 10). */
  preserveLast?: number;
  /** Level 3: the summary message's role (default "system"). */
  summaryRole?: InsertedRole;
  logger?: Logger;
}

export class ProgressiveCompaction {
  /** Set when `llm` is given: level 3. */
  readonly compactor: ContextCompactor | undefined;
  private readonly toolResultCompactor: ToolResultCompactor;
  private readonly keepToolResults: number;
  private readonly preserveLast: number;

  constructor(options: ProgressiveCompactionOptions = {}) {
    this.toolResultCompactor = new ToolResultCompactor({ maxResultTokens: requireCount(options.maxToolResultTokens ?? 1000, "options.maxToolResultTokens", 16) });
    this.keepToolResults = requireCount(options.keepToolResults ?? 3, "options.keepToolResults");
    this.preserveLast = requireCount(options.preserveLast ?? 10, "options.preserveLast");
    this.compactor = options.llm === undefined ? undefined : new ContextCompactor({ model: options.llm, logger: options.logger, summaryRole: options.summaryRole });
  }

  /** Runs the levels on `history` until its usage is at most `threshold` of `effectiveLimit`. */
  async run<M extends MessageLike>(history: CompactableHistory<M>, threshold: number, effectiveLimit: number): Promise<CompactionReport<M>> {
    const limit = Math.floor(effectiveLimit * threshold);
    const report: CompactionReport<M> = { threshold, tokensBefore: history.tokenUsage(), tokensAfter: 0, levels: [], replaced: [], removed: [] };
    const over = () => history.tokenUsage() > limit;
    const replace = (edits: Array<[number, M]>) => {
      const messages = history.messages();
      for (const [i, after] of edits) report.replaced.push({ before: messages[i] as M, after });
      return history.replace(edits);
    };
    const level = async (n: 1 | 2 | 3 | 4, name: CompactionLevelReport["name"], run: () => Promise<number> | number, enabled = true) => {
      const before = history.tokenUsage();
      const entry: CompactionLevelReport = { level: n, name, applied: false, messagesChanged: 0, tokensBefore: before, tokensAfter: before };
      if (enabled && over()) {
        entry.applied = true;
        try {
          entry.messagesChanged = await run();
        } catch (error) {
          entry.error = error instanceof Error ? error.message : String(error);
        }
      }
      entry.tokensAfter = history.tokenUsage();
      report.levels.push(entry);
    };

    await level(1, "compact_tool_results", () => {
      const roles = history.roles();
      const tokens = history.tokens();
      const edits: Array<[number, M]> = [];
      history.messages().forEach((m, i) => {
        if (roles[i] === TOOL_ROLE && (tokens[i] ?? 0) > this.toolResultCompactor.maxResultTokens) {
          edits.push([i, this.toolResultCompactor.compactMessage(m, history.counter)]);
        }
      });
      return replace(edits);
    });

    await level(2, "clear_old_tool_results", () => {
      const roles = history.roles();
      const units = history.units();
      const recent = new Set([...new Set(units.filter((u) => u >= 0))].slice(-this.keepToolResults));
      const messages = history.messages();
      const edits: Array<[number, M]> = [];
      messages.forEach((m, i) => {
        const unit = units[i] ?? -1;
        if (roles[i] === TOOL_ROLE && unit >= 0 && !recent.has(unit)) edits.push([i, mapToolResults(m, () => CLEARED_TOOL_RESULT)]);
      });
      return replace(edits.filter(([i, m]) => m !== messages[i]));
    });

    await level(3, "summarize", async () => {
      const compactor = this.compactor as ContextCompactor;
      const snapshot = history.messages().slice();
      const target = Math.max(0, limit - history.fixedTokens());
      const result = await compactor.compactWithDetails(snapshot, target, history.counter, { preserveLast: this.preserveLast });
      if (result.error) throw result.error;
      if (result.summarized === 0 || !result.summary) return 0;
      // Apply to the history as it is now: messages added while the model ran stay, and a
      // summary whose messages were meanwhile trimmed away is dropped rather than misplaced.
      const summarized = snapshot.filter((m) => !result.messages.includes(m));
      const current = history.messages();
      const positions = summarized.map((m) => current.indexOf(m));
      if (positions.some((p) => p < 0)) return 0;
      report.summary = result.summary;
      report.removed.push(...summarized);
      history.spliceSummary(positions, result.summary);
      return summarized.length;
    }, this.compactor !== undefined);

    await level(4, "truncate", () => {
      const removed = history.truncate(limit);
      report.removed.push(...removed);
      return removed.length;
    });

    report.tokensAfter = history.tokenUsage();
    return report;
  }
}
