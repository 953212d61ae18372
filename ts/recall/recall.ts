// Recall: whatever compaction cleared, cut, summarized or trimmed stays readable by the agent.
// A cleared result's placeholder names the id of its tool call (`recall("call_17") reads it`);
// this finds the original by that id and returns it, a range of its lines, or the lines that
// match a pattern, within a token bound counted with the manager's own counter.
//
// Where the originals come from: a session's log keeps every message as it was appended (the
// store is append-only), so with a session a recall reads the log through the SessionStore
// interface and finds anything, however old. Without one, the originals are kept as compaction
// takes them (a level's rewrite, a summary, a trim, an adapter's cut on arrival), in a RecallCache
// bounded in bytes; a recall of one that was evicted (or of an id that never existed) gets a
// coded answer, never an exception inside the agent's loop.
//
// What is kept is always the original, never a level's copy: a report names each rewrite with the
// message it replaced, and a copy remembered first (a trim during a compaction is told before the
// compaction's report) gives way to the original the report names.
import type { CompactionReport } from "../compaction/progressive-compaction.js";
import { isClearedToolResult } from "../compaction/levels/clear-old-tool-results.js";
import { messageId } from "../compaction/tool-events.js";
import { toolOutputText, visitMessage } from "../messages/message-shape.js";
import { mapToolResults } from "../messages/tool-results.js";
import type { MessageLike } from "../messages/types.js";
import { describe, quoted, rangeError, requireCount, requireString, typeError, type CtxwinErrorCode } from "../runtime/errors.js";
import type { SessionStore } from "../session/store.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import { DEFAULT_RECALL_CACHE_BYTES, RecallCache } from "./recall-cache.js";
import { selectFromOriginal, type RecallQuery, type RecallSelection } from "./recall-query.js";

/** The default bound of one recall's answer, in tokens. */
export const DEFAULT_RECALL_TOKENS = 1000;

/** What a recall can be told about: a compaction's report (the manager's `compacted` event, an adapter's `onCompact`). */
export type RecallReport = Pick<CompactionReport<MessageLike>, "replaced" | "removed">;

/** A rewrite a Recall is told about: the message as it was, and the copy that took its place. */
export interface RecallRewrite {
  before: MessageLike;
  after: MessageLike;
}

/** What an adapter's `onCompact` hands a Recall: the results it cut on arrival, and the levels' report. */
export interface RecallFitEvent {
  cut?: readonly RecallRewrite[] | undefined;
  report?: RecallReport | undefined;
}

/** A manager whose compactions and trims a Recall follows (a MessageContextManager). */
export interface RecallContext {
  readonly counter: TokenCounter;
  on(event: "compactionEdit", listener: (edit: RecallReport) => void): unknown;
  on(event: "compacted", listener: (report: RecallReport) => void): unknown;
  /** A trim's removed messages, and the messages it cut in place when it tells them (`replaced`: each as it was, and its cut copy). */
  on(
    event: "trimmed",
    listener: (event: { removed: readonly MessageLike[]; replaced?: readonly RecallRewrite[] | undefined }) => void,
  ): unknown;
}

export interface RecallOptions {
  /** The manager whose compactions and trims to follow: every original they take is remembered, and its counter bounds the answers. */
  context?: RecallContext;
  /** The counter that bounds the answers (default: the context's). */
  counter?: TokenCounter;
  /** A session's log to read originals from (the manager's `session` option): any original, however old. */
  session?: { store: SessionStore; id: string };
  /** The in-memory cache's bound in bytes (default 8 MiB): used when there is no session, and first when there is. */
  maxBytes?: number;
  /** An answer's bound in tokens (default 1,000, the default maxToolResultTokens: a longer answer would be cut again by level 1); a query may ask for less. */
  maxTokens?: number;
}

export type RecallErrorCode = Extract<
  CtxwinErrorCode,
  "ERR_CTXWIN_RECALL_UNKNOWN_ID" | "ERR_CTXWIN_RECALL_EVICTED" | "ERR_CTXWIN_INVALID_ARGUMENT" | "ERR_CTXWIN_OUT_OF_RANGE"
>;

export type RecallAnswer =
  | ({ ok: true; id: string; source: "cache" | "session" } & RecallSelection)
  | { ok: false; id: string; code: RecallErrorCode; message: string };

export class Recall {
  readonly counter: TokenCounter;
  readonly maxTokens: number;
  readonly cache: RecallCache;
  private readonly session: { store: SessionStore; id: string } | undefined;

  constructor(options: RecallOptions) {
    if (options === null || typeof options !== "object") throw typeError(`options must be an object, got ${describe(options)}`);
    const { context, session } = options;
    if (context !== undefined && (context === null || typeof context !== "object" || typeof context.on !== "function")) {
      throw typeError(`options.context must be a MessageContextManager, got ${describe(context)}`);
    }
    const counter = options.counter ?? context?.counter;
    if (counter === undefined || counter === null || typeof counter !== "object" || typeof counter.count !== "function") {
      throw typeError(`options.counter must be a TokenCounter (or options.context given), got ${describe(counter)}`);
    }
    if (session !== undefined && (session === null || typeof session !== "object" || typeof session.store?.scan !== "function")) {
      throw typeError(`options.session must be { store, id } with a SessionStore, got ${describe(session)}`);
    }
    if (session !== undefined) requireString(session.id, "options.session.id");
    const maxBytes = requireCount(options.maxBytes ?? DEFAULT_RECALL_CACHE_BYTES, "options.maxBytes");
    this.maxTokens = requireCount(options.maxTokens ?? DEFAULT_RECALL_TOKENS, "options.maxTokens", 1);
    this.counter = counter;
    this.session = session;
    this.cache = new RecallCache(maxBytes);
    // Each edit as it is applied (a request made while a summary is being written already shows
    // the placeholders of the levels before it), each trim (in a compaction or not), and the
    // whole report (what a context that tells no edits reports).
    context?.on("compactionEdit", (edit) => this.remember(edit));
    context?.on("trimmed", (event) => this.remember({ replaced: [...(event.replaced ?? [])], removed: event.removed as MessageLike[] }));
    context?.on("compacted", (report) => this.remember(report));
  }

  /**
   * Remembers the originals a compaction took: the messages its levels rewrote (each `before`)
   * and the messages it removed. A program that trims or compacts on its own tells it the same
   * way: `recall.remember({ replaced: [], removed: plan.removed })`.
   */
  remember(report: RecallReport): void {
    for (const rewrite of report.replaced) this.rememberRewrite(rewrite);
    for (const message of report.removed) this.rememberMessage(message);
  }

  /** An adapter's `onCompact`: `{ onCompact: recall.onCompact }`. The results cut on arrival come first: theirs are the originals. */
  readonly onCompact = (event: RecallFitEvent): void => {
    for (const rewrite of event?.cut ?? []) this.rememberRewrite(rewrite);
    if (event?.report !== undefined) this.remember(event.report);
  };

  /**
   * The original of `id` (a tool call id a placeholder names, or a message's id), or what `query`
   * selects of it. Bad arguments throw a coded TypeError / RangeError; an id nobody knows or one
   * evicted from the cache is an answer with `ok: false` and its code.
   */
  async read(id: string, query: RecallQuery = {}): Promise<RecallAnswer> {
    requireString(id, "id");
    const { pattern, maxTokens } = checkQuery(query, this.maxTokens);
    const found = this.cache.lookup(id);
    let original: string | undefined;
    let source: "cache" | "session" = "cache";
    if (found.kind === "found") original = found.text;
    else if (this.session !== undefined) {
      original = await this.fromSession(id);
      source = "session";
    }
    if (original === undefined) {
      if (found.kind === "evicted") {
        return {
          ok: false,
          id,
          code: "ERR_CTXWIN_RECALL_EVICTED",
          message: `${quoted(id)} was evicted from the recall cache (its bound is ${this.cache.maxBytes} bytes) and no session log keeps it`,
        };
      }
      return {
        ok: false,
        id,
        code: "ERR_CTXWIN_RECALL_UNKNOWN_ID",
        message: `no result or message with id ${quoted(id)} was compacted away`,
      };
    }
    return { ok: true, id, source, ...selectFromOriginal(original, query, pattern, maxTokens, this.counter) };
  }

  /**
   * What a recall tool gives the model: the original itself when it is whole, else the selection
   * with a last line saying what it holds and what to ask for next, or a line with the code when
   * nothing can be read. Never throws: a model's bad arguments get a coded answer too.
   */
  async answer(input: unknown): Promise<string> {
    const { id, ...query } = (input ?? {}) as { id?: unknown } & RecallQuery;
    try {
      let answer = await this.read(id as string, query);
      // The last line saying what the answer holds is part of the answer: the whole stays within
      // the bound, so that an adapter's level 1 (maxToolResultTokens, the same bound by default)
      // never cuts a page the agent is reading.
      const bound = Math.min(this.maxTokens, typeof query.maxTokens === "number" ? query.maxTokens : this.maxTokens);
      let text = formatAnswer(answer);
      for (let attempt = 0; answer.ok && text !== answer.text && attempt < 4; attempt++) {
        const over = this.counter.count(text) - bound;
        if (over <= 0) break;
        answer = await this.read(id as string, { ...query, maxTokens: Math.max(1, answer.tokens - over - attempt) });
        text = formatAnswer(answer);
      }
      return text;
    } catch (error) {
      const code = (error as { code?: RecallErrorCode }).code ?? "ERR_CTXWIN_INVALID_ARGUMENT";
      return formatAnswer({ ok: false, id: String(id), code, message: error instanceof Error ? error.message : String(error) });
    }
  }

  /**
   * Keeps a message's originals: each tool result under its call's id (the first seen is the
   * original: a later report may hold a copy an earlier level cut), any other message under its
   * own id. A message that makes tool calls shares its id with their results and is not kept.
   */
  private rememberMessage(message: MessageLike): void {
    for (const [id, text] of originalsOf(message)) if (this.cache.lookup(id).kind === "unknown") this.cache.remember(id, text);
  }

  /**
   * Keeps the originals of a rewrite's `before`, under the ids its copy is named by too (a
   * message known by a hash of its content gets another id when a level rewrites it). What the
   * cache holds under such an id is replaced when it is the copy's own text: a copy remembered
   * before the report that names its original (a trim during the same compaction).
   */
  private rememberRewrite({ before, after }: RecallRewrite): void {
    const originals = originalsOf(before);
    const copies = originalsOf(after);
    if (originals.size === 1 && copies.size === 1) {
      const [id, text] = [...originals][0] as [string, string];
      const [copyId] = [...copies][0] as [string, string];
      if (copyId !== id) originals.set(copyId, text);
    }
    for (const [id, text] of originals) {
      const found = this.cache.lookup(id);
      const copy = copies.get(id);
      if (found.kind === "unknown" || (found.kind === "found" && copy !== undefined && found.text === copy && copy !== text))
        this.cache.remember(id, text);
    }
  }

  /** The first message of the session's log that answers or is `id`, as a recall returns it. */
  private async fromSession(id: string): Promise<string | undefined> {
    const session = this.session as { store: SessionStore; id: string };
    let other: string | undefined;
    for await (const record of session.store.scan(session.id)) {
      const entry = record.entry as { type: string; id?: unknown; message?: unknown; summary?: boolean };
      if (entry.type !== "message" || entry.summary === true || entry.message === null || typeof entry.message !== "object") continue;
      const message = entry.message as MessageLike;
      let text: string | undefined;
      mapToolResults(message, (value, _kind, callId) => {
        if (text === undefined && callId === id && !isClearedToolResult(value)) text = toolOutputText(value);
        return value;
      });
      if (text !== undefined) return text;
      if (other === undefined && !makesToolCalls(message) && (entry.id === id || messageId(message) === id)) other = messageText(message);
    }
    // A tool result answering `id` wins over a message whose own id it is, wherever each is.
    return other;
  }
}

/**
 * The originals a message holds, by the id a recall reads each back by: each tool result (not a
 * cleared placeholder) under its call's id, any other message under its own id. A message that
 * makes tool calls shares its id with their results and holds none.
 */
function originalsOf(message: MessageLike): Map<string, string> {
  const out = new Map<string, string>();
  let sawResult = false;
  mapToolResults(message, (value, _kind, callId) => {
    sawResult = true;
    if (callId !== undefined && !isClearedToolResult(value) && !out.has(callId)) out.set(callId, toolOutputText(value));
    return value;
  });
  if (!sawResult && !makesToolCalls(message)) out.set(messageId(message), messageText(message));
  return out;
}

function checkQuery(query: unknown, defaultTokens: number): { pattern: RegExp | undefined; maxTokens: number } {
  if (query === null || typeof query !== "object") throw typeError(`query must be an object, got ${describe(query)}`);
  const q = query as RecallQuery;
  if (q.lines !== undefined) {
    if (!Array.isArray(q.lines) || q.lines.length !== 2) throw typeError(`query.lines must be [from, to], got ${describe(q.lines)}`);
    const from = requireCount(q.lines[0], "query.lines[0]", 1);
    const to = requireCount(q.lines[1], "query.lines[1]", 1);
    if (to < from) throw rangeError(`query.lines must be [from, to] with from <= to, got [${from}, ${to}]`);
  }
  if (q.lines !== undefined && q.pattern !== undefined) throw typeError("query.lines and query.pattern: give one of them");
  if (q.column !== undefined) {
    requireCount(q.column, "query.column", 1);
    if (q.lines === undefined) throw typeError("query.column reads on inside the first of query.lines: give lines with it");
  }
  let pattern: RegExp | undefined;
  if (q.pattern !== undefined) {
    requireString(q.pattern, "query.pattern");
    try {
      pattern = new RegExp(q.pattern);
    } catch (error) {
      throw rangeError(`query.pattern is not a regular expression: ${(error as Error).message}`);
    }
  }
  const maxTokens = q.maxTokens === undefined ? defaultTokens : Math.min(defaultTokens, requireCount(q.maxTokens, "query.maxTokens", 1));
  return { pattern, maxTokens };
}

/** Whether `message` makes tool calls (its id is then its first call's, which names the result). */
function makesToolCalls(message: MessageLike): boolean {
  let calls = false;
  visitMessage(message as unknown as Record<string, unknown>, {
    text: () => {},
    image: () => {},
    toolCall: () => (calls = true),
    toolResult: () => {},
  });
  return calls;
}

/** A message's own text, for one that is not a tool result: its string content, else its content as JSON. */
function messageText(message: MessageLike): string {
  const content = (message as { content?: unknown }).content;
  return typeof content === "string" ? content : (JSON.stringify(content ?? message) ?? "");
}

/**
 * The text a recall tool returns for `answer`: the original itself when the answer is all of it;
 * otherwise the selection and a last line saying what it holds and where to read on (the next
 * lines, or the column a line cut inside goes on at).
 */
export function formatAnswer(answer: RecallAnswer): string {
  if (!answer.ok) return `[recall ${answer.code}: ${answer.message}]`;
  const whole =
    !answer.truncated &&
    answer.matches === undefined &&
    answer.fromLine === 1 &&
    answer.fromColumn === undefined &&
    answer.toLine === answer.totalLines;
  if (whole) return answer.text;
  const from = answer.fromColumn === undefined ? `${answer.fromLine}` : `${answer.fromLine} (from column ${answer.fromColumn})`;
  const what =
    answer.matches !== undefined
      ? `${answer.matches} matching lines of ${answer.totalLines}, shown through line ${answer.toLine}`
      : `lines ${from}-${answer.toLine} of ${answer.totalLines}`;
  let next = "";
  if (answer.nextColumn !== undefined)
    next = `; line ${answer.toLine} cut at ${answer.tokens} tokens: ask for lines [${answer.toLine}, ${answer.totalLines}] with column ${answer.nextColumn} next`;
  else if (answer.truncated && answer.toLine < answer.totalLines)
    next = `; cut at ${answer.tokens} tokens: ask for lines [${answer.toLine + 1}, ${answer.totalLines}] next`;
  else if (answer.truncated) next = `; cut at ${answer.tokens} tokens`;
  return `${answer.text}\n[recall ${JSON.stringify(answer.id)}: ${what}${next}]`;
}
