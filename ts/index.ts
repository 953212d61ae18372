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
