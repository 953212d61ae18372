// The events of the classes that report what they did (MessageContextManager's warnings, trims and
// compactions, ContextCompactor's summaries). Node's EventEmitter did this before; this is the part
// of it those classes use, with its semantics, in plain JavaScript: the classes then load in every
// runtime (browsers, Workers, edge) and their declarations need no Node types.
//
// As in Node: listeners run synchronously in the order they were added, on a snapshot taken when
// `emit` starts (one added or removed meanwhile does not change that emit, but a `once` listener
// runs once even when a listener emits again); a listener added twice runs twice; `off` removes the most recently added instance; `off` of a listener given to `once`
// removes it; a listener that throws stops the emit and the error reaches the caller of `emit`.
import { describe, typeError } from "./errors.js";

/** Each event's name and the arguments its listeners receive: `{ trimmed: [TrimEvent] }`. */
export type EventMap<Events> = { [Name in keyof Events]: unknown[] };

/** A listener of event `Name`. */
export type EventListener<Events extends EventMap<Events>, Name extends keyof Events> = (...args: Events[Name]) => void;

type AnyListener = (...args: unknown[]) => void;

/** An entry of a listener list; a `once` entry is marked fired before it runs (nested emits skip it). */
interface Registration {
  readonly listener: AnyListener;
  readonly once: boolean;
  fired: boolean;
}

export class TypedEventEmitter<Events extends EventMap<Events>> {
  readonly #listeners = new Map<keyof Events, Registration[]>();

  /** Calls `listener` on every `event` from now on. */
  on<Name extends keyof Events>(event: Name, listener: EventListener<Events, Name>): this {
    return this.#add(event, listener as AnyListener, false);
  }

  /** Calls `listener` on the next `event` only. */
  once<Name extends keyof Events>(event: Name, listener: EventListener<Events, Name>): this {
    return this.#add(event, listener as AnyListener, true);
  }

  /** Stops calling `listener` (one instance of it, the last added) on `event`. */
  off<Name extends keyof Events>(event: Name, listener: EventListener<Events, Name>): this {
    requireListener(listener);
    const list = this.#listeners.get(event);
    if (list === undefined) return this;
    for (let i = list.length - 1; i >= 0; i--) {
      if (list[i]!.listener === listener) {
        this.#removeAt(event, list, i);
        break;
      }
    }
    return this;
  }

  /** Calls the listeners of `event` with `args`; true when it had any. */
  emit<Name extends keyof Events>(event: Name, ...args: Events[Name]): boolean {
    const list = this.#listeners.get(event);
    if (list === undefined) return false;
    for (const registration of [...list]) {
      if (registration.once) {
        if (registration.fired) continue;
        registration.fired = true;
        const index = list.indexOf(registration);
        if (index !== -1) this.#removeAt(event, list, index);
      }
      registration.listener.apply(this, args);
    }
    return true;
  }

  /** How many listeners `event` has. */
  listenerCount(event: keyof Events): number {
    return this.#listeners.get(event)?.length ?? 0;
  }

  /** Removes every listener of `event`, or of every event when none is named. */
  removeAllListeners(event?: keyof Events): this {
    if (event === undefined) this.#listeners.clear();
    else this.#listeners.delete(event);
    return this;
  }

  #add(event: keyof Events, listener: AnyListener, once: boolean): this {
    requireListener(listener);
    const list = this.#listeners.get(event);
    const registration: Registration = { listener, once, fired: false };
    if (list === undefined) this.#listeners.set(event, [registration]);
    else list.push(registration);
    return this;
  }

  #removeAt(event: keyof Events, list: Registration[], index: number): void {
    list.splice(index, 1);
    if (list.length === 0) this.#listeners.delete(event);
  }
}

function requireListener(listener: unknown): void {
  if (typeof listener !== "function") throw typeError(`listener must be a function, got ${describe(listener)}`);
}
