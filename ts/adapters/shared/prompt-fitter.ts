// The engine under every framework adapter: one model call's whole prompt in, the same prompt
// brought within the model's window out.
//
// A framework's tool loop hands the model its full history at every step. PromptFitter counts
// what the model will receive (messages, system prompt, tool definitions) with the model's own
// counter, and when that does not fit the window less the reserved output, runs ctxwin's levels on
// it (MessageContextManager over ProgressiveCompaction): compact large tool results, clear old ones,
// summarize old turns when a summarizer is given, trim. A tool call and its results stay one unit
// throughout. The adapters only translate their framework's messages to and from the shapes ctxwin
// reads.
//
// It is stateless per call except for two things that make later calls better: the per-model
// ratio of reported to counted tokens (observeUsage) and the summaries already written (a long
// history is summarized once, and the summary reused at every later step whose prompt starts with
// the same messages).
import { createHash, type Hash } from "node:crypto";
import type { CompactionReport } from "../../compaction/progressive-compaction.js";
import type { SummaryMessage } from "../../compaction/context-compactor.js";
import { ToolResultCompactor } from "../../compaction/tool-result-compactor.js";
import { ContextLimits, type LimitOverrides } from "../../history/context-limits.js";
import { MessageContextManager, TruncationMode } from "../../history/message-context-manager.js";
import { SlidingWindowStrategy, SmartTruncationStrategy, TokenBudgetStrategy, checkRole, type InsertedRole, type TruncationStrategy } from "../../history/strategies.js";
import { reportedInputTokens, UsageCalibration, type ReportedUsage } from "../../history/usage-calibration.js";
import type { SummaryModel } from "../../models/summary-model.js";
import { describe, rangeError, requireCount, requireString, typeError } from "../../runtime/errors.js";
import { consoleLogger, type Logger } from "../../runtime/logger.js";
import { getCounter } from "../../tokens/get-counter.js";
import { mapToolResults } from "../../tokens/message-shape.js";
import type { MessageLike, TokenCounter, ToolDefinition } from "../../tokens/token-counter.js";

/** The options every adapter takes. */
export interface ContextOptions {
  /** The model id: its window and output limit (ContextLimits.forModel) and its counter (getCounter). */
  model: string;
  /** Overrides for the model's limits (`maxTokens`, `contextLength`, `maxOutputTokens`, `reservedTokens`), or the limits themselves. */
  limits?: LimitOverrides | ContextLimits;
  /** The counter (default getCounter(model)). */
  counter?: TokenCounter;
  /** How the last level trims: a strategy, or a mode name (default "token_budget": the oldest tool units first). */
  strategy?: TruncationStrategy | "token_budget" | "smart" | "sliding_window";
  /** The share of the available window a prompt that does not fit is brought down to (default 0.8), so the next steps fit as they are. */
  trimTo?: number;
  /** Tool results of the last this many tool units stay whole (default 3); older ones are cleared. */
  keepToolResults?: number;
  /** Tool results above this many tokens are compacted (default 1000). */
  maxToolResultTokens?: number;
  /** Summarizes old turns when clearing tool results is not enough: an AI SDK model, a function, an `invoke()` model, or extractiveSummarizer(). */
  summarizer?: SummaryModel;
  /** Recent messages kept out of a summary (default 10). */
  preserveLast?: number;
  /**
   * The summary message's role (default "user": the summary follows the task, and several
   * providers take system messages only before the conversation).
   */
  summaryRole?: InsertedRole;
  /** Shared reported-to-counted ratios (default: one per adapter instance). */
  calibration?: UsageCalibration;
  logger?: Logger;
  /** Told about every call whose prompt had to be brought within the window. */
  onCompact?: (event: FitEvent) => void;
}

/** What one call's fitting did. */
export interface FitEvent {
  /** The prompt's tokens before and after (local counts, tools included). */
  tokensBefore: number;
  tokensAfter: number;
  /** What the prompt may use (window less reserved output and reserve, in local counts). */
  budget: number;
  /** The compaction levels' report (level 1 also ran on results compacted at earlier steps: those are not in it). */
  report: CompactionReport<MessageLike>;
}

export interface FitRequest {
  /** Tool definitions sent with the call. */
  tools?: readonly ToolDefinition[];
  /** The output the call reserves (default: the model's output limit). */
  maxOutputTokens?: number;
}

export interface FitResult<M> {
  /** The prompt to send: the caller's own messages where unchanged, copies where compacted, a summary where summarized. */
  messages: Array<M | SummaryMessage>;
  /** Whether anything changed. */
  changed: boolean;
  /** The prompt's exact local count, tools included. */
  tokens: number;
  budget: number;
}

const MAX_CACHED_SUMMARIES = 64;
/** Compacted tool results kept between calls (a loop re-sends the same results at every step). */
const MAX_CACHED_RESULTS = 1024;

export function checkContextOptions(options: unknown, name = "options"): ContextOptions {
  if (options === null || typeof options !== "object") throw typeError(`${name} must be an object, got ${describe(options)}`);
  const o = options as ContextOptions;
  requireString(o.model, `${name}.model`);
  if (o.trimTo !== undefined && (typeof o.trimTo !== "number" || !(o.trimTo > 0 && o.trimTo <= 1))) throw rangeError(`${name}.trimTo must be a number in (0, 1], got ${describe(o.trimTo)}`);
  if (o.keepToolResults !== undefined) requireCount(o.keepToolResults, `${name}.keepToolResults`);
  if (o.maxToolResultTokens !== undefined) requireCount(o.maxToolResultTokens, `${name}.maxToolResultTokens`, 16);
  if (o.preserveLast !== undefined) requireCount(o.preserveLast, `${name}.preserveLast`);
  if (o.summaryRole !== undefined) checkRole(o.summaryRole, `${name}.summaryRole`);
  if (o.calibration !== undefined && !(o.calibration instanceof UsageCalibration)) throw typeError(`${name}.calibration must be a UsageCalibration, got ${describe(o.calibration)}`);
  if (o.onCompact !== undefined && typeof o.onCompact !== "function") throw typeError(`${name}.onCompact must be a function, got ${describe(o.onCompact)}`);
  if (o.summarizer === null) throw typeError(`${name}.summarizer must be a model, got null`);
  return o;
}

function strategyOf(value: ContextOptions["strategy"], name: string): TruncationStrategy {
  if (value === undefined || value === TruncationMode.TOKEN_BUDGET) return new TokenBudgetStrategy();
  if (value === TruncationMode.SMART) return new SmartTruncationStrategy();
  if (value === TruncationMode.SLIDING_WINDOW) return new SlidingWindowStrategy();
  if (typeof value === "object" && value !== null && typeof (value as TruncationStrategy).plan === "function") return value;
  throw typeError(`${name} must be a TruncationStrategy or one of "token_budget", "smart", "sliding_window", got ${describe(value)}`);
}

/** A summary written at an earlier call, and how many of the original messages it stands for. */
interface CachedSummary {
  /** The summaries, oldest first (a system-role summary is kept beside the later ones, not re-summarized). */
  summaries: SummaryMessage[];
  /** It stands for originals[0, end) except `kept`... */
  end: number;
  /** ...the originals before `end` that stayed (system messages, the task), by index, and where the summaries go: before kept[at]. */
  kept: number[];
  at: number;
}

export class PromptFitter {
  readonly model: string;
  readonly limits: ContextLimits;
  readonly counter: TokenCounter;
  readonly calibration: UsageCalibration;
  readonly trimTo: number;
  private readonly options: ContextOptions;
  private readonly strategy: TruncationStrategy;
  readonly logger: Logger;
  /** The local count of each prompt this fitter returned, for matching a usage to its call. */
  private readonly requests = new WeakMap<object, number>();
  /** Summaries by the fingerprint of the original messages they stand for (insertion order: oldest first). */
  private readonly summaries = new Map<string, CachedSummary>();
  /** Level 1's work, kept between calls: each tool result's compacted text, by its text. */
  private readonly compactor: ToolResultCompactor;
  private readonly compacted = new Map<string, string>();

  constructor(options: ContextOptions, name = "options") {
    checkContextOptions(options, name);
    this.options = options;
    this.model = options.model;
    this.logger = options.logger ?? consoleLogger;
    this.limits = options.limits instanceof ContextLimits ? options.limits : ContextLimits.forModel(options.model, options.limits ?? {}, { logger: this.logger });
    this.counter = options.counter ?? getCounter(options.model, { logger: this.logger });
    this.calibration = options.calibration ?? new UsageCalibration();
    this.trimTo = options.trimTo ?? 0.8;
    this.strategy = strategyOf(options.strategy, `${name}.strategy`);
    this.compactor = new ToolResultCompactor({ maxResultTokens: options.maxToolResultTokens ?? 1000 });
  }

  /** What a prompt may use in local counts: the window less the reserved output and reserve, less the tools, unscaled by the model's ratio. */
  budget(request: FitRequest = {}): { budget: number; toolTokens: number } {
    const output = request.maxOutputTokens ?? this.limits.maxOutputTokens;
    const available = Math.max(0, this.limits.maxTokens - output - this.limits.reservedTokens);
    const empty = this.counter.countMessages([]);
    const toolTokens = request.tools && request.tools.length > 0 ? this.counter.countMessages([], { tools: request.tools }) - empty : 0;
    return { budget: this.calibration.unscale(this.model, available), toolTokens };
  }

  /** The prompt brought within the window (see the file comment). */
  async fit<M extends MessageLike>(messages: readonly M[], request: FitRequest = {}): Promise<FitResult<M>> {
    if (!Array.isArray(messages)) throw typeError(`messages must be an array, got ${describe(messages)}`);
    const { budget, toolTokens } = this.budget(request);
    const tokensBefore = this.counter.countMessages(messages, { tools: request.tools });
    if (tokensBefore <= budget) {
      this.requests.set(messages, tokensBefore);
      return { messages: messages.slice(), changed: false, tokens: tokensBefore, budget };
    }

    // Reuse the longest summary already written for a prefix of these messages.
    const fingerprints = this.options.summarizer === undefined ? [] : prefixFingerprints(messages);
    let start = 0;
    let working: Array<M | SummaryMessage> = messages.slice();
    let cached: CachedSummary | undefined;
    for (let end = fingerprints.length; end > 0 && !cached; end--) {
      cached = this.summaries.get(fingerprints[end - 1] as string);
    }
    if (cached) {
      start = cached.end;
      const kept = cached.kept.map((i) => messages[i] as M);
      working = [...kept.slice(0, cached.at), ...cached.summaries, ...kept.slice(cached.at), ...messages.slice(start)];
    }
    // The most recent user message is the task of a tool loop: pinned (marked), so that no level
    // drops or summarizes it. The mark is on a copy; the caller's message goes back out.
    let task = -1;
    for (let i = messages.length - 1; i >= 0 && task < 0; i--) if (messages[i]?.role === "user") task = i;
    const original = messages[task];
    const place = original === undefined ? -1 : working.indexOf(original);
    const pinned = place < 0 ? undefined : ({ ...(original as M), _preserve: true } as M);
    if (pinned) working[place] = pinned;
    // Level 1 always runs on a prompt that does not fit (it is the first level, and the trigger is
    // above its threshold): applied here from the results compacted at earlier steps, it gives the
    // same messages without compacting every old result again at every step.
    const precompacted = new Map<object, object>();
    working = working.map((m) => {
      const copy = this.compactResults(m);
      if (copy !== m) precompacted.set(copy, m);
      return copy;
    });

    const manager = new MessageContextManager<MessageLike>({
      model: this.model,
      counter: this.counter,
      limits: new ContextLimits({ model: this.model, maxTokens: Math.max(1, budget - toolTokens), maxOutputTokens: 0, reservedTokens: 0 }),
      autoTruncate: false,
      strategy: this.strategy,
      llm: this.options.summarizer,
      mode: this.options.summarizer === undefined ? TruncationMode.TOKEN_BUDGET : TruncationMode.SUMMARIZE,
      keepToolResults: this.options.keepToolResults,
      maxToolResultTokens: this.options.maxToolResultTokens,
      preserveLast: this.options.preserveLast,
      summaryRole: this.options.summaryRole ?? "user",
      orphanToolResults: "drop",
      logger: this.logger,
    });
    manager.load(working);
    // The prompt did not fit: every level runs while it is above trimTo of the budget (each
    // level checks), so the next steps fit as they are.
    const report: CompactionReport<MessageLike> = await manager.compactIfNeeded({ threshold: this.trimTo });
    if (report.summary) this.remember(report, messages, start, cached, fingerprints, pinned === undefined ? undefined : [pinned, task], precompacted);
    const fitted = (manager.getContextForRequest() as Array<M | SummaryMessage>).map((m) => (m === pinned ? (original as M) : m));
    const tokensAfter = this.counter.countMessages(fitted, { tools: request.tools });
    if (tokensAfter > budget) {
      this.logger.warn(`ctxwin: the prompt still needs ${tokensAfter} tokens of ${budget} after every level: the system prompt, tools and pinned messages alone do not fit`);
    }
    this.requests.set(fitted, tokensAfter);
    this.options.onCompact?.({ tokensBefore, tokensAfter, budget, report });
    return { messages: fitted, changed: true, tokens: tokensAfter, budget };
  }

  /** `message` with its tool results compacted as level 1 would (the same compactor), or itself when none changes. */
  private compactResults<M extends object>(message: M): M {
    let changed = false;
    const copy = mapToolResults(message, (value, kind) => {
      const text = typeof value === "string" ? value : JSON.stringify(value);
      if (typeof text !== "string") return value;
      let out = this.compacted.get(text);
      if (out === undefined) {
        out = this.compactor.compactResult(text, this.counter);
        this.compacted.set(text, out);
        if (this.compacted.size > MAX_CACHED_RESULTS) this.compacted.delete(this.compacted.keys().next().value as string);
      }
      if (out === text) return value;
      changed = true;
      return kind === "json" ? (JSON.parse(out) as unknown) : out;
    });
    return changed ? copy : message;
  }

  /** Records `prompt` (a framework's copy of a prompt fit() returned) as sent with `tokens` local tokens. */
  recordRequest(prompt: object, tokens: number): void {
    this.requests.set(prompt, tokens);
  }

  /**
   * Passes a call's reported usage on: the model's reported-to-counted ratio is updated from the
   * prompt this fitter returned for that call (`prompt`, the array fit() gave). A usage whose
   * prompt this fitter did not return is ignored with a warning. Returns whether it was applied.
   */
  observeUsage(usage: ReportedUsage, prompt: object): boolean {
    const reported = reportedInputTokens(usage);
    const counted = this.requests.get(prompt);
    if (reported === undefined || counted === undefined) {
      this.logger.warn(`ctxwin: ignored a reported usage: ${reported === undefined ? "it reports no input tokens" : "it belongs to no prompt this adapter fitted"}`);
      return false;
    }
    this.calibration.observe(this.model, reported, counted);
    return true;
  }

  /** Records the summary level 3 wrote, keyed by the original messages it stands for. */
  private remember<M extends MessageLike>(
    report: CompactionReport<MessageLike>,
    originals: readonly M[],
    start: number,
    cached: CachedSummary | undefined,
    fingerprints: readonly string[],
    pinned: [object, number] | undefined,
    precompacted: ReadonlyMap<object, object>,
  ): void {
    // Each message's original index; a reused summary stands for originals[0, start).
    const origin = new Map<object, number>();
    originals.forEach((m, i) => origin.set(m, i));
    if (pinned) origin.set(pinned[0], pinned[1]);
    for (const [copy, original] of precompacted) {
      const index = origin.get(original);
      if (index !== undefined) origin.set(copy, index);
    }
    for (const s of cached?.summaries ?? []) origin.set(s, start - 1);
    for (const { before, after } of report.replaced) {
      const index = origin.get(before);
      if (index !== undefined) origin.set(after, index);
    }
    // report.removed lists level 3's messages first, then level 4's.
    const summarized = report.removed.slice(0, report.levels.find((l) => l.level === 3)?.messagesChanged ?? 0);
    let end = 0;
    let first = Number.MAX_SAFE_INTEGER;
    const gone = new Set<number>();
    for (const m of summarized) {
      const index = origin.get(m);
      if (index === undefined) return; // not messages we can name: do not cache
      end = Math.max(end, index + 1);
      if (!cached?.summaries.includes(m as SummaryMessage)) {
        first = Math.min(first, index);
        gone.add(index);
      }
    }
    const key = fingerprints[end - 1];
    if (end === 0 || key === undefined || !report.summary) return;
    // What stays of originals[0, end): what the earlier summary kept, and what this one did not take.
    const before = new Set(cached ? cached.kept : []);
    const kept: number[] = [];
    for (let i = 0; i < end; i++) if (!gone.has(i) && (i >= start || before.has(i))) kept.push(i);
    const earlier = (cached?.summaries ?? []).filter((s) => !summarized.includes(s));
    const at = cached && earlier.length > 0 ? cached.at : kept.filter((i) => i < first).length;
    this.summaries.set(key, { summaries: [...earlier, report.summary], end, kept, at });
    if (this.summaries.size > MAX_CACHED_SUMMARIES) this.summaries.delete(this.summaries.keys().next().value as string);
  }
}

/** A fingerprint of each prefix messages[0..i] (SHA-1 over the messages' JSON, chained). */
function prefixFingerprints(messages: readonly unknown[]): string[] {
  const hash: Hash = createHash("sha1");
  return messages.map((m) => {
    hash.update(JSON.stringify(m) ?? "null");
    hash.update("\u0000");
    return hash.copy().digest("base64");
  });
}
