// The typed emitter behind MessageContextManager's and ContextCompactor's events, against Node's
// EventEmitter as the reference: random scripts of on / once / off / emit / removeAllListeners,
// with listeners that add, remove and emit while an emit runs, must call the same listeners with
// the same arguments in the same order, and report the same counts, on both.
import { EventEmitter } from "node:events";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ContextLimits, MessageContextManager } from "ctxwin";
import { ApproximateCounter } from "ctxwin/tokens";
import { TypedEventEmitter } from "../../../ts/runtime/event-emitter.js";

type Events = { a: [number]; b: [number] };
type EventName = keyof Events;

/** What a listener does besides recording its call, while the emit that called it runs. */
type Effect =
  | { kind: "none" }
  | { kind: "offSelf" }
  | { kind: "off"; listener: number; event: EventName }
  | { kind: "on"; listener: number; event: EventName }
  | { kind: "once"; listener: number; event: EventName }
  | { kind: "emit"; event: EventName }
  | { kind: "removeAll"; event: EventName | undefined };

type Step =
  | { op: "on" | "once" | "off"; event: EventName; listener: number }
  | { op: "emit"; event: EventName; value: number }
  | { op: "removeAll"; event: EventName | undefined }
  | { op: "count"; event: EventName };

interface Emitter {
  on(event: EventName, listener: (value: number) => void): unknown;
  once(event: EventName, listener: (value: number) => void): unknown;
  off(event: EventName, listener: (value: number) => void): unknown;
  emit(event: EventName, value: number): boolean;
  removeAllListeners(event?: EventName): unknown;
  listenerCount(event: EventName): number;
}

const LISTENERS = 4;
const event = fc.constantFrom<EventName>("a", "b");
const listener = fc.integer({ min: 0, max: LISTENERS - 1 });
const effect: fc.Arbitrary<Effect> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: "none" as const }) },
  fc.constant({ kind: "offSelf" as const }),
  fc.record({ kind: fc.constant("off" as const), listener, event }),
  fc.record({ kind: fc.constant("on" as const), listener, event }),
  fc.record({ kind: fc.constant("once" as const), listener, event }),
  fc.record({ kind: fc.constant("emit" as const), event }),
  fc.record({ kind: fc.constant("removeAll" as const), event: fc.option(event, { nil: undefined }) }),
);
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constantFrom("on" as const, "once" as const, "off" as const), event, listener }),
  fc.record({ op: fc.constant("emit" as const), event, value: fc.integer({ min: 0, max: 99 }) }),
  fc.record({ op: fc.constant("removeAll" as const), event: fc.option(event, { nil: undefined }) }),
  fc.record({ op: fc.constant("count" as const), event }),
);

/** Node reads removeAllListeners(undefined) as the event named undefined: no argument means every event. */
function removeAll(emitter: Emitter, event: EventName | undefined): unknown {
  return event === undefined ? emitter.removeAllListeners() : emitter.removeAllListeners(event);
}

/** Runs `script` on `emitter`; the log of every listener call and every result. */
function run(emitter: Emitter, effects: Effect[], script: Step[]): unknown[] {
  const log: unknown[] = [];
  let depth = 0;
  const listeners: Array<(value: number) => void> = [];
  for (let id = 0; id < LISTENERS; id++) {
    listeners.push(function (this: unknown, value: number) {
      log.push(["call", id, value, this === emitter]);
      const e = effects[id]!;
      switch (e.kind) {
        case "offSelf":
          emitter.off("a", listeners[id]!);
          emitter.off("b", listeners[id]!);
          break;
        case "off":
          emitter.off(e.event, listeners[e.listener]!);
          break;
        case "on":
          emitter.on(e.event, listeners[e.listener]!);
          break;
        case "once":
          emitter.once(e.event, listeners[e.listener]!);
          break;
        case "emit":
          // Bounded: a listener that emits the event it listens to would recurse forever.
          if (depth < 2) {
            depth++;
            log.push(["nested", emitter.emit(e.event, value + 100)]);
            depth--;
          }
          break;
        case "removeAll":
          removeAll(emitter, e.event);
          break;
        case "none":
          break;
      }
    });
  }
  for (const s of script) {
    switch (s.op) {
      case "on":
      case "once":
      case "off":
        log.push([s.op, emitter[s.op](s.event, listeners[s.listener]!) === emitter]);
        break;
      case "emit":
        log.push(["emit", emitter.emit(s.event, s.value)]);
        break;
      case "removeAll":
        log.push(["removeAll", removeAll(emitter, s.event) === emitter]);
        break;
      case "count":
        log.push(["count", emitter.listenerCount(s.event)]);
        break;
    }
    log.push(["counts", emitter.listenerCount("a"), emitter.listenerCount("b")]);
  }
  return log;
}

describe("TypedEventEmitter", () => {
  it("calls the same listeners in the same order as Node's EventEmitter, for any script", () => {
    fc.assert(
      fc.property(
        fc.array(effect, { minLength: LISTENERS, maxLength: LISTENERS }),
        fc.array(step, { maxLength: 40 }),
        (effects, script) => {
          const reference = run(new EventEmitter<Events>() as unknown as Emitter, effects, script);
          const ours = run(new TypedEventEmitter<Events>() as unknown as Emitter, effects, script);
          expect(ours).toEqual(reference);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("lets a throwing listener's error reach the emit, and stops that emit there, as Node does", () => {
    for (const emitter of [new EventEmitter<Events>(), new TypedEventEmitter<Events>()] as unknown as Emitter[]) {
      const calls: string[] = [];
      emitter.on("a", () => calls.push("first"));
      emitter.on("a", () => {
        throw new Error("listener failed");
      });
      emitter.on("a", () => calls.push("third"));
      expect(() => emitter.emit("a", 1)).toThrow("listener failed");
      expect(calls).toEqual(["first"]);
    }
  });

  it("refuses a listener that is not a function with a coded TypeError, and changes nothing", () => {
    const emitter = new TypedEventEmitter<Events>();
    for (const bad of [undefined, null, 42, "listener", {}]) {
      for (const method of ["on", "once", "off"] as const) {
        const call = () => (emitter[method] as (event: string, listener: unknown) => unknown)("a", bad);
        expect(call).toThrow(TypeError);
        expect(call).toThrow(expect.objectContaining({ code: "ERR_CTXWIN_INVALID_ARGUMENT" }));
      }
    }
    expect(emitter.listenerCount("a")).toBe(0);
  });

  it("is what MessageContextManager's events run on: on, once, off and the warning events", () => {
    const limits = new ContextLimits({ model: "test", maxTokens: 1000, maxOutputTokens: 0, reservedTokens: 0 });
    const cm = new MessageContextManager({ model: "test", limits, counter: new ApproximateCounter(), compaction: { trimAt: 0.95 } });
    const warnings: string[] = [];
    const once: string[] = [];
    const record = (w: { message: string }) => warnings.push(w.message);
    expect(cm.on("warning", record)).toBe(cm);
    cm.once("warning", (w) => once.push(w.message));
    cm.addMessage({ role: "user", content: "word ".repeat(850) }); // past 80% and 90% at once
    expect(warnings).toHaveLength(2);
    expect(once).toEqual(warnings.slice(0, 1));
    cm.off("warning", record);
    expect(cm.listenerCount("warning")).toBe(0);
    expect(() => cm.on("trimmed", 7 as never)).toThrow(expect.objectContaining({ name: "TypeError", code: "ERR_CTXWIN_INVALID_ARGUMENT" }));
  });
});
