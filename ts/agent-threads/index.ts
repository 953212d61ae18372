// The thread manager existing agent loops already call (docs/spec08.md): a drop-in for the
// reference API. A thread is a list of agent events grouped by iteration; ContextManager estimates
// it (chars / 3.5), summarizes old iterations through the caller's model, and formats the
// summaries for the next system prompt. The summary models (models/) are the subpath's too: what
// `summarize(thread, model)` takes.
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
export { ContextManager, type ContextManagerOptions } from "./context-manager.js";
export { estimateTokens } from "./estimate.js";
export { buildContextInjection } from "./context-injection.js";
export * from "../models/index.js";
