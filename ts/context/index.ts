// MessageContextManager: a chat history kept inside its model's window as messages are added.
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
