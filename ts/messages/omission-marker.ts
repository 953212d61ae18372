// The message a trim puts where it omitted messages. It names what it stands for: the ids a
// recall reads the omitted messages back by, each with one line (the tool and its subject, or a
// message's first words), the newest first kept when the list is bounded:
//
//   [14 messages omitted; recall by id:
//   recall("call_3"): read_file src/module3.ts
//   recall("call_4"): bash pytest tests/test_dates.py -x
//   recall("m1a2b3c4"): user: Also check the CSV export for
//   9 earlier not named]
//
// A marker with nothing named (a strategy called on its own, an export written before markers
// named ids) is the bare "[14 messages omitted]".
import type { InsertedRole } from "./roles.js";

/** The marker a trim puts where messages were omitted. */
export interface OmissionMarker {
  role: InsertedRole;
  content: string;
}

/** One omitted message (or tool result) a marker names: the id a recall reads it back by, and one line on what it was. */
export interface OmittedEntry {
  id: string;
  line: string;
}

/** Entries a marker names at most. */
export const MAX_NAMED_OMISSIONS = 12;
/** A marker that names ids costs at most this many tokens (and at most 1/16 of its trim's target: namedMarkerRoom). */
export const MAX_NAMED_MARKER_TOKENS = 200;
/** What a trim's planner reserves for the names at most (the rest of their room is what the trim leaves below its target). */
const MAX_RESERVED_MARKER_TOKENS = 100;

/** How every omission marker begins: "[N messages omitted" and then "]" or "; ". */
export const OMISSION_MARKER = /^\[(\d+) messages omitted(?:\]$|; )/;

/** Whether `text` is an omission marker's content. */
export function isOmissionMarkerText(text: unknown): boolean {
  return typeof text === "string" && OMISSION_MARKER.test(text);
}

/**
 * The tokens a trim's planner reserves for a marker that names ids, of a target of `target`
 * conversation tokens: 1/64 of it, at most 100. A trim takes whole units and so usually lands
 * below its target; the marker's names also take what it leaves there (KeptPlan.markerTokens),
 * up to namedMarkerRoom, so that naming what went seldom costs a message more.
 */
export function namedMarkerTokens(target: number): number {
  return Math.min(MAX_RESERVED_MARKER_TOKENS, Math.floor(Math.max(0, target) / 64));
}

/**
 * The most a marker that names ids may take of a trim's target of `target` conversation tokens,
 * however much the trim leaves below it: 1/16 of it, at most MAX_NAMED_MARKER_TOKENS. What a trim
 * leaves below its target is the room the next requests grow into before the next trim (which
 * keeps a provider's prompt cache hitting): the names take a small share of it.
 */
export function namedMarkerRoom(target: number): number {
  return Math.min(MAX_NAMED_MARKER_TOKENS, Math.floor(Math.max(0, target) / 16));
}

/** The marker for `omitted` messages, naming `named` (oldest first) and counting `unnamed` more. */
export function omissionMarker(
  omitted: number,
  role: InsertedRole = "system",
  named: readonly OmittedEntry[] = [],
  unnamed = 0,
): OmissionMarker {
  if (named.length === 0) return { role, content: `[${omitted} messages omitted]` };
  const lines = named.map((entry) => `recall(${JSON.stringify(entry.id)}): ${entry.line}`);
  if (unnamed > 0) lines.push(`${unnamed} earlier not named`);
  return { role, content: `[${omitted} messages omitted; recall by id:\n${lines.join("\n")}]` };
}

/** What names a marker read from a file or a log: the entries (at most MAX_NAMED_OMISSIONS, each `{ id, line }` strings) and the count of the rest. */
export interface OmissionNames {
  named?: readonly OmittedEntry[];
  unnamed?: number;
}

/**
 * What is wrong with the names of a marker read from outside (an export's omission turn, a
 * session log's marker), as `[field, what it must be]`, or undefined: both are optional.
 */
export function omissionNamesProblem(value: {
  named?: unknown;
  unnamed?: unknown;
}): [field: "named" | "unnamed", expected: string] | undefined {
  const { named, unnamed } = value;
  if (named !== undefined) {
    const entry = (e: unknown) =>
      typeof e === "object" && e !== null && typeof (e as OmittedEntry).id === "string" && typeof (e as OmittedEntry).line === "string";
    if (!Array.isArray(named) || named.length > MAX_NAMED_OMISSIONS || !named.every(entry))
      return ["named", `an array of at most ${MAX_NAMED_OMISSIONS} { id, line } string pairs`];
  }
  if (unnamed !== undefined && (typeof unnamed !== "number" || !Number.isSafeInteger(unnamed) || unnamed < 0))
    return ["unnamed", "an integer from 0 to 2^53 - 1"];
  return undefined;
}

/** The names of a marker read from outside (checked by omissionNamesProblem): copies, only what is there. */
export function omissionNamesOf(value: { named?: readonly OmittedEntry[] | undefined; unnamed?: number | undefined }): OmissionNames {
  if (value.named === undefined || value.named.length === 0) return {};
  return { named: value.named.map(({ id, line }) => ({ id, line })), unnamed: value.unnamed ?? 0 };
}
