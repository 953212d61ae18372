// ctxwin: keep an LLM agent's conversation inside its model's context window.
export type {
  AgentEvent,
  AgentEventType,
  AgentThread,
  BaseEvent,
  CompletionEvent,
  ContextManagementConfig,
  ErrorEvent,
  HumanInputReceivedEvent,
  HumanInputRequestedEvent,
  MessageEvent,
  SummaryEvent,
  ToolCallEvent,
  ToolResultEvent,
} from "./spec08/types.js";
export {
  ContextManager,
  SUMMARY_PROMPT,
  DEFAULT_KEEP_RECENT_ITERATIONS,
  DEFAULT_MAX_CONTEXT_TOKENS,
  DEFAULT_SUMMARY_CONCURRENCY,
  type ContextManagerOptions,
} from "./spec08/context-manager.js";
export { estimateTokens } from "./spec08/estimate.js";
export { buildContextInjection } from "./spec08/context-injection.js";
export { extractiveSummarizer, ExtractiveSummarizer } from "./models/extractive-summarizer.js";
export type { SummaryModel, LanguageModelLike, PromptFunction, InvokableModel } from "./models/summary-model.js";
export type { CtxwinErrorCode } from "./runtime/errors.js";
export { TiktokenCounter, type TiktokenCounterOptions } from "./tokens/tiktoken-counter.js";
export { ApproximateCounter, type ApproximateCounterOptions } from "./tokens/approximate-counter.js";
export { CachingCounter, type CachingCounterOptions } from "./tokens/caching-counter.js";
export { getCounter } from "./tokens/get-counter.js";
export { encodingForModel, ENCODING_NAMES, type EncodingName, type ModelEncoding } from "./tokens/encodings.js";
export { DEFAULT_IMAGE_TOKENS } from "./tokens/message-count.js";
export type { TokenCounter, BatchTokenCounter, MessageLike, ToolDefinition, FunctionDefinition, CountMessagesOptions } from "./tokens/token-counter.js";
export type { Logger } from "./runtime/logger.js";
export {
  ContextLimits,
  ModelRegistry,
  defaultModelRegistry,
  DEFAULT_CONTEXT_WINDOW,
  DEFAULT_RESERVED_TOKENS,
  DEFAULT_RESPONSE_SHARE,
  type ContextLimitsInit,
  type LimitOverrides,
  type ModelConfig,
} from "./history/context-limits.js";
export { ContextBudget, type BudgetAllocations } from "./history/context-budget.js";
export { ContextTracker, type ContextTrackerInit } from "./history/context-tracker.js";
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
} from "./history/strategies.js";
export {
  MessageContextManager,
  TruncationMode,
  WARNING_80,
  WARNING_90,
  type MessageContextManagerOptions,
  type ContextStats,
  type ContextWarning,
  type TrimEvent,
  CLEARED_TOOL_RESULT,
  type CompactionReport,
  type CompactionLevelReport,
} from "./history/message-context-manager.js";
export { ToolResultCompactor, type ToolResultCompactorOptions, type CompactedToolResult } from "./compaction/tool-result-compactor.js";
export { mapToolResults } from "./tokens/message-shape.js";
export {
  ContextCompactor,
  DEFAULT_SUMMARY_PROMPT,
  type ContextCompactorOptions,
  type CompactOptions,
  type CompactionResult,
  type SummaryMessage,
} from "./compaction/context-compactor.js";
