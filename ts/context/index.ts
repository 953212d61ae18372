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
