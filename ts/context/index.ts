// MessageContextManager: a chat history kept inside its model's window as messages are added.
export { MessageContextManager } from "./message-context-manager.js";
export {
  TruncationMode,
  type MessageContextManagerOptions,
  type ContextStats,
  type LimitStats,
  type SeparatedRequest,
  type TrimEvent,
  type CompactionEditEvent,
  type SessionLostEvent,
} from "./options.js";
export type { ContextWarning } from "./usage-warnings.js";
export type { CacheStats } from "./prompt-cache.js";
export type { CompactionPreview, PreviewAction, PreviewOptions, PreviewUnit } from "./compaction-preview.js";
// The agent's own view and steering of its context: context_status, compact_context, notices (docs/agent-tools.md).
export {
  CONTEXT_STATUS_TOOL,
  COMPACT_CONTEXT_TOOL,
  contextStatusInputSchema,
  compactContextInputSchema,
  contextToolDefinitions,
  contextToolTarget,
  runContextTool,
  type CompactionRequest,
  type CompactionRequestAnswer,
  type ContextToolTarget,
} from "./agent-tools/context-tools.js";
export { STATUS_MAX_TOKENS, type ContextStatus, type ContextComposition } from "./agent-tools/context-status.js";
export type { CompactionEntry } from "./agent-tools/compaction-log.js";
export { NOTICE_MAX_CHARS, type NoticeEvent, type NoticeOptions } from "./agent-tools/notices.js";
