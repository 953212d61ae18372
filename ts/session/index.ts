// Sessions that persist and are shared: an append-only log per session (SessionStore) kept in
// memory, in JSONL files (the default) or in Redis, and the export/import format of seed 000.
export {
  conflictError,
  isConflict,
  lostError,
  isLost,
  MAX_SESSION_ID_BYTES,
  MAX_APPEND_ID_BYTES,
  MAX_APPEND_BYTES,
  MAX_READ_BYTES,
  DEFAULT_MAX_LOG_BYTES,
  IDEMPOTENCY_WINDOW,
  SNAPSHOT_TYPE,
  type SessionStore,
  type SessionEntry,
  type SessionRecord,
  type SessionInfo,
  type AppendOptions,
  type AppendResult,
  type SessionConflictError,
  type SessionLostError,
} from "./store.js";
export { MemorySessionStore, type MemorySessionStoreOptions } from "./memory-store.js";
export { FileSessionStore, newSessionId, type FileSessionStoreOptions } from "./file-store.js";
export { RedisSessionStore, type RedisSessionStoreOptions, type RedisCommandClient, type RedisDurability } from "./redis-store.js";
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
export { replay, ContextReplay, type ContextEntry, type SnapshotEntry, type Boundary, type ContextView, type LoggedMarker } from "./context-log.js";
export type { SessionOptions } from "./session-link.js";
