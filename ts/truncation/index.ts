// The truncation strategies: which messages to drop to fit a budget, planned in the core over
// per-message metadata, never splitting a tool call from its result.
export {
  SlidingWindowStrategy,
  TokenBudgetStrategy,
  SmartTruncationStrategy,
  SelectiveTruncationStrategy,
  CompositeStrategy,
  type TruncationStrategy,
  type TruncationPlan,
  type TruncationOptions,
} from "./strategies.js";
