// Shape checks for the AgentThread arguments of the thread manager's API.
import { describe, typeError } from "../runtime/errors.js";
import type { AgentEvent, AgentThread } from "./types.js";

/** Returns the thread's events after checking the thread is an object with an `events` array. */
export function threadEvents(thread: unknown, name = "thread"): AgentEvent[] {
  if (thread === null || typeof thread !== "object") {
    throw typeError(`${name} must be an AgentThread object, got ${describe(thread)}`, "ERR_CTXWIN_INVALID_THREAD");
  }
  const events = (thread as Partial<AgentThread>).events;
  if (!Array.isArray(events)) {
    throw typeError(`${name}.events must be an array, got ${describe(events)}`, "ERR_CTXWIN_INVALID_THREAD");
  }
  return events;
}

/** Checks one event: an object with (unless `iteration: false`) a numeric `iteration`. */
export function checkEvent(event: unknown, index: number, name = "thread", need = { iteration: true }): asserts event is AgentEvent {
  if (event === null || typeof event !== "object") {
    throw typeError(`${name}.events[${index}] must be an event object, got ${describe(event)}`, "ERR_CTXWIN_INVALID_THREAD");
  }
  if (!need.iteration) return;
  const iteration = (event as { iteration?: unknown }).iteration;
  if (typeof iteration !== "number") {
    throw typeError(`${name}.events[${index}].iteration must be a number, got ${describe(iteration)}`, "ERR_CTXWIN_INVALID_THREAD");
  }
}
