// The plumbing every capability uses: the loader of the native core, the coded errors, the
// logger interface, and bounded concurrency for model calls. Only the types are public.
export type { CtxwinErrorCode } from "./errors.js";
export type { Logger } from "./logger.js";
