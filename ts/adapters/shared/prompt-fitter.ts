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
// What it sent is remembered, keyed by a fingerprint of the messages it was made from: the next
// call, whose prompt is the same messages plus the new step, is sent as the earlier result plus the
// new messages (their tool results compacted) as long as that fits. Only when it does not are the
// levels run again, down to `trimTo` of the budget. So the prompt's prefix stays the same from
// step to step (a provider's prompt cache keeps working), a summary is written once and reused,
// and a long loop runs the levels every few steps, not at every one. A compaction the agent asked
// for (compact_context) is followed the same way even while the whole history fits, so it lasts
// until the caller rewrites the history (docs/agent-tools.md). The per-model ratio of reported to
// counted tokens (observeUsage) is the other thing kept between calls.
import { createHash, type Hash } from "node:crypto";
import type { CompactionReport } from "../../compaction/progressive-compaction.js";
import type { SummaryMessage } from "../../compaction/context-compactor.js";
import { ToolResultCompactor } from "../../compaction/tool-result-compactor.js";
import { OpenProblems } from "../../compaction/open-problems.js";
import { problemNote, problemsNotShown } from "../../compaction/problem-note.js";
import { hasToolResult, resultIds } from "../../compaction/tool-events.js";
import { ContextLimits } from "../../budget/context-limits.js";
import { MessageContextManager } from "../../context/message-context-manager.js";
import type { TruncationStrategy } from "../../truncation/strategies.js";
import { reportedInputTokens, UsageCalibration, type ReportedUsage } from "../../budget/usage-calibration.js";
import { describe, typeError } from "../../runtime/errors.js";
import { consoleLogger, type Logger } from "../../runtime/logger.js";
import { getCounter } from "../../tokens/get-counter.js";
import { mapToolResults } from "../../messages/tool-results.js";
import type { TokenCounter } from "../../tokens/token-counter.js";
import type { MessageLike } from "../../messages/types.js";
import { ROLE_CODES } from "../../messages/roles.js";
import { MetadataReader, type MessageFacts } from "../../messages/metadata-reader.js";
import { TruncationMode } from "../../context/options.js";
import { DEFAULT_SUMMARY_ROLE } from "../../context/policy-options.js";
import type { CompactionRequest, CompactionRequestAnswer } from "../../context/agent-tools/context-tools.js";
import type { ContextStatus } from "../../context/agent-tools/context-status.js";
import {
  checkContextOptions,
  strategyOf,
  type CheckedContextOptions,
  type ContextOptions,
  type FitEvent,
  type FitRequest,
  type FitResult,
} from "./context-options.js";
import { FitterAgent } from "./fitter-agent.js";

export * from "./context-options.js";

/** Prompts remembered for the next call (one per conversation in flight is what matters). */
const MAX_CACHED_PROMPTS = 64;
/** Compacted tool results kept between calls (a loop re-sends the same results at every step). */
const MAX_CACHED_RESULTS = 1024;

export class PromptFitter {
  readonly model: string;
  readonly limits: ContextLimits;
  readonly counter: TokenCounter;
  readonly calibration: UsageCalibration;
  readonly trimTo: number;
  private readonly options: CheckedContextOptions;
  /** token_budget, or summarize with a summarizer: the manager's mode, whose strategy is the default. */
  private readonly mode: TruncationMode;
  private readonly strategy: TruncationStrategy;
  readonly logger: Logger;
  /** The local count of each prompt this fitter returned, for matching a usage to its call. */
  private readonly requests = new WeakMap<object, number>();
  /** What was sent, by the fingerprint of the messages it was made from (insertion order: least recent first). */
  private readonly sent = new Map<string, MessageLike[]>();
  /**
   * The histories a compaction the agent asked for (compact_context) ran on, by fingerprint
   * (insertion order: least recent first). A later history that starts with one is sent from what
   * was sent for it even while the whole history fits: the compaction lasts (see fitPrompt).
   */
  private readonly asked = new Set<string>();
  /** Messages ctxwin wrote (summaries, omission markers): never taken for the task. */
  private readonly inserted = new WeakSet<object>();
  /** Level 1's work, kept between calls: each tool result's compacted text, by its text. */
  private readonly compactor: ToolResultCompactor;
  private readonly compacted = new Map<string, string>();
  /**
   * The session's open problems, one record across calls: read from the prompts this fitter
   * receives (the framework's full history), before any level clears, cuts or drops a result.
   */
  readonly problems = new OpenProblems();
  /** Ids of the tool results the record has read (a framework may pass new copies of the same messages). */
  private readonly resultsRead = new Set<string>();
  /** The notes this fitter added to carry open problems (replaced at each run of the levels). */
  private readonly notes = new WeakSet<object>();
  /** context_status, compact_context and the notices (fitter-agent.ts). */
  readonly agent: FitterAgent;

  constructor(given: ContextOptions, name = "options") {
    const options = checkContextOptions(given, name);
    this.options = options;
    this.model = options.model;
    this.logger = options.logger ?? consoleLogger;
    this.limits =
      options.limits instanceof ContextLimits
        ? options.limits
        : ContextLimits.forModel(options.model, options.limits ?? {}, {
            logger: this.logger,
            unknownModel: options.unknownModel ?? "error",
            where: "options.model",
          });
    this.counter = options.counter ?? getCounter(options.model, { logger: this.logger });
    this.calibration = options.calibration ?? new UsageCalibration();
    this.trimTo = options.compaction.trimTo ?? 0.6;
    this.mode = options.compaction.summarizer === undefined ? TruncationMode.TOKEN_BUDGET : TruncationMode.SUMMARIZE;
    this.strategy = strategyOf(options.compaction.strategy, `${name}.compaction.strategy`);
    this.compactor = new ToolResultCompactor({ maxResultTokens: options.compaction.maxToolResultTokens ?? 1000 });
    this.agent = new FitterAgent(options, this.model, this.counter, this.limits.maxTokens, (m) => this.inserted.has(m));
  }

  /** What the agent's context_status reads: the last prompt this fitter returned, its compactions, its dollars. */
  status(): ContextStatus {
    return this.agent.status();
  }

  /** compact_context: queues a compaction for the next call's prompt, answers its preview over the last prompt. */
  async requestCompaction(request: CompactionRequest): Promise<CompactionRequestAnswer> {
    const last = this.agent.last;
    const working: MessageLike[] = (last?.messages ?? []).filter((m) => !this.notes.has(m));
    this.pin(working);
    const manager = this.levels(working, last === undefined ? this.budget().budget : last.budget, last?.toolTokens ?? 0);
    const answer = await manager.requestCompaction(request);
    this.agent.state.pending = { reason: answer.reason, keep: answer.keep, ...(answer.text === undefined ? {} : { text: answer.text }) };
    return answer;
  }

  /** What a prompt may use in local counts: the window less the reserved output and reserve, less the tools, unscaled by the model's ratio. */
  budget(request: FitRequest = {}): { budget: number; toolTokens: number } {
    const output = request.maxOutputTokens ?? this.limits.maxOutputTokens;
    const available = Math.max(0, this.limits.maxTokens - output - this.limits.reservedTokens);
    const empty = this.counter.countMessages([]);
    const toolTokens = request.tools && request.tools.length > 0 ? this.counter.countMessages([], { tools: request.tools }) - empty : 0;
    return { budget: this.calibration.unscale(this.model, available), toolTokens };
  }

  /** The prompt brought within the window (see the file comment), with the notes owed to the agent (fitter-agent.ts). */
  async fit<M extends MessageLike>(given: readonly M[], request: FitRequest = {}): Promise<FitResult<M>> {
    if (!Array.isArray(given)) throw typeError(`messages must be an array, got ${describe(given)}`);
    const messages = this.agent.strip(given);
    const result = await this.fitPrompt(messages, request, messages.length !== given.length);
    const { toolTokens } = this.budget(request);
    this.agent.last = { messages: result.messages as MessageLike[], tokens: result.tokens, budget: result.budget, toolTokens };
    const out = this.agent.decorate(result.messages, result.tokens, result.budget);
    if (out === result.messages) return result;
    const tokens = this.counter.countMessages(out, { tools: request.tools });
    this.requests.set(out, tokens);
    return { messages: out, changed: true, tokens, budget: result.budget };
  }

  private async fitPrompt<M extends MessageLike>(messages: readonly M[], request: FitRequest, stripped: boolean): Promise<FitResult<M>> {
    const { budget, toolTokens } = this.budget(request);
    const tokensBefore = this.counter.countMessages(messages, { tools: request.tools });
    const pending = this.agent.state.pending;
    this.agent.state.pending = undefined;
    const whole = (): FitResult<M> => {
      this.requests.set(messages, tokensBefore);
      return { messages: messages.slice(), changed: stripped, tokens: tokensBefore, budget };
    };
    const fits = tokensBefore <= budget && pending === undefined;
    if (fits && this.asked.size === 0) return whole();

    // Start from what was sent for the longest prefix of these messages, plus what came after it.
    const fingerprints = prefixFingerprints(messages);
    let from = 0;
    let earlier: MessageLike[] | undefined;
    for (let end = fingerprints.length; end > 0 && !earlier; end--) {
      earlier = this.sent.get(fingerprints[end - 1] as string);
      if (earlier) from = end;
    }
    const key = fingerprints[fingerprints.length - 1] as string;
    // A compaction the agent asked for lasts, as it does on a manager: while the history starts
    // with the one it ran on (and what was sent for it, or for a longer prefix, is remembered),
    // the request is that compacted prompt plus the messages that came after it, as they are
    // while that fits. A history rewritten by its caller no longer starts with it: fitted as it is.
    let askedAt = -1;
    for (let i = fingerprints.length - 1; i >= 0 && askedAt < 0 && this.asked.size > 0; i--)
      if (this.asked.has(fingerprints[i] as string)) askedAt = i;
    const lasting = earlier !== undefined && askedAt >= 0 && from > askedAt;
    if (fits && !lasting) return whole();
    if (lasting && pending === undefined) {
      const candidate = [...(earlier as M[]), ...messages.slice(from)];
      const tokens = this.counter.countMessages(candidate, { tools: request.tools });
      if (tokens <= budget) {
        this.remember(key, candidate);
        this.requests.set(candidate, tokens);
        this.options.onCompact?.({ tokensBefore, tokensAfter: tokens, budget, report: undefined, cut: [] });
        return { messages: candidate, changed: true, tokens, budget };
      }
    }
    const cut: FitEvent["cut"] = [];
    const added = messages.slice(from).map((m) => this.compactResults(m, cut));
    if (earlier && pending === undefined) {
      const candidate = [...(earlier as M[]), ...added];
      const tokens = this.counter.countMessages(candidate, { tools: request.tools });
      if (tokens <= budget) {
        this.remember(key, candidate);
        this.requests.set(candidate, tokens);
        this.options.onCompact?.({ tokensBefore, tokensAfter: tokens, budget, report: undefined, cut });
        return { messages: candidate, changed: true, tokens, budget };
      }
    }
    // Level 1 always applies to a prompt that does not fit: applied here first, from the results
    // compacted at earlier steps, so that old results are not compacted again at every step.
    this.readProblems(messages);
    const working: Array<M | SummaryMessage> = (
      earlier ? [...(earlier as M[]), ...added] : messages.map((m) => this.compactResults(m, cut))
    ).filter((m) => !this.notes.has(m));
    const pins = this.pin(working);

    const manager = this.levels(working, budget, toolTokens);
    const reports: Array<CompactionReport<MessageLike>> = [];
    manager.on("compacted", (r) => reports.push(r));
    if (pending !== undefined) await manager.requestCompaction({ reason: pending.reason, keep: pending.keep });
    const inputs = new Set<object>(messages as readonly object[]);
    if (earlier) for (const m of earlier) inputs.add(m);
    for (const m of added) inputs.add(m);
    // The prompt did not fit: every level runs while it is above trimTo of the budget (each level
    // checks), so that the next steps fit as they are.
    await manager.compactIfNeeded({ threshold: this.trimTo });
    // A queued compaction runs here, in getContextForRequest (context/manager-agent.ts).
    const fitted = this.carryProblems((manager.getContextForRequest() as Array<M | SummaryMessage>).map((m) => unpin(m, pins)));
    if (pending?.text !== undefined) this.agent.state.carried = pending.text;
    const open = this.problems.open.map((p) => p.label);
    if (pending !== undefined) this.agent.compacted(reports.slice(-1), open, pending.reason);
    this.agent.compacted(pending === undefined ? reports : reports.slice(0, -1), open);
    const report = reports.at(-1) as CompactionReport<MessageLike>;
    for (const m of fitted) if (!inputs.has(m) && m.role !== "tool") this.inserted.add(m);
    const tokensAfter = this.counter.countMessages(fitted, { tools: request.tools });
    if (tokensAfter > budget) {
      this.logger.warn(
        `ctxwin: the prompt still needs ${tokensAfter} tokens of ${budget} after every level: the system prompt, tools and pinned messages alone do not fit`,
      );
    }
    this.remember(key, fitted as MessageLike[]);
    if (pending !== undefined) {
      this.asked.delete(key);
      this.asked.add(key);
      evictOldest(this.asked);
    }
    this.requests.set(fitted, tokensAfter);
    this.options.onCompact?.({ tokensBefore, tokensAfter, budget, report, cut });
    return { messages: fitted, changed: true, tokens: tokensAfter, budget };
  }

  /** A manager over `working` that runs the levels within `budget` less the tools (it never trims by itself). */
  private levels(working: MessageLike[], budget: number, toolTokens: number): MessageContextManager<MessageLike> {
    const c = this.options.compaction;
    const manager = new MessageContextManager<MessageLike>({
      model: this.model,
      mode: this.mode,
      counter: this.counter,
      limits: new ContextLimits({ model: this.model, maxTokens: Math.max(1, budget - toolTokens), maxOutputTokens: 0, reservedTokens: 0 }),
      logger: this.logger,
      compaction: {
        autoTruncate: false,
        strategy: this.strategy,
        summarizer: c.summarizer,
        keepToolResults: c.keepToolResults,
        maxToolResultTokens: c.maxToolResultTokens,
        // At least the last message stays out of a summary: the summary's cut never splits a tool
        // unit, so the step's own exchange is never summarized away.
        preserveLast: Math.max(1, c.preserveLast ?? 10),
        summaryRole: c.summaryRole ?? DEFAULT_SUMMARY_ROLE,
      },
      warnings: { orphanToolResults: "drop" },
    });
    manager.load(working);
    return manager;
  }

  /**
   * Pins, on copies, what no level may take from a prompt: the task (the most recent user message
   * ctxwin did not write). The step's own tool exchange (the calls the model just made and the
   * results it is about to read) the manager keeps itself while the prompt fits with it, and cuts
   * its results, naming their recall call, when it does not (compaction/newest-exchange.ts).
   * Returns each copy with the message it stands for.
   */
  private pin<M extends MessageLike>(working: Array<M | SummaryMessage>): Map<object, object> {
    const reader = new MetadataReader({ orphanToolResults: "drop" });
    const facts = working.map((m, i) => reader.read(m, i));
    const pinned = new Set<number>();
    for (let i = working.length - 1; i >= 0; i--) {
      const f = facts[i] as MessageFacts;
      if (f.role === ROLE_CODES.user && !this.inserted.has(working[i] as object)) {
        pinned.add(i);
        break;
      }
    }
    const pins = new Map<object, object>();
    for (const i of pinned) {
      const original = working[i] as M;
      const copy = { ...original, _preserve: true, [PINNED]: true } as M;
      pins.set(copy, original);
      working[i] = copy;
    }
    return pins;
  }

  /** Reads the tool results of `messages` the record has not read yet (by id), in order. */
  private readProblems(messages: readonly MessageLike[]): void {
    for (const m of messages) {
      if (!hasToolResult(m)) continue;
      const ids = resultIds(m);
      if (ids.length > 0 && ids.every((id) => this.resultsRead.has(id))) this.problems.markObserved(m as object);
      else for (const id of ids) this.resultsRead.add(id);
    }
    this.problems.observe(messages);
  }

  /**
   * `fitted` with a note of the open problems it no longer shows (their results trimmed away, or
   * summarized without them), after its system messages: every open problem stays in front of
   * the model until a later result resolves it.
   */
  private carryProblems<M>(fitted: Array<M | SummaryMessage>): Array<M | SummaryMessage> {
    const record = this.problems.record;
    if (!record.problems.some((p) => p.resolved === undefined)) return fitted;
    const note = problemNote(
      record,
      problemsNotShown(record, JSON.stringify(fitted)),
      this.options.compaction.summaryRole ?? DEFAULT_SUMMARY_ROLE,
    );
    if (note === undefined) return fitted;
    this.notes.add(note);
    this.inserted.add(note);
    let at = 0;
    while (at < fitted.length && (fitted[at] as MessageLike).role === "system") at++;
    return [...fitted.slice(0, at), note, ...fitted.slice(at)];
  }

  /**
   * `message` with its tool results compacted as level 1 would (the same compactor, each cut
   * naming the recall call that reads its result back), or itself when none changes. A copy is
   * added to `cut` with the message it stands for.
   */
  private compactResults<M extends object>(message: M, cut: FitEvent["cut"]): M {
    let changed = false;
    const copy = mapToolResults(message, (value, kind, id) => {
      const text = typeof value === "string" ? value : JSON.stringify(value);
      if (typeof text !== "string") return value;
      const key = `${id ?? ""}\u0000${text}`;
      let out = this.compacted.get(key);
      if (out === undefined) {
        out = (id === undefined ? this.compactor : this.compactor.namingRecall(id)).compactResult(text, this.counter);
        this.compacted.set(key, out);
        if (this.compacted.size > MAX_CACHED_RESULTS) this.compacted.delete(this.compacted.keys().next().value as string);
      }
      if (out === text) return value;
      changed = true;
      return kind === "json" ? (JSON.parse(out) as unknown) : out;
    });
    if (!changed) return message;
    cut.push({ before: message as MessageLike, after: copy as MessageLike });
    return copy;
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
      this.logger.warn(
        `ctxwin: ignored a reported usage: ${reported === undefined ? "it reports no input tokens" : "it belongs to no prompt this adapter fitted"}`,
      );
      return false;
    }
    this.calibration.observe(this.model, reported, counted);
    this.agent.observed(reported);
    return true;
  }

  /** Remembers what was sent for the messages whose fingerprint is `key`. */
  private remember(key: string, sent: MessageLike[]): void {
    this.sent.delete(key);
    this.sent.set(key, sent);
    evictOldest(this.sent);
  }
}

/** Drops the least recently inserted fingerprint of `keys` (a Map's or a Set's) past MAX_CACHED_PROMPTS. */
function evictOldest(keys: Map<string, unknown> | Set<string>): void {
  if (keys.size > MAX_CACHED_PROMPTS) keys.delete(keys.keys().next().value as string);
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

/** Marks the copies PromptFitter.pin makes (a level's rewrite of a copy carries the mark too). */
const PINNED: unique symbol = Symbol("ctxwin.fitter.pinned");

/** The message a pinned copy stands for; a level's rewrite of a copy without the pin. */
function unpin<M>(message: M, pins: ReadonlyMap<object, object>): M {
  const original = pins.get(message as object);
  if (original !== undefined) return original as M;
  if (typeof message !== "object" || message === null || !(PINNED in message)) return message;
  const { _preserve: _, [PINNED]: __, ...rest } = message as Record<string | symbol, unknown>;
  return rest as M;
}
