// ContextCompactor: old messages become one summary, written by the caller's model
// (or the built-in extractive summarizer), the recent ones stay as they are.
//
// A summary must carry the task: agents whose summaries drop the goal repeat their work. The
// default prompt asks for what an agent needs to continue, and the user's own messages stay
// verbatim beside the summary (up to keepUserTokens, newest first), so the goal and constraints
// survive in the user's words whatever the summarizer writes.
//
// Compaction never makes things worse: the summarizer's input is budgeted (long tool outputs are
// clipped first) so the call fits the summarizing model's window, the summary's text (the
// session's problems included) is cut to maxSummaryTokens if the model ignores the bound and its
// head kept under 100 tokens (summary-bound.ts), and a failing model leaves the messages as they
// were (reported through the logger and a 'failed' event).
import { describe, plainError, requireCount, requireString, typeError } from "../runtime/errors.js";
import { TypedEventEmitter } from "../runtime/event-emitter.js";
import { consoleLogger, type Logger } from "../runtime/logger.js";
import { messageTokens } from "../tokens/message-tokens.js";
import { native } from "../runtime/native.js";
import { resolveSummaryModel, type ResolvedModel, type SummaryModel } from "../models/summary-model.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import { ROLE_CODES, checkRole, type InsertedRole } from "../messages/roles.js";
import { ToolResultCompactor } from "./tool-result-compactor.js";
import type { MessageLike } from "../messages/types.js";
import { FLAG_MARKED, MetadataReader } from "../messages/metadata-reader.js";
import { checkMessage } from "../messages/message-shape.js";
import { eventLines, promptLine } from "./tool-events.js";
import { mergeSections, readSections, boundSections, writeSections } from "./summary-fold.js";
import { addRecords, readSummary, recordOf, withOneIdFewer, writeHead, type SummaryRecord } from "./summary-head.js";
import { cutToTokens, headWithin, withinBound } from "./summary-bound.js";

export const DEFAULT_SUMMARY_PROMPT =
  "You are compacting the earlier part of an agent's conversation: the agent will continue its task " +
  "from your summary alone. Write these sections, leaving out what the agent will not need:\n" +
  "1. Task: what the user asked for, quoted in the user's own words.\n" +
  "2. Constraints: every limit the user set (what must not change, what to avoid, dates, versions), in the user's words.\n" +
  "3. Files changed, each with what changed; then the files read.\n" +
  "4. Open problems: each error or failing check not yet resolved, with the last output that showed it, quoted exactly (file:line where given).\n" +
  "5. Last command: the last command or tool call run, and its outcome (pass and fail counts, exit status, the line it ended with).\n" +
  "6. Next step: what the agent said it would do next and has not done yet.\n" +
  "7. Findings and decisions, and the problems since resolved with what resolved them.\n" +
  'Write every number with what it counts ("212 tests pass", "dates.ts:41", "Basic churn 7.9%"), never a list of ' +
  "numbers alone; leave a fact out rather than write part of it. Be brief.\n\n";

/** Tells the task digest that the session's problem record is put beside it. */
const PROBLEMS_GIVEN = JSON.stringify({ type: "problems", given: true });

/** Compactors that choose their span as a model's compaction would (its summary counted at the bound) while they summarize with the digest. */
const plannedForModel = new WeakSet<object>();

/**
 * Makes `compactor` summarize with the offline digest what a compaction with a model would: the
 * same span, the digest's words (a preview plans a model's compaction without calling it). Not
 * exported from the package.
 */
export function planForModel(compactor: ContextCompactor): void {
  plannedForModel.add(compactor);
}

/** What choosing and writing a summary reads. */
interface SpanContext<M extends MessageLike> {
  model: ResolvedModel;
  messages: readonly M[];
  facts: ReadonlyArray<{ role: number } | undefined>;
  /** System, pinned and pinned units' messages: never summarized. */
  stays: (i: number) => boolean;
  /** Earlier summaries this compactor wrote: folded into the next one. */
  summaries: ReadonlySet<number>;
  counter: TokenCounter;
  problems: string;
  /** The conversation's tokens (countMessages) to reach. */
  target: number;
}

/** The messages before `end` a summary takes. */
interface Span<M extends MessageLike> {
  end: number;
  /** The span's messages that are not system or pinned: what the summarizer reads. */
  old: M[];
  /** Of those, the ones the summary replaces (the user messages kept beside it stay), and the earlier summaries it folds. */
  removed: M[];
  removedIndices: number[];
  keptUser: Set<M>;
  /** The earlier summaries' texts after their heads, oldest first. */
  earlierTexts: string[];
  /** The new summary's head: the earlier summaries' counts, sizes and ids with this span's. */
  record: SummaryRecord;
}

/** The message a compaction puts in place of the old ones. */
export interface SummaryMessage {
  role: InsertedRole;
  content: string;
}

export interface ContextCompactorOptions {
  /** The summarizing model: AI SDK LanguageModel, (prompt) => Promise<string>, invoke(), or extractiveSummarizer(). */
  model: SummaryModel;
  summaryPrompt?: string;
  /** The summary's bound (default 500 tokens); a longer answer is cut. */
  maxSummaryTokens?: number;
  /**
   * The user's own messages among the summarized ones stay verbatim beside the summary, up to this
   * many tokens, newest first when they do not all fit (default 2,000; 0 keeps none).
   */
  keepUserTokens?: number;
  /** Fewer messages than this are never summarized (default 4). */
  minMessagesToSummarize?: number;
  /** The summarizer's input bound (default 16,000 tokens): long tool outputs are clipped to fit. */
  maxInputTokens?: number;
  /** The summary message's role (default "system"; Anthropic's API takes system text only outside the messages). */
  summaryRole?: InsertedRole;
  logger?: Logger;
}

export interface CompactOptions {
  /** Recent non-system messages kept as they are (default 10); a tool unit is never split. */
  preserveLast?: number;
  /**
   * The session's open and resolved problems as a summary lists them (OpenProblems.describe): put
   * at the head of the summary's text, before what its bound cuts and within that bound
   * (summary-bound.ts), and given to the model.
   */
  problems?: string;
  /** Messages pinned beside `_preserve: true` ones (the history's own pins): never summarized. */
  pinned?: ReadonlySet<object>;
}

export interface CompactionResult<M> {
  messages: Array<M | SummaryMessage>;
  /** How many messages the summary replaced (0: nothing was done). */
  summarized: number;
  /** The user's messages from the summarized part kept verbatim beside the summary. */
  keptUserMessages?: M[];
  summary?: SummaryMessage;
  error?: Error;
}

interface Events {
  failed: [Error];
  compacted: [{ summarized: number; summaryTokens: number }];
}

export class ContextCompactor extends TypedEventEmitter<Events> {
  readonly summaryPrompt: string;
  readonly maxSummaryTokens: number;
  readonly keepUserTokens: number;
  readonly minMessagesToSummarize: number;
  readonly maxInputTokens: number;
  readonly summaryRole: InsertedRole;
  private readonly model: SummaryModel;
  private readonly logger: Logger;

  constructor(options: ContextCompactorOptions) {
    super();
    if (options === null || typeof options !== "object") throw typeError(`options must be an object, got ${describe(options)}`);
    if (options.model === undefined) throw typeError("options.model is required: the model that writes summaries");
    this.model = options.model;
    this.summaryPrompt = requireString(options.summaryPrompt ?? DEFAULT_SUMMARY_PROMPT, "options.summaryPrompt");
    this.maxSummaryTokens = requireCount(options.maxSummaryTokens ?? 500, "options.maxSummaryTokens", 1);
    this.keepUserTokens = requireCount(options.keepUserTokens ?? 2000, "options.keepUserTokens");
    this.minMessagesToSummarize = requireCount(options.minMessagesToSummarize ?? 4, "options.minMessagesToSummarize", 1);
    this.maxInputTokens = requireCount(options.maxInputTokens ?? 16000, "options.maxInputTokens", 64);
    this.logger = options.logger ?? consoleLogger;
    this.summaryRole = checkRole(options.summaryRole ?? "system", "options.summaryRole");
  }

  /** The messages with the old ones replaced by one summary message. */
  async compact<M extends MessageLike>(
    messages: readonly M[],
    targetTokens: number,
    counter: TokenCounter,
    options: CompactOptions = {},
  ): Promise<Array<M | SummaryMessage>> {
    return (await this.compactWithDetails(messages, targetTokens, counter, options)).messages;
  }

  /** compact() with what happened: how many messages were summarized, the summary, the error. */
  async compactWithDetails<M extends MessageLike>(
    messages: readonly M[],
    targetTokens: number,
    counter: TokenCounter,
    options: CompactOptions = {},
  ): Promise<CompactionResult<M>> {
    if (!Array.isArray(messages)) throw typeError(`messages must be an array, got ${describe(messages)}`);
    requireCount(targetTokens, "targetTokens");
    if (counter === null || typeof counter !== "object" || typeof (counter as Partial<TokenCounter>).countMessages !== "function") {
      throw typeError(`counter must be a TokenCounter, got ${describe(counter)}`);
    }
    if (options === null || typeof options !== "object") throw typeError(`options must be an object, got ${describe(options)}`);
    const preserveLast = requireCount(options.preserveLast ?? 10, "options.preserveLast");
    const problems = options.problems === undefined ? "" : requireString(options.problems, "options.problems");
    messages.forEach((m, i) => checkMessage(m, `messages[${i}]`));
    const unchanged: CompactionResult<M> = { messages: messages.slice(), summarized: 0 };
    const model = await resolveSummaryModel(this.model, "options.model");
    if (messages.length < this.minMessagesToSummarize) return unchanged;
    if (counter.countMessages(messages) <= targetTokens) return unchanged;

    // The cut: the last preserveLast non-system messages stay, moved back so no tool unit splits.
    const reader = new MetadataReader({ orphanToolResults: "drop", pinned: options.pinned });
    const facts = messages.map((m, i) => reader.read(m, i));
    let cut = messages.length;
    for (let kept = 0; cut > 0 && kept < preserveLast; ) {
      cut--;
      if (messages[cut]?.role !== "system") kept++;
    }
    // No unit splits: the cut moves back to the first message of every unit that has a message
    // after it (parallel Responses calls interleave with their outputs, so a unit need not be contiguous).
    const unit = (i: number) => facts[i]?.unit ?? -1;
    const firstOfUnit = new Map<number, number>();
    messages.forEach((_, i) => {
      if (unit(i) >= 0 && !firstOfUnit.has(unit(i))) firstOfUnit.set(unit(i), i);
    });
    for (let moved = true; moved; ) {
      moved = false;
      for (let i = cut; i < messages.length; i++) {
        const first = unit(i) >= 0 ? (firstOfUnit.get(unit(i)) ?? i) : i;
        if (first < cut) {
          cut = first;
          moved = true;
        }
      }
    }
    // System (and developer) and pinned messages are never summarized: they stay beside the
    // summary, with the rest of a pinned message's tool unit (a call never without its results).
    // The role is the core's reading of it, so a LangChain SystemMessage, which has no `role`, stays too.
    const marked = (i: number) => facts[i]?.role === ROLE_CODES.system || ((facts[i]?.flags ?? 0) & FLAG_MARKED) !== 0;
    const pinnedUnits = new Set<number>();
    messages.forEach((_, i) => {
      if (marked(i) && unit(i) >= 0) pinnedUnits.add(unit(i));
    });
    const stays = (i: number) => marked(i) || pinnedUnits.has(unit(i));
    // The places the summarized span may end: before `cut`, never inside a tool unit.
    const lastOfUnit = new Map<number, number>();
    messages.forEach((_, i) => {
      if (unit(i) >= 0) lastOfUnit.set(unit(i), i);
    });
    const ends: number[] = [];
    for (let end = 1, reach = -1; end <= cut; end++) {
      const u = unit(end - 1);
      if (u >= 0) reach = Math.max(reach, lastOfUnit.get(u) ?? end - 1);
      if (reach < end) ends.push(end);
    }
    // Earlier summaries are folded into the new one, so a span reaches past the last of them
    // (only what stays, or user messages kept beside it, can be before it).
    const summaries = new Set<number>();
    messages.forEach((m, i) => {
      if ((stays(i) || m.role === this.summaryRole) && readSummary((m as { content?: unknown }).content) !== undefined) summaries.add(i);
    });
    const lastSummary = Math.max(-1, ...summaries);
    const past = ends.filter((e) => e > lastSummary);
    const span: SpanContext<M> = { model, messages, facts, stays, summaries, counter, problems, target: targetTokens };
    const end = await this.chooseEnd(span, past.length > 0 ? past : ends);
    if (end === undefined) return unchanged;
    const result = await this.summarizePrefix(span, this.spanAt(span, end), unchanged);
    if (result.summary !== undefined)
      this.emit("compacted", { summarized: result.summarized, summaryTokens: counter.count(result.summary.content) });
    return result;
  }

  /**
   * Where the summarized span ends: the first of `ends` (oldest first) at which the summary and
   * the messages kept count at most the target, so that a compaction stops one unit past it at
   * most; the last end when none reaches it. The extractive digest is cheap and exact, so the
   * summary each end would make is written and counted (a binary search, the span's summary
   * growing with it); a model is called once, so its summary is counted at its bound.
   */
  private async chooseEnd<M extends MessageLike>(span: SpanContext<M>, ends: readonly number[]): Promise<number | undefined> {
    const { messages, counter } = span;
    const tokens = messageTokens(counter, messages);
    const frame = counter.countMessages([]);
    let total = frame;
    for (const t of tokens) total += t;
    const usage = new Map<number, number>();
    const usageAt = async (end: number): Promise<number> => {
      const known = usage.get(end);
      if (known !== undefined) return known;
      const parts = this.spanAt(span, end);
      let value = Number.POSITIVE_INFINITY;
      if (parts !== undefined) {
        let removed = 0;
        for (const i of parts.removedIndices) removed += tokens[i] ?? 0;
        value = total - removed + (await this.summaryTokens(span, parts));
      }
      usage.set(end, value);
      return value;
    };
    // An end whose span would not be summarized counts as not reaching the target.
    const last = ends[ends.length - 1];
    if (last === undefined || this.spanAt(span, last) === undefined) return undefined;
    if ((await usageAt(last)) > span.target) return last;
    // The smallest end that reaches the target (usage falls as the span grows, all but the
    // summary's own small steps), then back while the end before it reaches it too.
    let lo = 0;
    let hi = ends.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((await usageAt(ends[mid] as number)) <= span.target) hi = mid;
      else lo = mid + 1;
    }
    while (lo > 0 && (await usageAt(ends[lo - 1] as number)) <= span.target) lo--;
    return ends[lo];
  }

  /** The summary message's tokens for `parts`: written and counted by the digest, at the bound for a model. */
  private async summaryTokens<M extends MessageLike>(span: SpanContext<M>, parts: Span<M>): Promise<number> {
    const { counter } = span;
    if (span.model.kind === "extractive" && !plannedForModel.has(this)) {
      return messageTokens(counter, [(await this.writeSummary(span, parts)) as unknown as MessageLike])[0] ?? 0;
    }
    // A model's answer and the problems before it are cut to the bound: counted at the bound (a
    // token more for where they join), so that the summary it writes never takes the conversation
    // over the target.
    const head = this.summaryMessage(parts.record, "");
    return (messageTokens(counter, [head as unknown as MessageLike])[0] ?? 0) + this.maxSummaryTokens + 1;
  }

  /** The summarized span ending at `end`: its messages, the user messages kept beside it; undefined when it would not be summarized. */
  private spanAt<M extends MessageLike>(span: SpanContext<M>, end: number): Span<M> | undefined {
    const { messages, facts, stays, summaries, counter } = span;
    const oldIndices: number[] = [];
    const userIndices: number[] = [];
    const earlier: number[] = [];
    for (let i = 0; i < end; i++) {
      if (summaries.has(i)) {
        earlier.push(i);
        continue;
      }
      if (!stays(i)) oldIndices.push(i);
      if (facts[i]?.role === ROLE_CODES.user) userIndices.push(i);
    }
    if (oldIndices.length === 0 || oldIndices.length < Math.min(2, this.minMessagesToSummarize)) return undefined;
    const keptUser = this.userMessagesToKeep(
      userIndices.map((i) => messages[i] as M),
      counter,
    );
    const taken = oldIndices.filter((i) => !keptUser.has(messages[i] as M));
    if (taken.length === 0) return undefined;
    const old = oldIndices.map((i) => messages[i] as M);
    const readBack = earlier.map(
      (i) => readSummary((messages[i] as { content?: unknown }).content) as { record: SummaryRecord; text: string },
    );
    const record = headWithin(addRecords([...readBack.map((r) => r.record), recordOf(taken.map((i) => messages[i] as M))]), counter);
    const removedIndices = [...earlier, ...taken].sort((a, b) => a - b);
    return {
      end,
      old,
      removedIndices,
      removed: removedIndices.map((i) => messages[i] as M),
      keptUser,
      earlierTexts: readBack.map((r) => r.text),
      record,
    };
  }

  /** The summarizer's input for `old`: the digest's event lines, or rendered lines within maxInputTokens for a model. */
  private inputLines<M extends MessageLike>(span: SpanContext<M>, old: readonly M[], soFar: readonly string[] = []): string[] {
    const { counter } = span;
    // Offline and unbounded by a window: the digest reads everything.
    if (span.model.kind === "extractive") return old.flatMap((m) => eventLines(m, (text) => text));
    // Within maxInputTokens: tool outputs clipped harder until it fits, then the oldest lines left out.
    const budget =
      this.maxInputTokens - counter.count(this.summaryPrompt) - (soFar.length === 0 ? 0 : counter.count(soFar.join("\n")) + 40);
    let lines: string[] = [];
    for (const perResult of [2000, 500, 150, 40]) {
      const clipper = new ToolResultCompactor({ maxResultTokens: perResult, truncationMessage: "[...]" });
      lines = old.map((m) => promptLine(m, (text) => clipper.compactResult(text, counter)));
      if (counter.count(lines.join("\n")) <= budget) break;
    }
    while (lines.length > 1 && counter.count(lines.join("\n")) > budget) lines.shift();
    return lines;
  }

  private summaryMessage(record: SummaryRecord, text: string): SummaryMessage {
    return { role: this.summaryRole, content: `${writeHead(record)}\n${text}` };
  }

  /**
   * The summary of `parts`, folding the earlier summaries: a model reads them as the summary so far
   * and its answer replaces them; the digest's text merges with theirs section by section.
   */
  private async writeSummary<M extends MessageLike>(span: SpanContext<M>, parts: Span<M>): Promise<SummaryMessage> {
    const { model, counter, problems } = span;
    let text = await this.summarizeLines(model, this.inputLines(span, parts.old, parts.earlierTexts), problems, parts.earlierTexts);
    if (text.trim() === "") throw plainError("the model returned an empty summary", "ERR_CTXWIN_INVALID_MODEL");
    if (model.kind === "extractive" && parts.earlierTexts.length > 0) {
      const given = problems !== "";
      const merged = [...parts.earlierTexts, text].map(readSections).reduce((older, newer) => mergeSections(older, newer, given));
      const room = given ? Math.max(1, this.maxSummaryTokens - counter.count(problems)) : this.maxSummaryTokens;
      text = boundSections(merged, room, counter) ?? writeSections(merged);
    }
    return this.summaryMessage(parts.record, withinBound(text, problems, this.maxSummaryTokens, counter));
  }

  /** Summarizes `parts` (system, pinned and kept user messages stay); `unchanged` when it would not pay. */
  private async summarizePrefix<M extends MessageLike>(
    span: SpanContext<M>,
    parts: Span<M> | undefined,
    unchanged: CompactionResult<M>,
  ): Promise<CompactionResult<M>> {
    if (parts === undefined) return unchanged;
    const { messages, stays, summaries, counter } = span;
    const { end, old, removed, keptUser } = parts;
    let summary: SummaryMessage;
    try {
      summary = await this.writeSummary(span, parts);
    } catch (cause) {
      // The caller's model's own error passes on unchanged. plain Error: a thrown non-Error becomes the
      // Error the event carries, with what was thrown as its cause (nothing of ctxwin failed).
      const error = cause instanceof Error ? cause : new Error(String(cause), { cause });
      this.logger.warn(`ctxwin: summarizing ${old.length} messages failed, keeping them: ${error.message}`);
      this.emit("failed", error);
      return { ...unchanged, error };
    }
    const systems = messages.slice(0, end).filter((_, i) => stays(i) && !summaries.has(i));
    const users = old.filter((m) => keptUser.has(m));
    // A summary that costs as much as the turns it replaces is not applied; first it names fewer ids.
    const body = summary.content.slice(summary.content.indexOf("\n") + 1);
    const removedTokens = counter.countMessages(removed);
    for (let record: SummaryRecord | undefined = parts.record; counter.countMessages([summary]) >= removedTokens; ) {
      record = withOneIdFewer(record);
      if (record === undefined) return unchanged;
      summary = this.summaryMessage(record, body);
    }
    return {
      messages: [...systems, summary, ...users, ...messages.slice(end)],
      summarized: removed.length,
      summary,
      keptUserMessages: users,
    };
  }

  /** The user's own messages of `old` that stay verbatim: newest first, within keepUserTokens. */
  private userMessagesToKeep<M extends MessageLike>(users: readonly M[], counter: TokenCounter): Set<M> {
    // Tool results sent with role "user" (Anthropic) are not the user's words: the metadata's role
    // 1 (user) excludes them.
    const kept = new Set<M>();
    if (this.keepUserTokens === 0 || users.length === 0) return kept;
    const tokens = messageTokens(counter, users);
    let budget = this.keepUserTokens;
    for (let i = users.length - 1; i >= 0; i--) {
      const cost = tokens[i] ?? 0;
      if (cost <= budget) {
        kept.add(users[i] as M);
        budget -= cost;
      }
    }
    return kept;
  }

  /** The summary text of `messages`. */
  async summarizeMessages(messages: readonly MessageLike[], counter?: TokenCounter): Promise<string> {
    if (!Array.isArray(messages)) throw typeError(`messages must be an array, got ${describe(messages)}`);
    messages.forEach((m, i) => checkMessage(m, `messages[${i}]`));
    const model = await resolveSummaryModel(this.model, "options.model");
    const lines =
      model.kind === "extractive" ? messages.flatMap((m) => eventLines(m, (t) => t)) : messages.map((m) => promptLine(m, (t) => t));
    const text = await this.summarizeLines(model, lines);
    return counter ? cutToTokens(text, counter, this.maxSummaryTokens) : text;
  }

  /**
   * The summary of `lines`: eventLines for the extractive digest, which writes out every tool
   * name, path and error (none may be lost); rendered lines after the prompt for a model.
   */
  private async summarizeLines(model: ResolvedModel, lines: string[], problems = "", soFar: readonly string[] = []): Promise<string> {
    // The task digest writes every path, tool and error, most needed sections first, so that the
    // bound cuts what is least needed. The session's problems are put beside the summary by the
    // caller; a model is told them so that its text agrees.
    // The digest leaves its own problem sections out when the session's record goes beside it.
    if (model.kind === "extractive") return native.summarizeTask(problems === "" ? lines : [...lines, PROBLEMS_GIVEN], true);
    const known =
      problems === "" ? "" : `The session's problems so far (the summary is sent with this list; do not repeat it):\n${problems}\n\n`;
    // The earlier summary is the model's to carry over: its answer replaces it.
    const earlier =
      soFar.length === 0
        ? ""
        : `The summary so far, of the messages before these (your summary replaces it: keep what the agent still needs from it, newer facts winning):\n${soFar.join("\n")}\n\nThe messages since:\n`;
    return model.call(this.summaryPrompt + known + earlier + lines.join("\n"));
  }
}
