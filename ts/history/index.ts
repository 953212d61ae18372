// Message histories: per-model limits and budgets, the running tracker, and the truncation
// strategies (planned in the core over per-message metadata).
export {
  ContextLimits,
  type ContextLimitsInit,
  type LimitOverrides,
} from "./context-limits.js";
export { ContextBudget, type BudgetAllocations } from "./context-budget.js";
export { ContextTracker, type ContextTrackerInit } from "./context-tracker.js";
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
export { UsageCalibration, type ReportedUsage, type ModelCalibration } from "./usage-calibration.js";
