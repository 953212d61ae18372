// A history's budget: per-model limits, the budget split, the running tracker and the
// calibration of estimates against the provider's reported usage.
export {
  ContextLimits,
  type ContextLimitsInit,
  type LimitOverrides,
} from "./context-limits.js";
export { ContextBudget, type BudgetAllocations } from "./context-budget.js";
export { ContextTracker, type ContextTrackerInit } from "./context-tracker.js";
export { UsageCalibration, type ReportedUsage, type ModelCalibration } from "./usage-calibration.js";
