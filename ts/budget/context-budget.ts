// How a window's tokens are allotted: system prompt, tools, conversation and the reserved response.
import { describe, requireCount, typeError } from "../runtime/errors.js";

export interface BudgetAllocations {
  systemPrompt?: number;
  tools?: number;
  responseReserve?: number;
  /** Tokens the conversation uses now. */
  conversation?: number;
}

export class ContextBudget {
  total: number;
  systemPrompt = 0;
  tools = 0;
  responseReserve = 0;
  /** Tokens the conversation uses now (a tracker keeps it current). */
  conversation = 0;

  constructor(total: number, allocations: BudgetAllocations = {}) {
    this.total = requireCount(total, "total");
    this.update(allocations);
  }

  /** Sets the given allocations; the others keep their values. */
  update(allocations: BudgetAllocations): this {
    if (allocations === null || typeof allocations !== "object")
      throw typeError(`allocations must be an object, got ${describe(allocations)}`);
    for (const key of ["systemPrompt", "tools", "responseReserve", "conversation"] as const) {
      if (allocations[key] !== undefined) this[key] = requireCount(allocations[key], `allocations.${key}`);
    }
    return this;
  }

  /** Tokens left for the conversation: total - systemPrompt - tools - responseReserve (never below 0). */
  get available(): number {
    return Math.max(0, this.total - this.systemPrompt - this.tools - this.responseReserve);
  }

  /** What the conversation may use: the same as `available` (the name the budget API has always had). */
  get conversationBudget(): number {
    return this.available;
  }

  /** What the conversation may still grow by. */
  get remaining(): number {
    return Math.max(0, this.available - this.conversation);
  }
}
