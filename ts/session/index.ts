// Sessions that persist and are shared: an append-only log per session (SessionStore) kept in
// memory, in JSONL files (the default) or in Redis, and the export/import format of seed 000.
export {
  conflictError,
  isConflict,
  type SessionStore,
  type SessionEntry,
  type SessionRecord,
  type SessionInfo,
  type AppendOptions,
  type AppendResult,
  type SessionConflictError,
} from "./store.js";
export { MemorySessionStore } from "./memory-store.js";
export { FileSessionStore, newSessionId, type FileSessionStoreOptions } from "./file-store.js";
export { RedisSessionStore, type RedisSessionStoreOptions, type RedisCommandClient } from "./redis-store.js";
export {
  parseExport,
  safeParseExport,
  EXPORT_FORMAT,
  EXPORT_VERSION,
  type ContextExport,
  type ExportMetadata,
  type ExportTurn,
  type TurnAnnotation,
  type ExportError,
  type SafeParseResult,
} from "./export.js";
export { replay, type ContextEntry, type Boundary, type ContextView, type LoggedMarker } from "./context-log.js";
export type { SessionOptions } from "./session-link.js";
