// The one place the flat option names of 0.x become the grouped form (issue 37): the manager and
// every adapter pass their options through groupOptions() before reading them, so that the rest of
// the code knows only the groups.
//
// Each flat name used gives a DeprecationWarning once per process per name, through
// process.emitWarning (code CTXWIN_DEP_FLAT_OPTION), not the manager's logger: a deprecation is
// about the caller's code, not about a session, so it is said once however many managers are made
// (a logger is per manager, and tests that count a logger's warnings would count these too), and
// Node's own switches apply to it (--no-deprecation silences it, --throw-deprecation makes CI fail
// on it, process.on("warning") sees it). Where there is no process.emitWarning (browsers, Workers)
// it goes to console.warn, once as well.
import { describe, typeError } from "../runtime/errors.js";
import type { MessageLike } from "../messages/types.js";
import type { CompactionOptions, GroupedManagerOptions, MessageContextManagerOptions, WarningOptions } from "./options.js";

type Group = "compaction" | "warnings";

/** Which flat names a caller took, where each goes, and which keys each group holds. */
export interface OptionShape {
  readonly flat: Readonly<Record<string, readonly [Group, string]>>;
  readonly groups: Readonly<Partial<Record<Group, readonly string[]>>>;
}

const COMPACTION_KEYS = [
  "autoTruncate",
  "trimAt",
  "trimTo",
  "timing",
  "strategy",
  "onTrim",
  "pinFirstUserMessage",
  "keepReasoningTurns",
  "maxToolResultTokens",
  "keepToolResults",
  "clearAtLeast",
  "summarizer",
  "summaryRole",
  "maxSummaryTokens",
  "summaryInputTokens",
  "keepUserTokens",
  "preserveLast",
  "maxSummaryFailures",
  "breakerResetMs",
] as const satisfies ReadonlyArray<keyof CompactionOptions>;

const WARNING_KEYS = ["onOverflow", "orphanToolResults"] as const satisfies ReadonlyArray<keyof WarningOptions>;

/** MessageContextManager: every compaction and warning key was a flat option; `llm` and `compactionTiming` are renamed. */
export const MANAGER_SHAPE: OptionShape = {
  flat: {
    ...Object.fromEntries(COMPACTION_KEYS.filter((k) => k !== "summarizer" && k !== "timing").map((k) => [k, ["compaction", k] as const])),
    llm: ["compaction", "summarizer"],
    compactionTiming: ["compaction", "timing"],
    ...Object.fromEntries(WARNING_KEYS.map((k) => [k, ["warnings", k] as const])),
  },
  groups: { compaction: COMPACTION_KEYS, warnings: WARNING_KEYS },
};

/** The adapters' compaction options (what PromptFitter passes to its manager), flat in 0.x under the same names. */
const ADAPTER_COMPACTION_KEYS = [
  "strategy",
  "trimTo",
  "keepToolResults",
  "maxToolResultTokens",
  "summarizer",
  "preserveLast",
  "summaryRole",
] as const;

export const ADAPTER_SHAPE: OptionShape = {
  flat: Object.fromEntries(ADAPTER_COMPACTION_KEYS.map((k) => [k, ["compaction", k] as const])),
  groups: { compaction: ADAPTER_COMPACTION_KEYS },
};

/** The flat names already warned about in this process. */
const warned = new Set<string>();

type WarningProcess = { emitWarning?: (message: string, options: { type: string; code: string }) => void };

function deprecate(flat: string, place: string, name: string): void {
  if (warned.has(flat)) return;
  warned.add(flat);
  const message = `ctxwin: ${name}.${flat} is deprecated, use ${name}.${place} (the flat option names are removed in ctxwin 0.3)`;
  const proc = (globalThis as { process?: WarningProcess }).process;
  if (typeof proc?.emitWarning === "function") proc.emitWarning(message, { type: "DeprecationWarning", code: "CTXWIN_DEP_FLAT_OPTION" });
  else console.warn(message);
}

/**
 * `options` in the grouped form of `shape`: a new object (the caller's is not changed) whose
 * groups are new objects, each flat name moved to its place with a deprecation warning. A flat
 * name whose place is also given, a group that is not an object, or a key no group of `shape`
 * holds is a TypeError (ERR_CTXWIN_INVALID_ARGUMENT) naming them. A flat name set to undefined
 * counts as not given (spreads of partial options write those).
 */
export function groupOptions(options: object, shape: OptionShape, name = "options"): Record<string, unknown> {
  const source = options as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const groups: Partial<Record<Group, Record<string, unknown>>> = {};
  for (const group of Object.keys(shape.groups) as Group[]) {
    const given = source[group];
    if (given === undefined) {
      groups[group] = {};
      continue;
    }
    if (given === null || typeof given !== "object" || Array.isArray(given))
      throw typeError(`${name}.${group} must be an object, got ${describe(given)}`);
    const allowed = shape.groups[group] as readonly string[];
    for (const key of Object.keys(given)) {
      if (!allowed.includes(key))
        throw typeError(`${name}.${group}.${key} is not an option (${name}.${group} takes ${allowed.join(", ")})`);
    }
    groups[group] = { ...(given as Record<string, unknown>) };
  }
  for (const [key, value] of Object.entries(source)) {
    if (key in shape.groups) continue;
    const place = Object.hasOwn(shape.flat, key) ? shape.flat[key] : undefined;
    if (place === undefined) {
      out[key] = value;
      continue;
    }
    if (value === undefined) continue;
    const [group, inner] = place;
    const target = groups[group] as Record<string, unknown>;
    if (target[inner] !== undefined)
      throw typeError(`${name}.${key} and ${name}.${group}.${inner} are the same option: give only ${name}.${group}.${inner}`);
    deprecate(key, `${group}.${inner}`, name);
    target[inner] = value;
  }
  return { ...out, ...groups };
}

/** A manager's options after groupOptions: both groups present. */
export type GroupedManagerOptionsResolved<M extends MessageLike> = Omit<GroupedManagerOptions<M>, "compaction" | "warnings"> & {
  compaction: CompactionOptions<M>;
  warnings: WarningOptions;
};

/** MessageContextManager's options in the grouped form (see groupOptions). */
export function groupManagerOptions<M extends MessageLike>(options: MessageContextManagerOptions<M>): GroupedManagerOptionsResolved<M> {
  return groupOptions(options, MANAGER_SHAPE) as GroupedManagerOptionsResolved<M>;
}
