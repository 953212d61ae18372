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
} from "./types.js";
export {
  ContextManager,
  SUMMARY_PROMPT,
  DEFAULT_KEEP_RECENT_ITERATIONS,
  DEFAULT_MAX_CONTEXT_TOKENS,
  DEFAULT_SUMMARY_CONCURRENCY,
  type ContextManagerOptions,
} from "./context-manager.js";
export { estimateTokens } from "./estimate.js";
export { buildContextInjection } from "./context-injection.js";
export { extractiveSummarizer, ExtractiveSummarizer } from "./extractive-summarizer.js";
export type { SummaryModel, LanguageModelLike, PromptFunction, InvokableModel } from "./summary-model.js";
export type { CtxwinErrorCode } from "./errors.js";
export { TiktokenCounter, type TiktokenCounterOptions } from "./tiktoken-counter.js";
export { ApproximateCounter, type ApproximateCounterOptions } from "./approximate-counter.js";
export { CachingCounter, type CachingCounterOptions } from "./caching-counter.js";
export { getCounter } from "./get-counter.js";
export { encodingForModel, ENCODING_NAMES, type EncodingName, type ModelEncoding } from "./encodings.js";
export { DEFAULT_IMAGE_TOKENS } from "./message-count.js";
export type { TokenCounter, BatchTokenCounter, MessageLike, ToolDefinition, FunctionDefinition, CountMessagesOptions } from "./token-counter.js";
export type { Logger } from "./logger.js";
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
} from "./message-context-manager.js";
export { ToolResultCompactor, type ToolResultCompactorOptions, type CompactedToolResult } from "./tool-result-compactor.js";
export { mapToolResults } from "./message-shape.js";
export {
  ContextCompactor,
  DEFAULT_SUMMARY_PROMPT,
  type ContextCompactorOptions,
  type CompactOptions,
  type CompactionResult,
  type SummaryMessage,
} from "./context-compactor.js";
