// Tracks how much of a model's window a conversation uses, recounting it when the caller passes
// it (update) and anchored on the provider's reported usage when the caller passes that
// (observeUsage, through the same UsageAnchor MessageContextManager uses).
import { ContextBudget } from "./context-budget.js";
import { ContextLimits, type LimitOverrides } from "./context-limits.js";
import { describe, requireString, typeError } from "../runtime/errors.js";
import { getCounter } from "../tokens/get-counter.js";
import { consoleLogger, type Logger } from "../runtime/logger.js";
import { UsageAnchor } from "./usage-anchor.js";
import { UsageCalibration, type ReportedUsage } from "./usage-calibration.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import type { MessageLike, ToolDefinition } from "../messages/types.js";

export interface ContextTrackerInit {
  limits: ContextLimits;
  counter: TokenCounter;
  /** Reported-to-counted ratios per model, shared with others when given (observeUsage). */
  calibration?: UsageCalibration;
  /** Where an unmatched usage is reported (default: console). */
  logger?: Logger;
}

export class ContextTracker {
  readonly limits: ContextLimits;
  readonly counter: TokenCounter;
  readonly budget: ContextBudget;
  /** What an empty request costs with this counter (reply priming: 3 for OpenAI's format); counted once. */
  readonly requestOverhead: number;
  private conversationTokens = 0;
  readonly calibration: UsageCalibration;
  /** The reported usage the total builds on; the request update(messages) last recorded. */
  private readonly anchor: UsageAnchor;

  constructor(init: ContextTrackerInit) {
    if (init === null || typeof init !== "object") throw typeError(`init must be an object, got ${describe(init)}`);
    if (!(init.limits instanceof ContextLimits)) throw typeError(`init.limits must be a ContextLimits, got ${describe(init.limits)}`);
    if (!init.counter || typeof init.counter.count !== "function" || typeof init.counter.countMessages !== "function") {
      throw typeError(`init.counter must be a TokenCounter, got ${describe(init.counter)}`);
    }
    this.limits = init.limits;
    this.counter = init.counter;
    this.budget = new ContextBudget(init.limits.effectiveLimit);
    this.requestOverhead = init.counter.countMessages([]);
    if (init.calibration !== undefined && !(init.calibration instanceof UsageCalibration)) {
      throw typeError(`init.calibration must be a UsageCalibration, got ${describe(init.calibration)}`);
    }
    this.calibration = init.calibration ?? new UsageCalibration();
    this.anchor = new UsageAnchor(
      init.limits.model,
      init.limits,
      this.calibration,
      {
        noRequest: "no request was recorded (call update(messages) with the messages sent)",
        rewritten: "the system prompt, tools or conversation were replaced since the request it belongs to",
      },
      init.logger ?? consoleLogger,
    );
  }

  /** A tracker with the model's limits and counter (getCounter(model)). */
  static forModel(
    model: string,
    options: { overrides?: LimitOverrides; logger?: Logger; counter?: TokenCounter; calibration?: UsageCalibration } = {},
  ): ContextTracker {
    requireString(model, "model");
    const limits = ContextLimits.forModel(model, options.overrides, { logger: options.logger });
    return new ContextTracker({
      limits,
      counter: options.counter ?? getCounter(model, { logger: options.logger }),
      calibration: options.calibration,
      logger: options.logger,
    });
  }

  /** Counts the system prompt, records it in the budget, and returns its tokens. */
  setSystemPrompt(prompt: string): number {
    requireString(prompt, "prompt");
    const tokens = this.counter.countMessages([{ role: "system", content: prompt }]) - this.requestOverhead;
    this.budget.update({ systemPrompt: tokens });
    this.anchor.rewritten();
    return tokens;
  }

  /** Counts the tool definitions sent with each request and records them in the budget. */
  setTools(tools: readonly ToolDefinition[]): number {
    const tokens = this.counter.countMessages([], { tools }) - this.requestOverhead;
    this.budget.update({ tools: tokens });
    this.anchor.rewritten();
    return tokens;
  }

  /**
   * Recounts the whole conversation. These messages, with the system prompt and tools, are the
   * request a later observeUsage(usage) is matched to.
   */
  update(messages: readonly MessageLike[]): number {
    this.conversationTokens = Math.max(0, this.counter.countMessages(messages) - this.requestOverhead);
    this.budget.update({ conversation: this.conversationTokens });
    this.anchor.rewritten();
    this.anchor.requestMade(this.countedTokens());
    return this.conversationTokens;
  }

  /**
   * Anchors the total on the provider's figure for the request last recorded by update(messages):
   * currentTokens() becomes the reported tokens plus the (scaled) counts of the messages added
   * since, and the reported-to-counted ratio scales later counts of this model up. A usage that
   * cannot be matched (no update yet, or a new system prompt, tools, update or reset since) is
   * ignored with a warning. Returns whether it was applied.
   */
  observeUsage(usage: ReportedUsage): boolean {
    return this.anchor.observe(usage);
  }

  /** Counts one more message and adds it to the running total; returns its tokens. */
  addMessage(message: MessageLike): number {
    const tokens = this.counter.countMessages([message]) - this.requestOverhead;
    this.conversationTokens += tokens;
    this.budget.update({ conversation: this.conversationTokens });
    return tokens;
  }

  /** Tokens a request would use now: system prompt, tools, conversation and reply priming (anchored and scaled by reported usage). */
  currentTokens(): number {
    return this.anchor.total(this.countedTokens());
  }

  /** The local count, before any reported usage. */
  countedTokens(): number {
    const content = this.budget.systemPrompt + this.budget.tools + this.conversationTokens;
    return content > 0 ? content + this.requestOverhead : 0;
  }

  exceedsLimit(): boolean {
    return this.currentTokens() > this.limits.effectiveLimit;
  }

  overflowAmount(): number {
    return Math.max(0, this.currentTokens() - this.limits.effectiveLimit);
  }

  availableTokens(): number {
    return this.anchor.available(this.countedTokens());
  }

  /** currentTokens as a percentage of the effective limit (75000 of 100000 gives 75). */
  usagePercentage(): number {
    return this.anchor.percentage(this.countedTokens());
  }

  reset(): void {
    this.anchor.rewritten();
    this.conversationTokens = 0;
    this.budget.update({ conversation: 0 });
  }
}
