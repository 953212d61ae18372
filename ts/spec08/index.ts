// SPEC-08: the thread manager an existing agent loop already calls. A thread is a list of
// SPEC-02 events grouped by iteration; ContextManager estimates it (chars / 3.5), summarizes old
// iterations through the caller's model, and formats the summaries for the next system prompt.
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
