// Message histories: per-model limits and budgets, the running tracker, the truncation
// strategies (planned in the core over per-message metadata), and MessageContextManager, which
// keeps a chat history inside its window as messages are added.
export {
  ContextLimits,
  DEFAULT_CONTEXT_WINDOW,
  DEFAULT_RESERVED_TOKENS,
  DEFAULT_RESPONSE_SHARE,
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
  CoreStrategy,
  omissionMarker,
  type TruncationStrategy,
  type TruncationPlan,
  type TruncationOptions,
  type OmissionMarker,
  type InsertedRole,
} from "./strategies.js";
export { UsageCalibration, reportedInputTokens, type ReportedUsage, type ModelCalibration } from "./usage-calibration.js";
export {
  MessageContextManager,
  TruncationMode,
  WARNING_80,
  WARNING_90,
  type MessageContextManagerOptions,
  type ContextStats,
  type CacheStats,
  type ContextWarning,
  type TrimEvent,
} from "./message-context-manager.js";
