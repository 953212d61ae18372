// A compaction's plan, made without changing anything: the same levels run, in the same order,
// over a copy of the history (HistoryEditor.copy) with a fork of the manager's compaction (its
// circuit breaker and what each level freed nothing from last time), and every edit they plan is
// applied to the copy only. Whatever the levels would clear, cut, summarize or drop is listed
// unit by unit with its stable id and the tokens it frees, beside the request's tokens (and input
// dollars, where the catalog prices the model) before and after.
//
// The copy follows the manager's policy too: an edit after which the manager would trim (its
// autoTruncate: during a compaction, only a request past the window) is followed by the same trim here, so the plan is what compactIfNeeded does next
// when nothing is added in between. Level 3 is planned offline with the extractive summarizer
// unless the manager's own summarizer is that one: a preview never pays for a model call.
import { resolveModel } from "../catalog/model-registry.js";
import type { CompactionLevelName } from "../compaction/compaction-level.js";
import type { AppliedEdit, HistoryEdit } from "../compaction/history-edit.js";
import { driveRun, type CompactionLevelReport, type ProgressiveCompaction } from "../compaction/progressive-compaction.js";
import { messageId } from "../compaction/tool-events.js";
import type { ContextLimits } from "../budget/context-limits.js";
import type { TruncationStrategy } from "../truncation/strategies.js";
import { planTrim } from "../compaction/newest-exchange.js";
import { messageTokens } from "../tokens/message-tokens.js";
import type { MessageLike } from "../messages/types.js";
import { ExtractiveSummarizer, extractiveSummarizer } from "../models/extractive-summarizer.js";
import type { SummaryModel } from "../models/summary-model.js";
import { describe, rangeError, requireCount, typeError } from "../runtime/errors.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import type { HistoryEditor } from "./history-editor.js";
import { TruncationMode } from "./options.js";

export interface PreviewOptions {
  /** Plan a compaction down to this many request tokens (started when usage is above it). */
  target?: number;
  /** Plan what `compactIfNeeded({ threshold })` does: above `threshold` of the effective limit, down to `trimTo` (default 0.9, as there). Not with `target`. */
  threshold?: number;
}

/** What a unit goes through: its tool result cleared to a placeholder, cut to a bound, its reasoning cleared, summarized, or dropped by a trim. */
export type PreviewAction = "clear_reasoning" | "cut" | "clear" | "summarize" | "drop";

export interface PreviewUnit {
  /** The message's stable id (the tool call it makes or answers, else its own id or a content hash): the id a placeholder names and recall reads. */
  id: string;
  role: string;
  /** Its position in the history before the compaction. */
  index: number;
  /** The level that takes it (`"trim"` for a trim the manager's policy makes after a level's edit). */
  level: CompactionLevelName | "trim";
  action: PreviewAction;
  tokensBefore: number;
  /** Its tokens afterwards (0 when it goes). */
  tokensAfter: number;
  /** tokensBefore - tokensAfter. */
  freed: number;
}

export interface CompactionPreview {
  /** Whether a compaction would start at all (usage above its trigger, or level 3 due early). */
  runs: boolean;
  targetTokens: number;
  /** The request's tokens, before and after. */
  tokensBefore: number;
  tokensAfter: number;
  /** The conversation's messages (getMessages()), before and after. */
  messagesBefore: number;
  messagesAfter: number;
  /** Whether the request carries an omission marker after the run ("[N messages omitted]", one message more than messagesAfter). */
  omissionMarker: boolean;
  /** Every unit cleared, cut, summarized or dropped, in the order the levels take them. */
  units: PreviewUnit[];
  /** Each level as the compaction's report would give it. */
  levels: CompactionLevelReport[];
  /** The summary level 3 would write (always with the extractive summarizer: see `summarizer`). */
  summary?: { content: string; tokens: number };
  /** Who plans level 3: the extractive summarizer (in place of the manager's model, if it has another), or none without a summarizer. */
  summarizer: "extractive" | "none";
  /** Input dollars of the request before and after, where the catalog prices the model. */
  cost?: { inputPerMillion: number; before: number; after: number };
}

/** What a preview reads of its manager. */
export interface PreviewSource<M extends MessageLike> {
  model: string;
  editor: HistoryEditor<M>;
  compaction: ProgressiveCompaction;
  limits: ContextLimits;
  counter: TokenCounter;
  strategy: TruncationStrategy;
  summarizer: SummaryModel | undefined;
  trimAt: number;
  trimTo: number;
  /** The default mode's compaction aims at trimTo of the room the pinned messages leave (compaction/room-share.ts). */
  mode: TruncationMode;
  /** The manager trims after each change (autoTruncate): during a compaction, only past the window. */
  policy: "none" | "window";
}

export function checkPreviewOptions(options: unknown): PreviewOptions {
  if (options === null || typeof options !== "object" || Array.isArray(options))
    throw typeError(`options must be an object, got ${describe(options)}`);
  const { target, threshold } = options as PreviewOptions;
  if (target !== undefined && threshold !== undefined) throw typeError("options.target and options.threshold: give one of them");
  if (target !== undefined) requireCount(target, "options.target");
  if (threshold !== undefined && (typeof threshold !== "number" || !(threshold > 0 && threshold <= 1))) {
    throw (typeof threshold === "number" ? rangeError : typeError)(
      `options.threshold must be a number in (0, 1], got ${describe(threshold)}`,
    );
  }
  return { target, threshold };
}

/** Plans a compaction of `source`'s history without changing it. */
export async function previewCompaction<M extends MessageLike>(
  source: PreviewSource<M>,
  options: unknown = {},
): Promise<CompactionPreview> {
  const { target, threshold = 0.9 } = checkPreviewOptions(options);
  const editor = source.editor.copy();
  const view = editor.view();
  const before = view.messages.slice();
  const position = new Map<object, number>(before.map((m, i) => [m as object, i]));
  const summarizer =
    source.summarizer === undefined
      ? undefined
      : source.summarizer instanceof ExtractiveSummarizer
        ? source.summarizer
        : extractiveSummarizer();
  const compaction = source.compaction.fork(source.compaction.compactor === undefined ? undefined : summarizer);
  const limit = source.limits.effectiveLimit;
  const units: PreviewUnit[] = [];
  let summary: CompactionPreview["summary"];
  const unit = (m: M, level: PreviewUnit["level"], action: PreviewAction, tokensBefore: number, tokensAfter: number): PreviewUnit => ({
    id: messageId(m),
    role: typeof m.role === "string" ? m.role : String((m as { type?: unknown }).type ?? "item"),
    index: position.get(m as object) ?? -1,
    level,
    action,
    tokensBefore,
    tokensAfter,
    freed: tokensBefore - tokensAfter,
  });
  /** The manager's policy after an edit: while a compaction runs, it trims only a request past the window. */
  const policyTrim = () => {
    if (source.policy === "none" || view.tokenUsage <= limit) return;
    const trim = planTrim(view, source.strategy, Math.floor(limit * source.trimTo), limit);
    if (trim === undefined) return;
    applyCut(trim.cut, "trim");
    dropped(trim.indices, "trim");
    editor.trim(trim);
  };
  /** The newest exchange's results a trim cuts first: units, applied to the copy. */
  const applyCut = (cut: ReadonlyArray<readonly [number, M]>, level: PreviewUnit["level"]) => {
    const counts = messageTokens(
      source.counter,
      cut.map(([, after]) => after),
    );
    cut.forEach(([i, after], k) => {
      units.push(unit(view.messages[i] as M, level, "cut", view.tokens[i] ?? 0, counts[k] ?? 0));
      position.set(after as object, position.get(view.messages[i] as object) ?? -1);
    });
    editor.replace(cut);
  };
  const dropped = (kept: readonly number[], level: PreviewUnit["level"]) => {
    const keep = new Set(kept);
    view.messages.forEach((m, i) => keep.has(i) || units.push(unit(m, level, "drop", view.tokens[i] ?? 0, 0)));
  };
  const apply = (edit: HistoryEdit<M>, level: CompactionLevelName): AppliedEdit<M> => {
    if (edit.kind === "replace") {
      const tokensBefore = edit.replacements.map(([i]) => view.tokens[i] ?? 0);
      const changed = edit.replacements.map(([i]) => view.messages[i] as M);
      const count = editor.replace(edit.replacements);
      const action: PreviewAction =
        level === "clear_old_reasoning" ? "clear_reasoning" : level === "clear_old_tool_results" ? "clear" : "cut";
      edit.replacements.forEach(([i], k) => {
        const index = position.get(changed[k] as object) ?? -1;
        position.set(view.messages[i] as object, index); // a copy a later level takes again keeps its original's place
        units.push({
          ...unit(view.messages[i] as M, level, action, tokensBefore[k] ?? 0, view.tokens[i] ?? 0),
          id: messageId(changed[k] as M),
          index,
        });
      });
      policyTrim();
      return { changed: count, removed: [] };
    }
    if (edit.kind === "summarize") {
      const taken = edit.removed.map((m) => unit(m, level, "summarize", view.tokens[view.messages.indexOf(m)] ?? 0, 0));
      const applied = editor.summarize(edit.removed, edit.summary);
      if (applied.changed > 0) {
        units.push(...taken);
        const at = view.messages.indexOf(edit.summary as unknown as M);
        summary = { content: edit.summary.content, tokens: view.tokens[at] ?? 0 };
        policyTrim();
      }
      return applied;
    }
    const cut = edit.cut ?? [];
    applyCut(cut, level);
    dropped(edit.kept, level);
    const all = edit.kept.length === view.messages.length && edit.markerIndex < 0;
    const { removed } = all
      ? { removed: [] }
      : editor.trim({ indices: edit.kept.slice(), markerIndex: edit.markerIndex, markerTokens: edit.markerTokens });
    return { changed: removed.length + cut.length, removed };
  };
  const tokensBefore = view.tokenUsage;
  const runOptions =
    target === undefined
      ? {
          threshold,
          targetShare: source.trimTo,
          effectiveLimit: limit,
          room: source.mode === TruncationMode.SMART ? ("target" as const) : ("none" as const),
        }
      : { threshold: 1, targetShare: 1, effectiveLimit: limit, target };
  const report = await driveRun(compaction.run(view, runOptions), (edit, level) => apply(edit, level.name));
  const prices = resolveModel(source.model)?.prices;
  const perToken = prices === undefined ? undefined : prices.input / 1e6;
  return {
    runs: report.levels.some((level) => level.applied || level.skipped !== undefined || level.error !== undefined),
    targetTokens: report.targetTokens,
    tokensBefore,
    tokensAfter: view.tokenUsage,
    messagesBefore: before.length,
    messagesAfter: view.messages.length,
    omissionMarker: editor.history.marker !== undefined,
    units,
    levels: report.levels,
    ...(summary === undefined ? {} : { summary }),
    summarizer: summarizer === undefined ? "none" : "extractive",
    ...(perToken === undefined
      ? {}
      : { cost: { inputPerMillion: prices?.input ?? 0, before: tokensBefore * perToken, after: view.tokenUsage * perToken } }),
  };
}
