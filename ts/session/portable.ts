// What the session folder offers in every runtime, file system or not: the store interface, the
// in-memory store, the export format and the log's entries. index.ts adds the stores that need
// Node (JSONL files, Redis); the web entry exports this part alone.
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
