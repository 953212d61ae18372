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
  "ERR_CTXWIN_SESSION_IO",
  "ERR_CTXWIN_CONTEXT_OVERFLOW",
  "ERR_CTXWIN_RECALL_UNKNOWN_ID",
  "ERR_CTXWIN_RECALL_EVICTED",
  "ERR_CTXWIN_ABORTED",
] as const;

export type CtxwinErrorCode = (typeof ERROR_CODES)[number];

const CODES: ReadonlySet<string> = new Set(ERROR_CODES);

/** Whether `value` is one of ERROR_CODES. */
export function isErrorCode(value: unknown): value is CtxwinErrorCode {
  return typeof value === "string" && CODES.has(value);
}

/**
 * What every class here stamps on its instances. Symbol.for, not a local symbol: two copies of
 * ctxwin in one process (the ESM and CommonJS builds, or two versions under node_modules) make two
 * sets of classes, and an error of one must still be a CtxwinError to the other.
 */
const BRAND: unique symbol = Symbol.for("ctxwin.error") as never;

/** An Error (of any realm: a worker's, a vm context's) whose `code` is one of ERROR_CODES, or one of ours. */
function coded(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  if ((value as { [BRAND]?: unknown })[BRAND] === true) return true;
  return Object.prototype.toString.call(value) === "[object Error]" && isErrorCode((value as { code?: unknown }).code);
}

const ordinaryInstanceOf = (target: object, value: unknown): boolean => Function.prototype[Symbol.hasInstance].call(target, value);

/** Options of the error classes: `cause`, the error this one wraps (a loader's, a file system's). */
export interface CtxwinErrorOptions {
  cause?: unknown;
}

function brand(error: Error): void {
  // Non-enumerable, as `name` and `message` are: the brand is not what a logger or a test's
  // toEqual should see, `code` is.
  Object.defineProperty(error, BRAND, { value: true });
}

/**
 * The error ctxwin throws or rejects with, its `code` one of ERROR_CODES (a `switch` over
 * CtxwinErrorCode is exhaustive). Bad arguments are CtxwinTypeError / CtxwinRangeError, which
 * stay TypeError / RangeError; this class is the rest (a file, a store, a missing package).
 *
 * `instanceof CtxwinError` is true for all three, and for the errors the native core, the binding
 * and the WebAssembly build throw: those are made in C++ (node-addon-api's TypeError / RangeError /
 * Error with `code` set) and cannot be instances of a JavaScript class without every core call
 * being wrapped, so Symbol.hasInstance accepts an Error whose code is one of ERROR_CODES as well as
 * the brand. Errors of the caller's own code (their summary model, their store) carry no such code
 * and pass through unchanged.
 */
export class CtxwinError extends Error {
  code: CtxwinErrorCode;

  constructor(message: string, code: CtxwinErrorCode, options?: CtxwinErrorOptions) {
    super(message, options);
    this.code = code;
    brand(this);
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    // A subclass of CtxwinError (none is exported; a user's may be) checks its prototype as usual.
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class instanceof asked about, which may be a subclass
    if (this !== CtxwinError) return ordinaryInstanceOf(this, value);
    return coded(value);
  }
}

// On the prototype, as Error's own is, so the stack's first line says it too.
Object.defineProperty(CtxwinError.prototype, "name", { value: "CtxwinError", writable: true, configurable: true });

/**
 * A bad argument of the wrong type or shape: a TypeError (every `instanceof TypeError` and
 * `toThrow(TypeError)` holds) and a CtxwinError. Its `name` stays "TypeError", as the core's own
 * TypeErrors are named, so the same mistake reads the same whichever layer caught it.
 */
export class CtxwinTypeError extends TypeError {
  code: CtxwinErrorCode;

  constructor(message: string, code: CtxwinErrorCode = "ERR_CTXWIN_INVALID_ARGUMENT", options?: CtxwinErrorOptions) {
    super(message, options);
    this.code = code;
    brand(this);
  }

  /** A ctxwin TypeError, ours or the core's (see CtxwinError). */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class instanceof asked about, which may be a subclass
    if (this !== CtxwinTypeError) return ordinaryInstanceOf(this, value);
    return value instanceof TypeError && coded(value);
  }
}

/** A value of the right type out of its domain: a RangeError and a CtxwinError, `name` "RangeError". */
export class CtxwinRangeError extends RangeError {
  code: CtxwinErrorCode;

  constructor(message: string, code: CtxwinErrorCode = "ERR_CTXWIN_OUT_OF_RANGE", options?: CtxwinErrorOptions) {
    super(message, options);
    this.code = code;
    brand(this);
  }

  /** A ctxwin RangeError, ours or the core's (see CtxwinError). */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class instanceof asked about, which may be a subclass
    if (this !== CtxwinRangeError) return ordinaryInstanceOf(this, value);
    return value instanceof RangeError && coded(value);
  }
}

/**
 * Whether `error` is a ctxwin error (see CtxwinError: ours, or the core's with a ctxwin code), and
 * with `code` (one code or a list), whether it carries that code; narrows `error.code` to it.
 */
export function isCtxwinError<C extends CtxwinErrorCode = CtxwinErrorCode>(
  error: unknown,
  code?: C | readonly C[],
): error is CtxwinError & { code: C } {
  if (!coded(error)) return false;
  if (code === undefined) return true;
  const actual = (error as { code: CtxwinErrorCode }).code;
  return typeof code === "string" ? actual === code : (code as readonly CtxwinErrorCode[]).includes(actual);
}

/** An error of ours with `code` narrowed (store and export errors carry extra fields besides). */
export type WithCode<E extends Error> = E & { code: CtxwinErrorCode };

export function typeError(
  message: string,
  code: CtxwinErrorCode = "ERR_CTXWIN_INVALID_ARGUMENT",
  options?: CtxwinErrorOptions,
): CtxwinTypeError {
  return new CtxwinTypeError(message, code, options);
}

export function rangeError(
  message: string,
  code: CtxwinErrorCode = "ERR_CTXWIN_OUT_OF_RANGE",
  options?: CtxwinErrorOptions,
): CtxwinRangeError {
  return new CtxwinRangeError(message, code, options);
}

export function plainError(message: string, code: CtxwinErrorCode, options?: CtxwinErrorOptions): CtxwinError {
  return new CtxwinError(message, code, options);
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
  return text.length > MAX_QUOTED_CHARS
    ? `${JSON.stringify(text.slice(0, MAX_QUOTED_CHARS))}... (${text.length} characters)`
    : JSON.stringify(text);
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
