// ContextManager: a drop-in for the TypeScript reference API that agent loops already call
// (docs/spec08.md says where ctxwin is stricter).
//
// The core decides (estimates, which iterations are old, the extractive fallback); this class
// keeps what only JavaScript can do: JSON.stringify of the caller's events, calling the caller's
// model, and editing the caller's thread in place as the reference does.
import { mapWithConcurrency } from "../runtime/concurrency.js";
import { buildContextInjection } from "./context-injection.js";
import { describe, rangeError, requireString, typeError } from "../runtime/errors.js";
import { fingerprint, matchesFingerprint, type Fingerprint } from "./event-fingerprint.js";
import { native } from "../runtime/native.js";
import { resolveSummaryModel, type SummaryModel } from "../models/summary-model.js";
import { checkEvent, threadEvents } from "./thread-validation.js";
import type { AgentEvent, AgentThread, ContextManagementConfig, SummaryEvent } from "./types.js";

/** The prompt the reference sends for each old iteration, followed by its events as JSON lines. */
export const SUMMARY_PROMPT =
  "Summarize the following agent iteration events in 2-3 sentences. Focus on what tools were called, " +
  "what was accomplished, and any errors:\n\n";

export const DEFAULT_MAX_CONTEXT_TOKENS = 150000;
export const DEFAULT_KEEP_RECENT_ITERATIONS = 3;
export const DEFAULT_SUMMARY_CONCURRENCY = 4;

/** The reference's configuration plus ctxwin's own options. */
export interface ContextManagerOptions extends ContextManagementConfig {
  /** How many model calls `summarize` runs at once (default 4). */
  summaryConcurrency?: number;
}

interface CachedCount {
  tokens: number;
  print: Fingerprint;
}

function optionalNumber(config: Record<string, unknown>, key: string, fallback: number): number {
  const value = config[key];
  if (value === undefined) return fallback;
  if (typeof value !== "number") throw typeError(`config.${key} must be a number, got ${describe(value)}`);
  return value;
}

export class ContextManager {
  readonly maxContextTokens: number;
  readonly keepRecentIterations: number;
  readonly summaryConcurrency: number;
  private readonly tokenEstimator: ((text: string) => number) | undefined;
  // Per-event counts, keyed by the caller's event object and checked against its fingerprint so an
  // event edited in place is counted again. A WeakMap: events dropped by the caller are not kept.
  private counts = new WeakMap<object, CachedCount>();

  constructor(config: ContextManagerOptions = {}) {
    if (config === null || typeof config !== "object") {
      throw typeError(`config must be an object, got ${describe(config)}`);
    }
    const options = config as Record<string, unknown>;
    this.maxContextTokens = optionalNumber(options, "maxContextTokens", DEFAULT_MAX_CONTEXT_TOKENS);
    this.keepRecentIterations = optionalNumber(options, "keepRecentIterations", DEFAULT_KEEP_RECENT_ITERATIONS);
    native.validateThreadConfig(this.maxContextTokens, this.keepRecentIterations);
    this.summaryConcurrency = optionalNumber(options, "summaryConcurrency", DEFAULT_SUMMARY_CONCURRENCY);
    if (!Number.isInteger(this.summaryConcurrency) || this.summaryConcurrency < 1) {
      throw rangeError(`config.summaryConcurrency must be an integer >= 1, got ${this.summaryConcurrency}`);
    }
    const estimator = options.tokenEstimator;
    if (estimator !== undefined && typeof estimator !== "function") {
      throw typeError(`config.tokenEstimator must be a function (text: string) => number, got ${describe(estimator)}`);
    }
    this.tokenEstimator = estimator as ((text: string) => number) | undefined;
  }

  /** Estimate tokens in a string (~3.5 chars per token), or `config.tokenEstimator`'s count. */
  estimateTokens(text: string): number {
    requireString(text, "text");
    return this.tokenEstimator ? this.customEstimate(text, "text") : native.estimateTokens(text.length);
  }

  /**
   * Estimated tokens of the whole thread: the sum over events of estimateTokens(JSON.stringify(event)).
   *
   * Counts are cached per event object. A repeated call serializes only events it has not seen
   * (or that changed in place, detected by fingerprint, see event-fingerprint.ts) and estimates
   * all of those in one call into the core, so a thread that grew by k events costs O(k)
   * serialization plus an identity walk of the unchanged events.
   */
  estimateThreadTokens(thread: AgentThread): number {
    const events = threadEvents(thread);
    let total = 0;
    let pendingIndices: number[] | undefined;
    let pendingJson: string[] | undefined;
    for (let i = 0; i < events.length; i++) {
      const event = events[i];
      // Counting reads no field (the reference only serializes each event): an event without a
      // numeric `iteration` is counted as it is; summarize() is what needs one.
      checkEvent(event, i, "thread", { iteration: false });
      const cached = this.counts.get(event);
      if (cached !== undefined && matchesFingerprint(event, cached.print)) {
        total += cached.tokens;
        continue;
      }
      (pendingIndices ??= []).push(i);
      (pendingJson ??= []).push(serialize(event, i));
    }
    if (pendingIndices === undefined || pendingJson === undefined) return total;

    const tokens = this.estimateMany(pendingJson, pendingIndices);
    for (let k = 0; k < pendingIndices.length; k++) {
      const event = events[pendingIndices[k] as number] as AgentEvent;
      const count = tokens[k] as number;
      const print = fingerprint(event);
      if (print !== undefined) this.counts.set(event, { tokens: count, print });
      total += count;
    }
    return total;
  }

  /** True when the thread's estimate exceeds `maxContextTokens`. */
  needsSummarization(thread: AgentThread): boolean {
    return this.estimateThreadTokens(thread) > this.maxContextTokens;
  }

  /**
   * Replaces every iteration older than the `keepRecentIterations` most recent ones by one
   * SummaryEvent, **editing `thread` in place** (as the reference does) and returning it.
   *
   * Model calls for different iterations run concurrently (`summaryConcurrency`, default 4). A
   * failed call never loses its iteration: its summary is the core's extractive digest followed by
   * "(summarization failed: <reason>)". Events appended to the thread while the calls run are kept.
   */
  async summarize(thread: AgentThread, model: SummaryModel): Promise<AgentThread> {
    const events = threadEvents(thread);
    const iterations = new Float64Array(events.length);
    const isSummary = new Uint8Array(events.length);
    for (let i = 0; i < events.length; i++) {
      const event = events[i];
      checkEvent(event, i);
      iterations[i] = event.iteration;
      isSummary[i] = event.type === "summary" ? 1 : 0;
    }
    const plan = native.planSummarization(iterations, isSummary, this.keepRecentIterations);
    const groups = Array.from(plan.iterations, (iteration, g) => ({
      iteration,
      reuse: plan.reuse[g] === 1,
      events: Array.from(plan.events.subarray(plan.offsets[g], plan.offsets[g + 1]), (index) => events[index] as AgentEvent),
    }));
    if (groups.length === 0) return thread;
    // The model is checked only when a summary is to be written, as the reference (which hands it
    // to generateText per old iteration) does: nothing old, or only summaries kept as they are,
    // needs no model. Still before the thread is touched.
    const resolved = groups.some((group) => !group.reuse) ? await resolveSummaryModel(model, "model") : undefined;

    const summaries = await mapWithConcurrency(groups, this.summaryConcurrency, async (group): Promise<AgentEvent> => {
      if (group.reuse || resolved === undefined) return group.events[0] as AgentEvent;
      const lines = group.events.map((event) => JSON.stringify(event));
      let summary: string;
      if (resolved.kind === "extractive") {
        summary = resolved.summarizer.summarizeEvents(lines);
      } else {
        try {
          summary = await resolved.call(SUMMARY_PROMPT + lines.join("\n"));
          // plain Error: caught just below, the reason the failure digest gives, never thrown to the caller.
          if (summary.trim() === "") throw new Error("the model returned an empty summary");
        } catch (error) {
          summary = native.failureDigest(lines, reasonOf(error));
        }
      }
      const event: SummaryEvent = {
        type: "summary",
        timestamp: Date.now(),
        iteration: group.iteration,
        summarizedIterations: [group.iteration],
        summary,
      };
      return event;
    });

    // Apply to the thread as it is now: the caller may have appended events while we awaited.
    const removed = new Set<AgentEvent>();
    for (const group of groups) for (const event of group.events) removed.add(event);
    const current = threadEvents(thread);
    const kept = current.filter((event) => !removed.has(event));
    current.length = 0;
    for (const event of summaries) current.push(event);
    for (const event of kept) current.push(event);
    thread.updatedAt = Date.now();
    return thread;
  }

  /** The thread's summaries formatted for the system prompt (see context-injection.ts). */
  buildContextInjection(thread: AgentThread): string {
    return buildContextInjection(thread);
  }

  private customEstimate(text: string, what: string): number {
    const value = (this.tokenEstimator as (text: string) => number)(text);
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      throw rangeError(`config.tokenEstimator must return a finite number >= 0, got ${describe(value)} for ${what}`);
    }
    return value;
  }

  private estimateMany(texts: string[], indices: number[]): ArrayLike<number> {
    if (this.tokenEstimator) return texts.map((text, k) => this.customEstimate(text, `thread.events[${indices[k]}]`));
    const lengths = new Uint32Array(texts.length);
    for (let k = 0; k < texts.length; k++) lengths[k] = (texts[k] as string).length;
    native.estimateTokensInPlace(lengths); // one crossing for the whole batch
    return lengths;
  }
}

function serialize(event: AgentEvent, index: number): string {
  try {
    const json = JSON.stringify(event);
    // plain Error: caught just below, the reason (and cause) of the coded error thrown there.
    if (typeof json !== "string") throw new Error("JSON.stringify returned undefined");
    return json;
  } catch (error) {
    // JSON.stringify throws RangeError only when the event nests deeper than the stack allows.
    const reason = error instanceof RangeError ? "it is nested too deeply" : reasonOf(error);
    throw typeError(`thread.events[${index}] cannot be serialized to JSON: ${reason}`, "ERR_CTXWIN_INVALID_THREAD", { cause: error });
  }
}

function reasonOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return typeof error === "string" ? error : describe(error);
}
