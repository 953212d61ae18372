// The error a request gets when it is still over the window after every trim and compaction: what
// is left is pinned (the system prompt, system messages, pinned messages). Sending it would fail at
// the provider, or be cut there silently, so the manager stops with the figures instead.
import type { HistoryView } from "../compaction/history-edit.js";
import { FLAG_MARKED } from "../messages/metadata-reader.js";
import { ROLE_CODES } from "../messages/roles.js";
import { rangeError } from "../runtime/errors.js";

export interface ContextOverflowError extends RangeError {
  readonly code: "ERR_CTXWIN_CONTEXT_OVERFLOW";
  readonly tokens: number;
  readonly limit: number;
  readonly pinnedTokens: number;
}

/** The tokens of `view` that no level removes: fixed overhead, system and pinned messages. */
export function pinnedTokens(view: HistoryView): number {
  const { roles, flags, tokens, fixedTokens } = view;
  let pinned = fixedTokens;
  for (let i = 0; i < roles.length; i++) {
    if (roles[i] === ROLE_CODES.system || ((flags[i] ?? 0) & FLAG_MARKED) !== 0) pinned += tokens[i] ?? 0;
  }
  return pinned;
}

export function contextOverflowError(view: HistoryView, tokens: number, limit: number): ContextOverflowError {
  const pinned = pinnedTokens(view);
  const error = rangeError(
    `the request needs ${tokens} tokens, over the window's ${limit} after every trim and compaction: ` +
      `${pinned} of them are the system prompt, system and pinned messages, which are never removed (unpin some, raise the limit, or pass onOverflow: "send")`,
    "ERR_CTXWIN_CONTEXT_OVERFLOW",
  );
  return Object.assign(error, { tokens, limit, pinnedTokens: pinned }) as ContextOverflowError;
}
