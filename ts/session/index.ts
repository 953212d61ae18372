// Sessions that persist and are shared: an append-only log per session (SessionStore) kept in
// memory, in JSONL files (the default) or in Redis, and the export/import format of a context.
export type {
  SessionStore,
  SessionEntry,
  SessionRecord,
  SessionInfo,
  AppendOptions,
  AppendResult,
  SessionConflictError,
  SessionLostError,
} from "./store.js";
export { MemorySessionStore, type MemorySessionStoreOptions } from "./memory-store.js";
export { FileSessionStore, type FileSessionStoreOptions } from "./file-store.js";
export { RedisSessionStore, type RedisSessionStoreOptions, type RedisCommandClient, type RedisDurability } from "./redis-store.js";
export {
  parseExport,
  safeParseExport,
  type ContextExport,
  type ExportMetadata,
  type ExportTurn,
  type TurnAnnotation,
  type ExportError,
  type SafeParseResult,
} from "./export.js";
export type { ContextEntry, Boundary, LoggedMarker } from "./context-log.js";
export type { SessionOptions } from "./session-link.js";
