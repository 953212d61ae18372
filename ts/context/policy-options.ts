// The manager's policy options, checked together before anything is built: a bad value throws a
// coded RangeError naming it, and the manager is never half made.
import { describe, rangeError } from "../runtime/errors.js";
import type { MessageLike } from "../messages/types.js";
import type { MessageContextManagerOptions } from "./options.js";

export interface PolicyOptions {
  /** What a request over the window after every trim gets: a coded error, or sent as it is. */
  onOverflow: "error" | "send";
  /** The share of the window at which a trim starts. */
  trimAt: number;
  /** The share a trim cuts down to (hysteresis: below trimAt, so requests grow between trims). */
  trimTo: number;
  /** A tool result without its call: an error, or dropped. */
  orphanToolResults: "error" | "drop";
}

export function checkPolicyOptions(options: Pick<MessageContextManagerOptions<MessageLike>, "onOverflow" | "trimAt" | "trimTo" | "orphanToolResults">): PolicyOptions {
  const onOverflow = options.onOverflow ?? "error";
  if (onOverflow !== "error" && onOverflow !== "send") throw rangeError(`options.onOverflow must be "error" or "send", got ${describe(onOverflow)}`);
  const trimAt = options.trimAt ?? 0.8;
  if (typeof trimAt !== "number" || !(trimAt > 0 && trimAt <= 1)) throw rangeError(`options.trimAt must be a number in (0, 1], got ${describe(trimAt)}`);
  const trimTo = options.trimTo ?? Math.min(0.6, trimAt);
  if (typeof trimTo !== "number" || !(trimTo > 0 && trimTo <= trimAt)) {
    throw rangeError(`options.trimTo must be a number in (0, trimAt = ${trimAt}], got ${describe(trimTo)}`);
  }
  const orphanToolResults = options.orphanToolResults ?? "error";
  if (orphanToolResults !== "error" && orphanToolResults !== "drop") {
    throw rangeError(`options.orphanToolResults must be "error" or "drop", got ${describe(options.orphanToolResults)}`);
  }
  return { onOverflow, trimAt, trimTo, orphanToolResults };
}
