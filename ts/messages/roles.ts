// Roles as the truncation planner reads them (a code per role: developer counts as system and
// function as tool), and the roles of the messages ctxwin writes itself (summaries, the omission
// marker).
import { describe, rangeError } from "../runtime/errors.js";

export const ROLE_CODES = { system: 0, developer: 0, user: 1, assistant: 2, tool: 3, function: 3 } as const;
export type KnownRole = keyof typeof ROLE_CODES;
export const ROLE_NAMES = Object.keys(ROLE_CODES) as KnownRole[];

/** The role of the messages ctxwin writes itself (omission markers, summaries). */
export type InsertedRole = "system" | "user" | "assistant";

export function checkRole(value: unknown, name: string): InsertedRole {
  if (value !== "system" && value !== "user" && value !== "assistant")
    throw rangeError(`${name} must be "system", "user" or "assistant", got ${describe(value)}`);
  return value;
}
