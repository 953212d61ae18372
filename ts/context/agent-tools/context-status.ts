// context_status: what the agent reads of its own context. The window, what the request uses and
// what is free, the share of each component, the compactions so far one line each, a compaction
// it asked for that is still queued, and the session's dollars where the model's prices are known.
// The text is bounded (STATUS_MAX_TOKENS): the oldest compaction lines go first when it would
// not fit, then the text is cut.
import type { TokenCounter } from "../../tokens/token-counter.js";
import type { CompactionEntry } from "./compaction-log.js";

/** The components of a request, as context_status splits it. */
export interface ContextComposition {
  /** The system prompt and system messages. */
  system: number;
  /** The task: the first user message the caller wrote (the newest one for an adapter). */
  task: number;
  /** Summaries, omission markers and notes ctxwin wrote. */
  summary: number;
  /** Tool results (and the messages that carry them). */
  toolResults: number;
  /** Everything else: the assistant's turns and its calls, later user messages. */
  messages: number;
}

export type ComponentName = keyof ContextComposition;

/** What `manager.status()` and an adapter's context_status read. */
export interface ContextStatus {
  /** The model's window, and what a request may use of it (less the reserved output). */
  window: number;
  limit: number;
  /** The request's tokens (the last request an adapter fitted), and what is left of `limit`. */
  used: number;
  free: number;
  /** used / limit, in percent. */
  percent: number;
  /** Tokens per component (local counts; their sum is the request's count less its framing). */
  components: ContextComposition;
  compactions: { total: number; recent: readonly CompactionEntry[] };
  /** A compaction compact_context queued, to run before the next request. */
  pending?: { reason: string; keep: string[]; text?: string };
  /** The session's dollars so far, where the model's prices are known. */
  cost?: { dollars: number; requests: number; basis: string };
}

/** context_status answers in at most this many tokens. */
export const STATUS_MAX_TOKENS = 400;

/** Sums `tokens` per component, each message's component given by `kindOf`. */
export function composition(count: number, tokenOf: (i: number) => number, kindOf: (i: number) => ComponentName): ContextComposition {
  const out: ContextComposition = { system: 0, task: 0, summary: 0, toolResults: 0, messages: 0 };
  for (let i = 0; i < count; i++) out[kindOf(i)] += tokenOf(i);
  return out;
}

const LABELS: Record<ComponentName, string> = {
  system: "system",
  task: "task",
  summary: "summary and notes",
  toolResults: "tool results",
  messages: "messages",
};

/** `status` as the text the agent reads, within `maxTokens` of `counter`. */
export function statusText(status: ContextStatus, counter: TokenCounter, maxTokens = STATUS_MAX_TOKENS): string {
  const share = (n: number) => `${n} (${Math.round((n / Math.max(1, status.limit)) * 100)}%)`;
  const head = [
    `Context: ${status.used} of ${status.limit} tokens used (${status.percent.toFixed(1)}%), ${status.free} free; window ${status.window}.`,
    `By component: ${(Object.keys(LABELS) as ComponentName[]).map((k) => `${LABELS[k]} ${share(status.components[k])}`).join(", ")}.`,
  ];
  if (status.cost !== undefined)
    head.push(`Cost so far: $${status.cost.dollars.toFixed(4)} over ${status.cost.requests} requests (${status.cost.basis}).`);
  if (status.pending !== undefined)
    head.push(
      `Queued: a compaction before the next request (${status.pending.reason.slice(0, 80)}; keeping ${status.pending.keep.length} ids${status.pending.text === undefined ? "" : " and a note"}).`,
    );
  const lines = status.compactions.recent.map((e) => e.line);
  const title = (shown: number) =>
    status.compactions.total === 0
      ? "Compactions: none yet."
      : `Compactions: ${status.compactions.total}${shown < status.compactions.total ? ` (the last ${shown})` : ""}:`;
  for (let from = 0; from <= lines.length; from++) {
    const shown = lines.slice(from);
    const text = [...head, title(shown.length), ...shown].join("\n");
    if (counter.count(text) <= maxTokens) return text;
  }
  // The head alone is over the bound (a tiny maxTokens): cut it, by characters, until it fits.
  let text = [...head, title(0)].join("\n");
  while (text.length > 0 && counter.count(text) > maxTokens) text = text.slice(0, Math.floor(text.length * 0.8));
  return text;
}
