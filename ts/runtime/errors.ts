// The errors the public API throws. Every one names the argument at fault and carries a stable
// `code`, the same codes the native core uses (ERR_CTXWIN_*).

/**
 * Every code a ctxwin error may carry, wherever it was raised: the list
 * native/include/ctxwin/error_codes.inc holds for the C++ side and this one are kept equal by
 * test/ts/runtime/error-codes.test.ts.
 */
export const ERROR_CODES = [
  // Raised by the C++ side (the core or the binding) as well as here.
  "ERR_CTXWIN_INVALID_ARGUMENT",
  "ERR_CTXWIN_OUT_OF_RANGE",
  "ERR_CTXWIN_INVALID_THREAD",
  "ERR_CTXWIN_UNKNOWN_ENCODING",
  "ERR_CTXWIN_RANK_DATA_UNAVAILABLE",
  "ERR_CTXWIN_INVALID_TOKENIZER",
  "ERR_CTXWIN_UNSUPPORTED_TOKENIZER",
  "ERR_CTXWIN_TOKENIZER_UNAVAILABLE",
  "ERR_CTXWIN_REGEX_BUDGET",
  "ERR_CTXWIN_INPUT_TOO_LARGE",
  "ERR_CTXWIN_OUT_OF_MEMORY",
  "ERR_CTXWIN_INTERNAL",
  "ERR_CTXWIN_UNKNOWN",
  // Raised by the TypeScript API only.
  "ERR_CTXWIN_INVALID_MODEL",
  "ERR_CTXWIN_UNKNOWN_MODEL",
  "ERR_CTXWIN_AI_SDK_MISSING",
  "ERR_CTXWIN_LANGCHAIN_MISSING",
  "ERR_CTXWIN_OPENAI_AGENTS_MISSING",
  "ERR_CTXWIN_MASTRA_MISSING",
  "ERR_CTXWIN_REDIS_MISSING",
  "ERR_CTXWIN_PROVIDER_MISSING",
  "ERR_CTXWIN_ADDON_MISSING",
  "ERR_CTXWIN_NOT_INITIALIZED",
  "ERR_CTXWIN_ORPHAN_TOOL_RESULT",
  "ERR_CTXWIN_UNSUPPORTED_MESSAGE",
  "ERR_CTXWIN_INVALID_EXPORT",
  "ERR_CTXWIN_SESSION_CONFLICT",
  "ERR_CTXWIN_SESSION_CORRUPT",
  "ERR_CTXWIN_SESSION_LOST",
  "ERR_CTXWIN_SESSION_TOO_LARGE",
  "ERR_CTXWIN_SESSION_UNSAFE_PATH",
  "ERR_CTXWIN_SESSION_BUSY",
  "ERR_CTXWIN_SESSION_NOT_DURABLE",
  "ERR_CTXWIN_CONTEXT_OVERFLOW",
  "ERR_CTXWIN_RECALL_UNKNOWN_ID",
  "ERR_CTXWIN_RECALL_EVICTED",
  "ERR_CTXWIN_ABORTED",
] as const;

export type CtxwinErrorCode = (typeof ERROR_CODES)[number];

export type WithCode<E extends Error> = E & { code: CtxwinErrorCode };

function withCode<E extends Error>(error: E, code: CtxwinErrorCode): WithCode<E> {
  return Object.assign(error, { code });
}

export function typeError(message: string, code: CtxwinErrorCode = "ERR_CTXWIN_INVALID_ARGUMENT"): WithCode<TypeError> {
  return withCode(new TypeError(message), code);
}

export function rangeError(message: string, code: CtxwinErrorCode = "ERR_CTXWIN_OUT_OF_RANGE"): WithCode<RangeError> {
  return withCode(new RangeError(message), code);
}

export function plainError(message: string, code: CtxwinErrorCode): WithCode<Error> {
  return withCode(new Error(message), code);
}

/** A short description of a value for error messages: `got number 42`, `got null`. */
export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "string":
      return `string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}`;
    case "number":
    case "bigint":
    case "boolean":
      return `${typeof value} ${String(value)}`;
    case "undefined":
      return "undefined";
    case "function":
      return "a function";
    case "symbol":
      return "a symbol";
    default:
      return "an object";
  }
}

/** The longest prefix of an input an error message quotes: a hostile 1 MB model id is not repeated whole. */
export const MAX_QUOTED_CHARS = 80;

/** `text` as a JSON string, cut to MAX_QUOTED_CHARS characters (with "..." and its length when cut). */
export function quoted(text: string): string {
  return text.length > MAX_QUOTED_CHARS ? `${JSON.stringify(text.slice(0, MAX_QUOTED_CHARS))}... (${text.length} characters)` : JSON.stringify(text);
}

export function requireString(value: unknown, name: string): string {
  if (typeof value !== "string") throw typeError(`${name} must be a string, got ${describe(value)}`);
  return value;
}

/** A whole number >= `minimum` (token counts, sizes): TypeError for a non-number, RangeError otherwise. */
export function requireCount(value: unknown, name: string, minimum = 0): number {
  if (typeof value !== "number") throw typeError(`${name} must be a number, got ${describe(value)}`);
  if (!Number.isInteger(value) || value < minimum) throw rangeError(`${name} must be an integer >= ${minimum}, got ${value}`);
  return value;
}
