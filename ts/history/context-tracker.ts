// Tracks how much of a model's window a conversation uses (seed 001/003 ContextTracker).
import { ContextBudget } from "./context-budget.js";
import { ContextLimits, type LimitOverrides } from "./context-limits.js";
import { describe, requireString, typeError } from "../runtime/errors.js";
import { getCounter } from "../tokens/get-counter.js";
import type { Logger } from "../runtime/logger.js";
import type { MessageLike, TokenCounter, ToolDefinition } from "../tokens/token-counter.js";


export interface ContextTrackerInit {
  limits: ContextLimits;
  counter: TokenCounter;
}

export class ContextTracker {
  readonly limits: ContextLimits;
  readonly counter: TokenCounter;
  readonly budget: ContextBudget;
  /** What an empty request costs with this counter (reply priming: 3 for OpenAI's format); counted once. */
  readonly requestOverhead: number;
  private conversationTokens = 0;

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
  }

  /** A tracker with the model's limits and counter (getCounter(model)). */
  static forModel(model: string, options: { overrides?: LimitOverrides; logger?: Logger; counter?: TokenCounter } = {}): ContextTracker {
    requireString(model, "model");
    const limits = ContextLimits.forModel(model, options.overrides, { logger: options.logger });
    return new ContextTracker({ limits, counter: options.counter ?? getCounter(model, { logger: options.logger }) });
  }

  /** Counts the system prompt, records it in the budget, and returns its tokens. */
  setSystemPrompt(prompt: string): number {
    requireString(prompt, "prompt");
    const tokens = this.counter.countMessages([{ role: "system", content: prompt }]) - this.requestOverhead;
    this.budget.update({ systemPrompt: tokens });
    return tokens;
  }

  /** Counts the tool definitions sent with each request and records them in the budget. */
  setTools(tools: readonly ToolDefinition[]): number {
    const tokens = this.counter.countMessages([], { tools }) - this.requestOverhead;
    this.budget.update({ tools: tokens });
    return tokens;
  }

  /** Recounts the whole conversation (seed 001: update(messages)). */
  update(messages: readonly MessageLike[]): number {
    this.conversationTokens = Math.max(0, this.counter.countMessages(messages) - this.requestOverhead);
    this.budget.update({ conversation: this.conversationTokens });
    return this.conversationTokens;
  }

  /** Counts one more message and adds it to the running total; returns its tokens. */
  addMessage(message: MessageLike): number {
    const tokens = this.counter.countMessages([message]) - this.requestOverhead;
    this.conversationTokens += tokens;
    this.budget.update({ conversation: this.conversationTokens });
    return tokens;
  }

  /** Tokens a request would use now: system prompt, tools, conversation and reply priming. */
  currentTokens(): number {
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
    return Math.max(0, this.limits.effectiveLimit - this.currentTokens());
  }

  /** currentTokens as a percentage of the effective limit (75000 of 100000 gives 75). */
  usagePercentage(): number {
    const limit = this.limits.effectiveLimit;
    return limit === 0 ? 100 : (this.currentTokens() / limit) * 100;
  }

  reset(): void {
    this.conversationTokens = 0;
    this.budget.update({ conversation: 0 });
  }
}
