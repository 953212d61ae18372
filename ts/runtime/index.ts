// The plumbing every capability uses: the core (loaded on Node while the package is imported, on
// the web by `await init()`), the coded errors, the logger interface, and bounded concurrency for
// model calls. Public: the types, `backend` (which build of the core runs: "native" or "wasm"), and
// the error classes with their guard and codes (docs/errors.md).
export { CtxwinError, CtxwinRangeError, CtxwinTypeError, ERROR_CODES, isCtxwinError, type CtxwinErrorCode } from "./errors.js";
export type { Logger } from "./logger.js";
export { backend, type Backend } from "./native.js";
