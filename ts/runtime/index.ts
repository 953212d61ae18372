// The plumbing every capability uses: the loader of the native core, the coded errors, the
// logger interface, and bounded concurrency for model calls. Public: the types, and `backend`
// (which build of the core runs: "native" or "wasm").
export type { CtxwinErrorCode } from "./errors.js";
export type { Logger } from "./logger.js";
export { backend, type Backend } from "./native.js";
