// A session's log read back as the requests its model received: for each reply the log holds, the
// context the model had just before it, split into components, with the compactions that came
// before it, what the provider's cache would have read and billed, and the open problems so far.
//
// The log records messages and boundaries, not requests or provider usage (docs/sessions.md), so
// a request is the view the log replays to right before each assistant message, recounted with
// the session's counter: the figures are ctxwin's count of what the manager sent, and the page
// says so. Cache hits and dollars are modelled by CostLedger (the provider's cache rules and the
// catalog's prices), fed the prefix each request shares with the one before.
import { ContextLimits, type LimitOverrides } from "../budget/context-limits.js";
import { OpenProblems } from "../compaction/open-problems.js";
import { hasToolResult, resultIds, toolCallsById } from "../compaction/tool-events.js";
import { CostLedger, type CostOptions } from "../cost/cost-ledger.js";
import { omissionMarker } from "../messages/omission-marker.js";
import type { MessageLike } from "../messages/types.js";
import { describe, rangeError, requireString, typeError } from "../runtime/errors.js";
import { ContextReplay, type Boundary, type ContextView, type MessageEntry } from "../session/context-log.js";
import type { SessionEntry, SessionRecord } from "../session/store.js";
import { getCounter } from "../tokens/get-counter.js";
import { messageTokens } from "../tokens/message-tokens.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import { encodingForModel } from "../tokens/tokenizer-choice.js";

/** The components of a request, bottom of the chart first. */
export const REPORT_COMPONENTS = ["system", "task", "summary", "tool results", "messages"] as const;
export type ReportComponent = (typeof REPORT_COMPONENTS)[number];

export interface ReportOptions {
  /** The session's model: its tokenizer, window and prices. */
  model: string;
  /** The manager's limits, or overrides for the model's (as MessageContextManager takes them). */
  limits?: ContextLimits | LimitOverrides;
  /** The session's counter (default: the model's). */
  counter?: TokenCounter;
  /** The manager's compaction.trimAt (default 0.8): where trims and compactions start. */
  trimAt?: number;
  /** The manager's compaction.trimTo (default min(0.6, trimAt)): what they cut down to. */
  trimTo?: number;
  /** Bill each request through the provider's cache (default: when the catalog prices the model). */
  cost?: boolean | CostOptions;
  /** The page's title (default: "Session report"). */
  title?: string;
  /** The most ids a compaction's details list per unit (default 200); the rest are counted. */
  maxIds?: number;
}

export interface ReportRequest {
  /** Its place among the requests, from 0. */
  index: number;
  /** The log position of the reply it got. */
  seq: number;
  /** When the reply was logged (ms), when the log has times. */
  time?: number;
  /** Tokens per component, in REPORT_COMPONENTS order. */
  tokens: number[];
  total: number;
  messages: number;
  /** The reply's tokens. */
  outputTokens: number;
  /** Through the provider's cache, when the session is billed. */
  cost?: { cachedTokens: number; writtenTokens: number; uncachedTokens: number; dollars: number };
  /** Open problems the request's results had reported so far. */
  openProblems: number;
}

export interface CompactionUnit {
  /** trimmed: left the view; rewritten: compacted or cleared in place (levels 0-2); summarized: became one summary. */
  kind: "trimmed" | "rewritten" | "summarized" | "cleared";
  /** The messages' ids (at most maxIds). */
  ids: string[];
  /** How many ids were left out of `ids`. */
  more: number;
  /** The summary's id, for a summary. */
  summaryId?: string;
}

export interface ReportCompaction {
  /** The first request after it (requests.length when no request followed). */
  request: number;
  seq: number;
  time?: number;
  units: CompactionUnit[];
  /** The context's tokens before and after it. */
  tokensBefore: number;
  tokensAfter: number;
}

export interface ReportProblem {
  label: string;
  lines: string[];
  /** The first request that carried it. */
  since: number;
  /** The first request after a result showed it passing. */
  resolved?: number;
}

export interface SessionAnalysis {
  title: string;
  model: string;
  encoding: string;
  /** Whether the counter is exact for the model. */
  exact: boolean;
  /** Where the figures come from: always "recounted" (the log has no provider usage). */
  usage: "recounted";
  window: number;
  effectiveLimit: number;
  /** Trims and compactions start above this many tokens, and cut to trimTo. */
  trimAt: number;
  trimTo: number;
  records: number;
  requests: ReportRequest[];
  compactions: ReportCompaction[];
  problems: ReportProblem[];
  /** Totals, when the session is billed. */
  cost?: { provider: string; dollars: number; noCacheDollars: number; cachedTokens: number; inputTokens: number };
}

type Input = SessionRecord | SessionEntry;

function isRecord(item: Input): item is SessionRecord {
  return typeof (item as SessionRecord).seq === "number" && typeof (item as SessionRecord).entry === "object";
}

function share(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !(value > 0 && value <= 1))
    throw rangeError(`options.${name} must be a number in (0, 1], got ${describe(value)}`);
  return value;
}

function checkOptions(options: ReportOptions): {
  limits: ContextLimits;
  counter: TokenCounter;
  trimAt: number;
  trimTo: number;
  maxIds: number;
} {
  if (options === null || typeof options !== "object") throw typeError(`options must be an object, got ${describe(options)}`);
  const model = requireString(options.model, "options.model");
  const limits =
    options.limits instanceof ContextLimits
      ? options.limits
      : ContextLimits.forModel(model, options.limits ?? {}, { unknownModel: "error" });
  const counter = options.counter ?? getCounter(model);
  if (counter === null || typeof counter !== "object" || typeof counter.countMessages !== "function")
    throw typeError(`options.counter must be a TokenCounter, got ${describe(counter)}`);
  const trimAt = share(options.trimAt, "trimAt", 0.8);
  const trimTo = share(options.trimTo, "trimTo", Math.min(0.6, trimAt));
  const maxIds = options.maxIds ?? 200;
  if (!Number.isSafeInteger(maxIds) || maxIds < 0) throw rangeError(`options.maxIds must be an integer >= 0, got ${describe(maxIds)}`);
  if (options.title !== undefined) requireString(options.title, "options.title");
  return { limits, counter, trimAt, trimTo, maxIds };
}

/** Which component a message of the view feeds. */
function componentOf(message: MessageLike, summary: boolean, taskId: string | undefined, id: string): number {
  if (summary) return 2;
  const role = message.role;
  if (role === "system" || role === "developer") return 0;
  if (id === taskId) return 1;
  if (role === "tool" || role === "function" || hasToolResult(message)) return 3;
  return 4;
}

/** The units of a boundary, ids bounded. */
function unitOf(boundary: Boundary, maxIds: number): CompactionUnit | undefined {
  const bounded = (ids: string[]) => ({ ids: ids.slice(0, maxIds), more: Math.max(0, ids.length - maxIds) });
  switch (boundary.kind) {
    case "trim":
      return boundary.removed.length === 0 ? undefined : { kind: "trimmed", ...bounded(boundary.removed) };
    case "replace":
      return { kind: "rewritten", ...bounded(boundary.messages.map((m) => m.id)) };
    case "summary":
      return { kind: "summarized", ...bounded(boundary.removed), summaryId: boundary.id };
    case "clear":
      return { kind: "cleared", ids: [], more: 0 };
    default:
      return undefined;
  }
}

/**
 * The requests, compactions and problems of a session's log: its records as `store.read(id)`
 * returns them (or its entries, in log order). Throws ERR_CTXWIN_SESSION_CORRUPT on an entry of a
 * type the manager writes whose shape is wrong, as opening the session would.
 */
export function analyzeSession(log: Iterable<Input>, options: ReportOptions): SessionAnalysis {
  if (log === null || typeof log !== "object" || typeof (log as Iterable<Input>)[Symbol.iterator] !== "function")
    throw typeError(`log must be an iterable of session records or entries, got ${describe(log)}`);
  const { limits, counter, trimAt, trimTo, maxIds } = checkOptions(options);
  const { encoding, exact } = encodingForModel(options.model);
  const effective = limits.effectiveLimit;
  const wantCost = options.cost ?? CostLedger.canPrice(options.model);
  const costOptions = typeof options.cost === "object" ? options.cost : {};
  let clock = 0;
  const ledger =
    wantCost === false
      ? undefined
      : new CostLedger(options.model, Math.max(1, Math.floor(effective * trimAt)), { ...costOptions, now: () => clock });

  const replayer = new ContextReplay();
  const overhead = counter.countMessages([]);
  const tokensOf = new WeakMap<object, number>();
  const revision = new Map<string, number>();
  const problems = new OpenProblems();
  const seenProblems = new Map<string, ReportProblem>();
  /** The message that made each tool call, by call id: a result is read with its calls alone, not the whole log. */
  const callers = new Map<string, MessageLike>();
  const requests: ReportRequest[] = [];
  const compactions: ReportCompaction[] = [];
  let pending: ReportCompaction | undefined;
  let lastKeys: string[] = [];
  let taskId: string | undefined;
  let systemRevision = 0;
  let records = 0;
  let seq = 0;

  /** The view's messages as a request sends them: the system prompt, then the view with its marker. */
  const requestOf = (view: ContextView) => {
    const items: Array<{ key: string; message: MessageLike; component: number }> = [];
    if (view.systemPrompt)
      items.push({ key: `system#${systemRevision}`, message: { role: "system", content: view.systemPrompt }, component: 0 });
    view.entries.forEach((entry, i) => {
      if (view.marker && view.marker.index === i) items.push(markerItem(view.marker));
      items.push({
        key: `${entry.id}#${revision.get(entry.id) ?? 0}`,
        message: entry.message,
        component: componentOf(entry.message, entry.summary, taskId, entry.id),
      });
    });
    if (view.marker && view.marker.index >= view.entries.length) items.push(markerItem(view.marker));
    const fresh = items.filter((item) => !tokensOf.has(item.message as object)).map((item) => item.message);
    if (fresh.length > 0) messageTokens(counter, fresh).forEach((n, i) => tokensOf.set(fresh[i] as object, n));
    return items.map((item) => ({ ...item, tokens: tokensOf.get(item.message as object) ?? 0 }));
  };
  // The marker that stands for what trims took counts as the summary's: both stand for taken messages.
  const markerItem = (marker: NonNullable<ContextView["marker"]>) => {
    const message = omissionMarker(marker.omitted, marker.role, marker.named, marker.unnamed) as MessageLike;
    return { key: `marker#${String(message.content)}`, message, component: 2 };
  };
  const totalOf = (items: ReturnType<typeof requestOf>) => items.reduce((a, item) => a + item.tokens, overhead);

  for (const item of log) {
    const entry = isRecord(item) ? item.entry : item;
    const at = isRecord(item) ? item.seq : seq;
    const time = isRecord(item) && typeof item.time === "number" ? item.time : undefined;
    seq = at + 1;
    records++;
    if (entry !== null && typeof entry === "object" && entry.type === "boundary") {
      // The context right before the compaction: the last request and what was added since.
      if (pending === undefined)
        pending = {
          request: requests.length,
          seq: at,
          ...(time === undefined ? {} : { time }),
          units: [],
          tokensBefore: totalOf(requestOf(replayer.result())),
          tokensAfter: 0,
        };
      const boundary = (entry as { boundary?: Boundary }).boundary;
      replayer.apply(entry, at);
      const unit = unitOf(boundary as Boundary, maxIds);
      // Levels that run together (clearing after cutting, a trim after a summary) are one
      // compaction; its units of one kind are listed together.
      const same = unit && unit.kind !== "summarized" ? pending.units.find((u) => u.kind === unit.kind) : undefined;
      if (unit && same) {
        // A result cut, then cleared, in one compaction is one message rewritten.
        const fresh = unit.ids.filter((id) => !same.ids.includes(id));
        const room = Math.max(0, maxIds - same.ids.length);
        same.more += unit.more + Math.max(0, fresh.length - room);
        same.ids.push(...fresh.slice(0, room));
      } else if (unit) pending.units.push(unit);
      if (boundary?.kind === "replace") for (const m of boundary.messages) revision.set(m.id, (revision.get(m.id) ?? 0) + 1);
      continue;
    }
    if (entry !== null && typeof entry === "object" && entry.type === "system") systemRevision++;
    const isReply =
      entry !== null &&
      typeof entry === "object" &&
      entry.type === "message" &&
      (entry as Partial<MessageEntry>).message?.role === "assistant";
    if (isReply) {
      const items = requestOf(replayer.result());
      const tokens = [overhead, 0, 0, 0, 0];
      for (const it of items) tokens[it.component] = (tokens[it.component] as number) + it.tokens;
      const total = totalOf(items);
      if (pending) {
        pending.tokensAfter = total;
        compactions.push(pending);
        pending = undefined;
      }
      const keys = items.map((it) => it.key);
      let shared = 0;
      if (requests.length > 0) {
        shared = overhead;
        for (let i = 0; i < keys.length && keys[i] === lastKeys[i]; i++) shared += (items[i] as { tokens: number }).tokens;
      }
      const reply = (entry as MessageEntry).message;
      const output = messageTokens(counter, [reply])[0] ?? 0;
      const request: ReportRequest = {
        index: requests.length,
        seq: at,
        ...(time === undefined ? {} : { time }),
        tokens,
        total,
        messages: items.length,
        outputTokens: output,
        openProblems: problems.open.length,
      };
      if (ledger) {
        if (time !== undefined) clock = time;
        const use = ledger.record({
          inputTokens: total,
          sharedPrefixTokens: Math.min(shared, total),
          ...(time === undefined ? {} : { at: time }),
          outputTokens: output,
        });
        request.cost = {
          cachedTokens: use.cachedTokens,
          writtenTokens: use.writtenTokens,
          uncachedTokens: use.uncachedTokens,
          dollars: use.dollars,
        };
      }
      requests.push(request);
      lastKeys = keys;
    }
    replayer.apply(entry, at);
    if (entry.type === "message") {
      const e = entry as MessageEntry;
      if (taskId === undefined && e.message.role === "user" && e.summary !== true) taskId = e.id;
      for (const id of toolCallsById([e.message]).keys()) callers.set(id, e.message);
      if (hasToolResult(e.message)) {
        const calls = resultIds(e.message).flatMap((id) => callers.get(id) ?? []);
        problems.observe([...new Set(calls), e.message]);
        for (const p of problems.record.problems) {
          const known = seenProblems.get(p.check);
          if (!known) seenProblems.set(p.check, { label: p.label, lines: p.lines.slice(0, 4), since: requests.length });
          else if (p.resolved && known.resolved === undefined) known.resolved = requests.length;
        }
      }
    }
  }
  if (pending) {
    pending.tokensAfter = totalOf(requestOf(replayer.result()));
    compactions.push(pending);
  }

  const stats = ledger?.stats.session;
  return {
    title: options.title ?? "Session report",
    model: options.model,
    encoding,
    exact,
    usage: "recounted",
    window: limits.maxTokens,
    effectiveLimit: effective,
    trimAt: Math.floor(effective * trimAt),
    trimTo: Math.floor(effective * trimTo),
    records,
    requests,
    compactions,
    problems: [...seenProblems.values()],
    ...(ledger && stats
      ? {
          cost: {
            provider: ledger.provider,
            dollars: stats.dollars,
            noCacheDollars: stats.noCacheDollars,
            cachedTokens: stats.cachedTokens,
            inputTokens: stats.inputTokens,
          },
        }
      : {}),
  };
}
