// The door of a session's log: whether a value is what the log can hold and give back.
//
// A session's log holds JSON. What JSON cannot carry does not fail where it was added: a cycle or a
// BigInt fails every later append (the view and the log part for good), and a hole, NaN, a Map, a
// Date or a `toJSON` is written as something else (null, {}, a string, whatever toJSON returned),
// so the session reopens to other messages than the view held, or does not reopen at all. So a
// value is walked once, before anything changes, and refused with a coded error naming its path
// unless its JSON gives back an equal value: plain objects (Object.prototype or none) and arrays
// without holes or extra properties, strings, finite numbers, booleans, null. Properties whose value
// is undefined are allowed (JSON leaves them out, and so does a deep comparison); -0 is written as 0.
//
// The walk is iterative (no input overflows the stack), bounded in depth (MAX_JSON_DEPTH) and in
// work by the JSON the value would write (each node costs at least a byte of it: an array claiming
// 10^9 elements is refused before one is read), and whatever reading the value throws (a getter, a
// revoked Proxy) becomes a coded error too. Error messages quote at most a bounded prefix of what
// they name (keys, values, paths).
//
// Without `strict`, values of other prototypes (class instances, typed arrays, Dates, LangChain
// messages) are leaves the walk does not enter and toJSON and non-finite numbers pass: the checks a
// history needs whatever keeps it (no cycle, BigInt, hole, function, symbol or depth that would
// break counting or an export), for a manager without a log.
import { describe, rangeError, typeError, type CtxwinErrorCode, type WithCode } from "../runtime/errors.js";
import { utf8Length } from "../runtime/utf8.js";
import { MAX_JSON_DEPTH } from "./message-shape.js";

/**
 * The JSON of one message a session's log takes, at most: one append holds 64 MiB of JSON
 * (store.ts's MAX_APPEND_BYTES), less room for the entry around the message and a file line's header.
 */
export const MAX_LOGGED_BYTES = 64 * 1024 * 1024 - 64 * 1024;

/** JSON's escapes write a UTF-16 unit as at most 6 bytes: below this share of the bound, the walk's estimate decides. */
const ESCAPE_FACTOR = 6;

/** What is wrong with a value, where, and which error it makes. */
export interface JsonProblem {
  /** The path of the offending value, rendered with bounded keys (e.g. `message.content[2]`). */
  path: string;
  /** What is wrong, ending the sentence that starts with the path. */
  problem: string;
  /** "type": a value of the wrong kind; "depth": nested too deep; "size": more JSON than the bound. */
  kind: "type" | "depth" | "size";
}

export interface JsonCheckOptions {
  /** Refuse everything whose JSON is not an equal value (see above); default true. */
  strict?: boolean;
  /** The bound on the value's JSON, in bytes (default MAX_LOGGED_BYTES when strict, none otherwise). */
  maxBytes?: number;
  /** A property of the root the walk leaves alone (its caller walks it apart: an export's turns). */
  skip?: string;
}

/** One object on the walk's path: its children are visited from `next` on. */
interface Frame {
  value: object;
  parent: Frame | undefined;
  key: string | number;
  depth: number;
  /** Children: an array's length, or an object's own enumerable string keys. */
  keys: readonly string[] | number;
  next: number;
  /** Bytes of JSON the frame's subtree writes, so far. */
  bytes: number;
  /** Levels below the frame, so far. */
  height: number;
}

const MAX_KEY_CHARS = 40;
const MAX_PATH_CHARS = 200;
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function segment(key: string | number): string {
  if (typeof key === "number") return `[${key}]`;
  const shown = key.length > MAX_KEY_CHARS ? `${key.slice(0, MAX_KEY_CHARS)}...` : key;
  return IDENTIFIER.test(key) ? `.${shown}` : `[${JSON.stringify(shown)}]`;
}

/** The path of (`parent`, `key`) below `root`, at most about MAX_PATH_CHARS characters. */
function pathOf(root: string, parent: Frame | undefined, key: string | number | undefined): string {
  const parts: string[] = [];
  if (key !== undefined) parts.push(segment(key));
  for (let f = parent; f !== undefined && f.parent !== undefined; f = f.parent) parts.push(segment(f.key));
  parts.reverse();
  const path = root + parts.join("");
  if (path.length <= MAX_PATH_CHARS) return path;
  // Whole segments from each end, the levels between them counted.
  let head = root;
  let first = 0;
  while (first < parts.length && head.length + (parts[first] as string).length <= MAX_PATH_CHARS / 2) head += parts[first++];
  let tail = "";
  let last = parts.length;
  while (last > first && tail.length + (parts[last - 1] as string).length <= MAX_PATH_CHARS / 2) tail = parts[--last] + tail;
  return `${head}...(${last - first} levels)...${tail}`;
}

function isPlainPrototype(proto: unknown): boolean {
  if (proto === null || proto === Object.prototype) return true;
  // Object.prototype of another realm (a vm context, an iframe): an object whose own prototype is null and whose constructor is Object.
  return (
    Object.getPrototypeOf(proto) === null &&
    typeof (proto as { constructor?: unknown }).constructor === "function" &&
    (proto as { constructor: { name?: unknown } }).constructor.name === "Object"
  );
}

/** A short name for a value of another prototype: `a Map`, `an instance of HumanMessage`. */
function kindOf(value: object): string {
  if (ArrayBuffer.isView(value)) return `a ${value.constructor?.name ?? "typed array"} (binary data)`;
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  if (typeof name !== "string" || name === "") return "an object of another prototype";
  if (["Map", "Set", "Date", "RegExp", "URL", "WeakMap", "WeakSet", "Promise", "Error", "ArrayBuffer"].includes(name)) return `a ${name}`;
  return `an instance of ${name.length > MAX_KEY_CHARS ? `${name.slice(0, MAX_KEY_CHARS)}...` : name}`;
}

function thrownText(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : describe(error);
  return text.length > 120 ? `${text.slice(0, 120)}...` : text;
}

/** The quick path's reach: messages are small and shallow; anything past these takes the full walk. */
const QUICK_DEPTH = 12;
const QUICK_NODES = 2000;

/**
 * Whether `value` is certainly fine, found by a short recursive look (bounded in depth and nodes,
 * so it cannot overflow the stack; a cycle just runs into the depth bound). False means "look
 * properly": the full walk finds the problem and its path, or accepts.
 */
function quicklyFine(value: unknown, strict: boolean, maxBytes: number): boolean {
  let nodes = 0;
  let bytes = 0;
  const fine = (v: unknown, depth: number, inArray: boolean): boolean => {
    switch (typeof v) {
      case "string":
        bytes += v.length;
        return true;
      case "number":
        return !strict || Number.isFinite(v);
      case "boolean":
        return true;
      case "undefined":
        return !inArray && depth > 0;
      case "object":
        break;
      default:
        return false;
    }
    if (v === null) return true;
    if (depth >= QUICK_DEPTH || ++nodes > QUICK_NODES) return false;
    if (Array.isArray(v)) {
      const length = v.length;
      if (length > QUICK_NODES || (strict && Object.keys(v).length !== length)) return false;
      for (let i = 0; i < length; i++) if (!(i in v) || !fine(v[i], depth + 1, true)) return false;
      return true;
    }
    const proto: unknown = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return false;
    if (strict && typeof (v as { toJSON?: unknown }).toJSON === "function") return false;
    for (const key in v) {
      if (!Object.hasOwn(v, key)) return false;
      if (!fine((v as Record<string, unknown>)[key], depth + 1, false)) return false;
    }
    return true;
  };
  try {
    return fine(value, 0, false) && bytes * ESCAPE_FACTOR <= maxBytes;
  } catch {
    return false; // a getter or a trap threw: the full walk says where
  }
}

/**
 * What is wrong with `value` as JSON the log can hold and give back, or undefined. `root` is the
 * path the problem's path starts with (`message`, `messages[3]`, `turns[2]`). Never throws.
 */
export function jsonProblem(value: unknown, root: string, options: JsonCheckOptions = {}): JsonProblem | undefined {
  const strict = options.strict ?? true;
  // No log, no bound on size: what is counted is read whole anyway.
  const maxBytes = options.maxBytes ?? (strict ? MAX_LOGGED_BYTES : Number.MAX_SAFE_INTEGER);
  if (options.skip === undefined && quicklyFine(value, strict, maxBytes)) return undefined;
  const open = new Set<object>();
  /** Subtrees walked already (shared objects are written once per place: their size counts each time). */
  const done = new Map<object, { bytes: number; height: number }>();
  let total = 0;
  let current: Frame | undefined;
  const fail = (key: string | number | undefined, problem: string, kind: JsonProblem["kind"] = "type"): JsonProblem => ({
    path: pathOf(root, current, key),
    problem,
    kind,
  });
  const tooLarge = (key: string | number | undefined) =>
    fail(key, `holds more than ${maxBytes} bytes of JSON, more than one append of a session's log may hold`, "size");

  /** Visits a child (or the root); returns a problem, or undefined (a new frame may be pushed). */
  const visit = (child: unknown, key: string | number | undefined, inArray: boolean): JsonProblem | undefined => {
    let bytes: number;
    switch (typeof child) {
      case "string":
        bytes = child.length + 2;
        break;
      case "number":
        if (strict && !Number.isFinite(child)) return fail(key, `is ${child}, which JSON writes as null`);
        bytes = 1;
        break;
      case "boolean":
        bytes = 4;
        break;
      case "bigint":
        return fail(key, `is a bigint (${describe(child)}), which JSON cannot hold`);
      case "undefined":
        if (key === undefined) return fail(key, "is undefined, which JSON cannot hold");
        if (inArray) return fail(key, "is undefined in an array, which JSON writes as null");
        return undefined; // left out of its object by JSON, and by a deep comparison
      case "function":
      case "symbol":
        if (key === undefined || strict) return fail(key, `is ${describe(child)}, which JSON ${inArray ? "writes as null" : "leaves out"}`);
        return undefined;
      default: {
        if (child === null) {
          bytes = 4;
          break;
        }
        const object = child as object;
        if (open.has(object)) return fail(key, "refers back to an object that contains it (a cycle), which JSON cannot hold");
        const depth = (current?.depth ?? -1) + 1;
        const seen = done.get(object);
        if (seen !== undefined) {
          if (depth + seen.height > MAX_JSON_DEPTH) return fail(key, `nests more than ${MAX_JSON_DEPTH} levels deep`, "depth");
          bytes = seen.bytes;
          break;
        }
        const isArray = Array.isArray(object);
        if (!isArray) {
          if (!isPlainPrototype(Object.getPrototypeOf(object))) {
            if (strict)
              return fail(
                key,
                `is ${kindOf(object)}, which JSON would give back as another value: pass plain objects, arrays, strings, numbers, booleans and null`,
              );
            bytes = 2; // a leaf: what keeps no log needs no JSON of it
            break;
          }
          if (strict && typeof (object as { toJSON?: unknown }).toJSON === "function")
            return fail(key, "has a toJSON method, which would write something else in its place");
        }
        if (depth > MAX_JSON_DEPTH) return fail(key, `nests more than ${MAX_JSON_DEPTH} levels deep`, "depth");
        let keys: readonly string[] | number;
        if (isArray) {
          const length = (object as unknown[]).length;
          // Each element writes at least a byte: a length past the bound is refused before any is read.
          if (length > maxBytes - total) return tooLarge(key);
          const own = Object.keys(object);
          for (let i = 0; i < length; i++) {
            if (own[i] !== String(i)) {
              current = { value: object, parent: current, key: key ?? "", depth, keys: 0, next: 0, bytes: 0, height: 0 };
              const problem = fail(i, "is a hole in its array, which JSON writes as null");
              current = current.parent;
              return problem;
            }
          }
          if (strict && own.length > length)
            return fail(
              key,
              `is an array with a property ${JSON.stringify((own[length] as string).slice(0, MAX_KEY_CHARS))}, which JSON leaves out`,
            );
          keys = length;
        } else {
          keys = Object.keys(object);
        }
        open.add(object);
        current = { value: object, parent: current, key: key ?? "", depth, keys, next: 0, bytes: 2, height: 0 };
        return undefined;
      }
    }
    total += bytes;
    if (current) current.bytes += bytes;
    if (total > maxBytes) return tooLarge(key);
    return undefined;
  };

  try {
    const first = visit(value, undefined, false);
    if (first) return first;
    while (current !== undefined) {
      const frame: Frame = current;
      const count = typeof frame.keys === "number" ? frame.keys : frame.keys.length;
      if (frame.next < count) {
        const i = frame.next++;
        let problem: JsonProblem | undefined;
        if (typeof frame.keys === "number") {
          problem = visit((frame.value as unknown[])[i], i, true);
          total += 1; // the comma
        } else {
          const key = frame.keys[i] as string;
          if (frame.parent === undefined && key === options.skip) continue;
          const child = (frame.value as Record<string, unknown>)[key];
          problem = visit(child, key, false);
          if (child !== undefined && typeof child !== "function" && typeof child !== "symbol") {
            total += key.length + 4; // "key":,
            frame.bytes += key.length + 4;
          }
        }
        if (problem) return problem;
        if (total > maxBytes) return tooLarge(undefined);
        continue;
      }
      // Every child visited: the frame's size and height are final.
      open.delete(frame.value);
      done.set(frame.value, { bytes: frame.bytes, height: frame.height });
      current = frame.parent;
      if (current) {
        current.bytes += frame.bytes;
        current.height = Math.max(current.height, frame.height + 1);
      } else {
        total = Math.max(total, frame.bytes);
      }
    }
    // The walk counts each byte JSON must write, not its escapes: near the bound, the JSON itself decides.
    if (strict && total * ESCAPE_FACTOR > maxBytes && utf8Length(JSON.stringify(value) ?? "") > maxBytes) return tooLarge(undefined);
    return undefined;
  } catch (error) {
    // A getter or a Proxy trap threw (or a revoked Proxy): the value cannot be read, let alone logged.
    return { path: pathOf(root, current, undefined), problem: `cannot be read: it threw ${thrownText(error)}`, kind: "type" };
  }
}

/** The coded error of a problem: TypeError for a value of the wrong kind, RangeError for depth and size. */
export function problemError(
  problem: JsonProblem,
  prefix = "",
  sizeCode: CtxwinErrorCode = "ERR_CTXWIN_OUT_OF_RANGE",
): WithCode<TypeError | RangeError> {
  const message = `${prefix}${problem.path} ${problem.problem}`;
  if (problem.kind === "size") return rangeError(message, sizeCode);
  return problem.kind === "depth" ? rangeError(message) : typeError(message);
}

/**
 * Checks `message` (at path `at`) before anything changes: throws a coded TypeError / RangeError
 * naming the path unless it is what a session's log can hold and give back (strict), or, without
 * `strict`, at least what a history can read, count and export without breaking.
 */
export function checkLoggable(message: unknown, at: string, strict = true): void {
  const problem = jsonProblem(message, at, { strict });
  if (problem) throw problemError(problem, "", "ERR_CTXWIN_SESSION_TOO_LARGE");
}

/**
 * Checks a list of messages (load, an adapter's batch): an array without holes, each message
 * checked as checkLoggable checks one (the bound on size is each message's: a log splits a long
 * batch into appends).
 */
export function checkLoggableList(messages: unknown, at: string, strict = true): void {
  if (!Array.isArray(messages)) throw typeError(`${at} must be an array, got ${describe(messages)}`);
  const length = messages.length;
  // The keys it really has (an array claiming 10^9 elements has few): a hole is found at once.
  const own = Object.keys(messages);
  for (let i = 0; i < length; i++) {
    if (own[i] !== String(i)) throw typeError(`${at}[${i}] is a hole in its array, which JSON writes as null`);
  }
  for (let i = 0; i < length; i++) checkLoggable(messages[i], `${at}[${i}]`, strict);
}
