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
  if (exclude !== undefined && !(Array.isArray(exclude) && exclude.every((t) => typeof t === "string")))
    throw typeError(`policy.excludeTools must be an array of tool names, got ${describe(exclude)}`);
  if (policy.clearToolInputs !== undefined && typeof policy.clearToolInputs !== "boolean")
    throw typeError(`policy.clearToolInputs must be a boolean, got ${describe(policy.clearToolInputs)}`);
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

/** What the server's clear_tool_uses edit clears from a request, as ctxwin estimates it. */
export interface ServerClearing {
  clearedToolUses: number;
  /** Tokens of the cleared results (and inputs, with clear_tool_inputs), by `countTokens`. */
  clearedInputTokens: number;
}

type Part = { type?: unknown; id?: unknown; name?: unknown; input?: unknown; tool_use_id?: unknown; content?: unknown };

function textOfResult(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content.map((p: { text?: unknown }) => (typeof p?.text === "string" ? p.text : JSON.stringify(p))).join("");
  return content === undefined ? "" : JSON.stringify(content);
}

/**
 * What `edit` makes the server clear from the Messages API `messages` of a request of
 * `inputTokens`: nothing at or below the trigger; above it, the results of the oldest tool uses,
 * all but the last `keep` and those of `exclude_tools`, unless they come to less than
 * clear_at_least (then the edit is not applied). ctxwin's own count of the request (what it sends)
 * stays an upper bound of what the model reads: the server only removes.
 */
export function anthropicServerClearing(
  messages: ReadonlyArray<{ role: string; content: unknown }>,
  edit: ClearToolUsesEdit,
  inputTokens: number,
  countTokens: (text: string) => number,
): ServerClearing {
  if (!Array.isArray(messages)) throw typeError(`messages must be an array, got ${describe(messages)}`);
  if (edit === null || typeof edit !== "object" || edit.type !== "clear_tool_uses_20250919")
    throw typeError(`edit must be a clear_tool_uses_20250919 edit, got ${describe(edit)}`);
  requireCount(inputTokens, "inputTokens");
  if (typeof countTokens !== "function") throw typeError(`countTokens must be a function, got ${describe(countTokens)}`);
  const none: ServerClearing = { clearedToolUses: 0, clearedInputTokens: 0 };
  if (inputTokens <= edit.trigger.value) return none;
  const results = new Map<string, string>();
  const uses: Array<{ id: string; name: string; input: string }> = [];
  for (const message of messages) {
    if (!Array.isArray(message?.content)) continue;
    for (const part of message.content as Part[]) {
      if (part?.type === "tool_use" && typeof part.id === "string")
        uses.push({ id: part.id, name: String(part.name), input: JSON.stringify(part.input ?? {}) });
      if (part?.type === "tool_result" && typeof part.tool_use_id === "string") results.set(part.tool_use_id, textOfResult(part.content));
    }
  }
  const excluded = new Set(edit.exclude_tools ?? []);
  const clearable = uses.slice(0, Math.max(0, uses.length - edit.keep.value)).filter((use) => !excluded.has(use.name));
  let tokens = 0;
  for (const use of clearable) tokens += countTokens(results.get(use.id) ?? "") + (edit.clear_tool_inputs ? countTokens(use.input) : 0);
  if (clearable.length === 0 || tokens < (edit.clear_at_least?.value ?? 0)) return none;
  return { clearedToolUses: clearable.length, clearedInputTokens: tokens };
}
