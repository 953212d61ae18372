// Sessions that persist and are shared: an append-only log per session (SessionStore) kept in
// memory, in JSONL files (the default) or in Redis, and the export/import format of a context.
// portable.ts is what needs no Node; the file and Redis stores do.
export * from "./portable.js";
export { FileSessionStore, type FileSessionStoreOptions } from "./file-store.js";
export type { SessionIoError } from "./io-error.js";
export { RedisSessionStore, type RedisSessionStoreOptions, type RedisCommandClient, type RedisDurability } from "./redis-store.js";
