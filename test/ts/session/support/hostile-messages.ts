// Adversarial messages (issue 39): the shapes ctxwin reads, with what a hostile or careless caller
// puts inside them spliced in at random places: cycles, BigInts, holes, NaN and Infinity, Maps,
// Sets, Dates, bytes, toJSON methods, getters and Proxies that throw, functions, symbols, nesting
// past any bound, prototype-less and __proto__-keyed objects, lone surrogates, long keys. Each is
// fresh (a cycle or a Proxy cannot be shared between runs). Used by the property tests and the
// chaos run; `operations` drives a manager through them.
import fc from "fast-check";
import { isCtxwinError, type MessageLike } from "ctxwin";

/** Something to splice into a message: builds a fresh value each time. */
type Splice = () => unknown;

function deep(levels: number): unknown {
  let value: unknown = "bottom";
  for (let i = 0; i < levels; i++) value = i % 2 ? { next: value } : [value];
  return value;
}

const SPLICES: Array<[string, Splice]> = [
  [
    "a cycle",
    () => {
      const o: Record<string, unknown> = { a: 1 };
      o.self = o;
      return o;
    },
  ],
  ["a BigInt", () => 12345678901234567890n],
  [
    "a hole",
    () => {
      const a: unknown[] = [1];
      a[3] = 4;
      return a;
    },
  ],
  ["NaN", () => Number.NaN],
  ["Infinity", () => Number.NEGATIVE_INFINITY],
  ["a Map", () => new Map([["k", 1]])],
  ["a Set", () => new Set([1])],
  ["a Date", () => new Date(0)],
  ["bytes", () => new Uint8Array([1, 2, 3])],
  ["a toJSON", () => ({ toJSON: () => ({ role: "system", content: "rewritten" }) })],
  [
    "a throwing getter",
    () =>
      Object.defineProperty({}, "boom", {
        enumerable: true,
        get: () => {
          throw new Error("getter");
        },
      }),
  ],
  [
    "a throwing Proxy",
    () =>
      new Proxy(
        {},
        {
          ownKeys: () => {
            throw new Error("trap");
          },
        },
      ),
  ],
  [
    "a revoked Proxy",
    () => {
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      return proxy;
    },
  ],
  ["a function", () => () => 1],
  ["a symbol", () => Symbol("s")],
  ["undefined in an array", () => [1, undefined]],
  ["nesting 600 deep", () => deep(600)],
  ["nesting 20,000 deep", () => deep(20_000)],
  ["an array with a property", () => Object.assign([1, 2], { extra: true })],
  [
    "an instance of a class",
    () =>
      new (class Point {
        x = 1;
      })(),
  ],
];

/** Values a session's log holds and gives back equal (deep-equal: -0 aside, which JSON writes as 0). */
const SAFE_SPLICES: Array<[string, Splice]> = [
  ["a prototype-less object", () => Object.assign(Object.create(null) as object, { a: 1 })],
  ["a __proto__ key", () => JSON.parse('{"__proto__": {"polluted": true}}') as unknown],
  ["a lone surrogate", () => "\uD800x"],
  ["a long key", () => ({ ["k".repeat(5000)]: 1 })],
  ["an undefined property", () => ({ a: undefined, b: 1 })],
  ["nesting 100 deep", () => deep(100)],
  [
    "a shared object",
    () => {
      const shared = { s: 1 };
      return [shared, shared];
    },
  ],
];

export interface HostileMessage {
  /** A fresh copy of the message. */
  make: () => MessageLike;
  /** What was spliced in, or undefined for a message as it came. */
  spliced: string | undefined;
  /** Whether a log can hold it (nothing unsafe spliced in). */
  safe: boolean;
}

const text = fc.string({ unit: "grapheme", maxLength: 40 });
/** Whether `value` holds a -0 at any depth (JSON writes it as 0, so it reopens as 0: documented, not a loss). */
function holdsNegativeZero(value: unknown): boolean {
  if (Object.is(value, -0)) return true;
  if (typeof value !== "object" || value === null) return false;
  return Object.values(value).some(holdsNegativeZero);
}
const json = fc.jsonValue({ maxDepth: 3 }).filter((v) => !holdsNegativeZero(v));

/** A base message of one of the shapes, as a builder of fresh copies (so splices never alias). */
const baseMessages: fc.Arbitrary<(id: string) => MessageLike> = fc.oneof(
  fc.record({ role: fc.constantFrom("user", "assistant", "system"), content: text }).map((m) => () => ({ ...m })),
  fc.record({ text, extra: json }).map(({ text: t, extra }) => () => ({
    role: "user",
    content: [{ type: "text", text: t }],
    providerOptions: { x: structuredClone(extra) },
  })),
  fc.record({ args: json }).map(({ args }) => (id: string) => ({
    role: "assistant",
    content: null,
    tool_calls: [{ id, type: "function", function: { name: "run", arguments: { value: structuredClone(args) } } }],
  })),
  fc.record({ input: json }).map(({ input }) => (id: string) => ({
    role: "assistant",
    content: [{ type: "tool-call", toolCallId: id, toolName: "run", input: { value: structuredClone(input) } }],
  })),
  fc.record({ t: text }).map(({ t }) => (id: string) => ({
    role: "assistant",
    content: [{ type: "tool_use", id, name: "run", input: { t } }],
  })),
);

/** Where a splice goes: a new key of the message, of its first part, or of its tool arguments. */
function spliceInto(message: Record<string, unknown>, where: number, value: unknown): void {
  const content = message.content;
  const calls = message.tool_calls;
  if (where === 1 && Array.isArray(content) && content[0] !== null && typeof content[0] === "object") {
    (content[0] as Record<string, unknown>).hostile = value;
  } else if (where === 2 && Array.isArray(calls)) {
    ((calls[0] as { function: { arguments: Record<string, unknown> } }).function.arguments as Record<string, unknown>).hostile = value;
  } else {
    message.hostile = value;
  }
}

/** Tool-call ids, unique across every message made. */
let calls = 0;

/** A message, often with something spliced in. */
export const hostileMessages: fc.Arbitrary<HostileMessage> = fc
  .record({
    base: baseMessages,
    splice: fc.option(
      fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...SPLICES) }, { weight: 1, arbitrary: fc.constantFrom(...SAFE_SPLICES) }),
      { freq: 3 },
    ),
    where: fc.integer({ min: 0, max: 2 }),
  })
  .map(({ base, splice, where }) => {
    return {
      make: () => {
        const message = base(`call-${calls++}`) as Record<string, unknown>;
        if (splice) spliceInto(message, where, splice[1]());
        return message as MessageLike;
      },
      spliced: splice?.[0],
      safe: splice === null || SAFE_SPLICES.includes(splice),
    };
  });

export type Operation = { op: "add"; message: HostileMessage } | { op: "trim" } | { op: "clear" } | { op: "flush" };

export const operations = (maxLength = 30): fc.Arbitrary<Operation[]> =>
  fc.array(
    fc.oneof(
      { weight: 8, arbitrary: hostileMessages.map((message) => ({ op: "add" as const, message })) },
      { weight: 1, arbitrary: fc.constant({ op: "trim" as const }) },
      { weight: 1, arbitrary: fc.constant({ op: "clear" as const }) },
      { weight: 1, arbitrary: fc.constant({ op: "flush" as const }) },
    ),
    { maxLength },
  );

/** An error the public API may throw: coded, short. */
export function isCoded(error: unknown): boolean {
  return isCtxwinError(error) && typeof error.message === "string" && error.message.length < 1000;
}
