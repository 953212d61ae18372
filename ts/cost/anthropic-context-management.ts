// Anthropic's server-side context editing (`context_management`, the clear_tool_uses_20250919
// edit): once a request's input passes `trigger` tokens, the server replaces the oldest tool
// results by placeholders, keeping the last `keep` tool uses, clearing at least `clear_at_least`
// tokens when it clears at all (so that the cache prefix it breaks is broken rarely), never those
// of `exclude_tools`. Emitted from ctxwin's own policy, the server clears where ctxwin's level 2
// would: at trimAt of the effective limit, keeping the last tool results, at least the room a
// trim makes. The server only ever removes tokens, so ctxwin's count of a request stays an upper
// bound of what the model reads.
import { describe, rangeError, requireCount, typeError } from "../runtime/errors.js";

export interface ClearToolUsesEdit {
  type: "clear_tool_uses_20250919";
  trigger: { type: "input_tokens"; value: number };
  keep: { type: "tool_uses"; value: number };
  clear_at_least?: { type: "input_tokens"; value: number };
  exclude_tools?: string[];
  clear_tool_inputs?: boolean;
}

export interface AnthropicContextManagement {
  edits: ClearToolUsesEdit[];
}

/** The policy figures a manager (or any caller) gives: its window and trim shares. */
export interface ContextManagementPolicy {
  /** The prompt tokens a request may carry. */
  effectiveLimit: number;
  /** Share of effectiveLimit where clearing starts (a manager's trimAt; default 0.8). */
  trimAt?: number;
  /** Share it clears down to at least (a manager's trimTo; default 0.6): clear_at_least is the difference. */
  trimTo?: number;
  /** Tool uses whose results stay (default 3, as ctxwin's level 2 keeps). */
  keepToolUses?: number;
  /** Tools whose results are never cleared. */
  excludeTools?: readonly string[];
  /** Also clear the calls' inputs (default false). */
  clearToolInputs?: boolean;
}

function share(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number") throw typeError(`${name} must be a number, got ${describe(value)}`);
  if (!(value > 0 && value <= 1)) throw rangeError(`${name} must be a number in (0, 1], got ${value}`);
  return value;
}

/** The `context_management` request field that clears old tool results where ctxwin's policy would. */
export function anthropicContextManagement(policy: ContextManagementPolicy): AnthropicContextManagement {
  if (policy === null || typeof policy !== "object") throw typeError(`policy must be an object, got ${describe(policy)}`);
  const limit = requireCount(policy.effectiveLimit, "policy.effectiveLimit", 1);
  const trimAt = share(policy.trimAt, "policy.trimAt", 0.8);
  const trimTo = share(policy.trimTo, "policy.trimTo", 0.6);
  if (trimTo > trimAt) throw rangeError(`policy.trimTo (${trimTo}) must be at most policy.trimAt (${trimAt})`);
  const keep = requireCount(policy.keepToolUses ?? 3, "policy.keepToolUses");
  const exclude = policy.excludeTools;
  if (exclude !== undefined && !(Array.isArray(exclude) && exclude.every((t) => typeof t === "string"))) throw typeError(`policy.excludeTools must be an array of tool names, got ${describe(exclude)}`);
  if (policy.clearToolInputs !== undefined && typeof policy.clearToolInputs !== "boolean") throw typeError(`policy.clearToolInputs must be a boolean, got ${describe(policy.clearToolInputs)}`);
  const clearAtLeast = Math.floor((trimAt - trimTo) * limit);
  const edit: ClearToolUsesEdit = {
    type: "clear_tool_uses_20250919",
    trigger: { type: "input_tokens", value: Math.floor(trimAt * limit) },
    keep: { type: "tool_uses", value: keep },
    ...(clearAtLeast > 0 ? { clear_at_least: { type: "input_tokens" as const, value: clearAtLeast } } : {}),
    ...(exclude !== undefined && exclude.length > 0 ? { exclude_tools: exclude.slice() } : {}),
    ...(policy.clearToolInputs ? { clear_tool_inputs: true } : {}),
  };
  return { edits: [edit] };
}
