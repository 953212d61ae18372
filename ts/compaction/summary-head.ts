// A summary's head: how many messages it replaced, their size, and the ids a recall reads them back
// by (`Summary of the 14 earlier messages (31 KB; recall by id: call_3, call_4, m1a2b3c4d):`),
// so that what a summary took stays retrievable. The ids are the ones a Recall remembers the
// originals under: a tool result under its call's id, another message under messageId(); a
// message that makes tool calls shares its id with their results and is named once, by them.
// The list is bounded: past MAX_NAMED_IDS, the tool results' ids are named first (the newest),
// then the newest other messages', and the rest counted; a summary that would cost as much as the
// messages it replaces with all its ids named names fewer, the oldest counted instead. A folded summary's head adds up its summaries' heads, read back from their text.
import { toolOutputText, visitMessage } from "../messages/message-shape.js";
import { mapToolResults } from "../messages/tool-results.js";
import type { MessageLike } from "../messages/types.js";
import { messageId } from "./tool-events.js";

/** Ids named in a summary's head at most. */
export const MAX_NAMED_IDS = 12;

/** A summary's head: `Summary of the N earlier messages (size; recall by id: ...; not named: ...):`. */
export const SUMMARY_HEAD = /^Summary of the (\d+) earlier messages(?: \(([^\n]*)\))?:(?:\n|$)/;

interface RecallId {
  id: string;
  /** A tool result's call id (named first when the list is long). */
  result: boolean;
}

/** What a summary's head says. */
export interface SummaryRecord {
  count: number;
  bytes: number;
  /** Named ids, oldest first. */
  ids: RecallId[];
  unnamedResults: number;
  unnamedOthers: number;
}

const utf8 = new TextEncoder();

/** The record of a summary of `removed`: their count, size and recall ids. */
export function recordOf(removed: readonly MessageLike[]): SummaryRecord {
  const ids: RecallId[] = [];
  let bytes = 0;
  for (const message of removed) {
    let results = false;
    mapToolResults(message, (value, _kind, callId) => {
      results = true;
      bytes += utf8.encode(toolOutputText(value)).length;
      if (callId !== undefined) ids.push({ id: callId, result: true });
      return value;
    });
    if (results) continue;
    const content = (message as { content?: unknown }).content;
    bytes += utf8.encode(typeof content === "string" ? content : (JSON.stringify(content ?? message) ?? "")).length;
    if (!makesToolCalls(message)) ids.push({ id: messageId(message), result: false });
  }
  return bounded({ count: removed.length, bytes, ids, unnamedResults: 0, unnamedOthers: 0 });
}

/** Whether `message` makes tool calls (its id is then its first call's, which names their results). */
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

/**
 * `record` with at most MAX_NAMED_IDS ids named: the tool results' first (the newest when they are
 * more), then the newest other messages'; the rest counted.
 */
function bounded(record: SummaryRecord): SummaryRecord {
  const seen = new Set<string>();
  const ids = record.ids.filter((x) => !seen.has(x.id) && seen.add(x.id));
  if (ids.length <= MAX_NAMED_IDS) return { ...record, ids };
  const results = ids.filter((x) => x.result);
  const named = new Set(results.slice(Math.max(0, results.length - MAX_NAMED_IDS)));
  const others = ids.filter((x) => !x.result);
  for (let i = others.length - 1; i >= 0 && named.size < MAX_NAMED_IDS; i--) named.add(others[i] as RecallId);
  const keptOthers = others.filter((x) => named.has(x)).length;
  return {
    ...record,
    ids: ids.filter((x) => named.has(x)),
    unnamedResults: record.unnamedResults + results.length - (named.size - keptOthers),
    unnamedOthers: record.unnamedOthers + others.length - keptOthers,
  };
}

/** Several summaries' records as one (a folded summary's). */
export function addRecords(records: readonly SummaryRecord[]): SummaryRecord {
  let sum: SummaryRecord = { count: 0, bytes: 0, ids: [], unnamedResults: 0, unnamedOthers: 0 };
  for (const r of records) {
    sum = {
      count: sum.count + r.count,
      bytes: sum.bytes + r.bytes,
      ids: [...sum.ids, ...r.ids],
      unnamedResults: sum.unnamedResults + r.unnamedResults,
      unnamedOthers: sum.unnamedOthers + r.unnamedOthers,
    };
  }
  return bounded(sum);
}

/** `record` with its oldest named id counted instead (a summary that would not pay with all its ids names fewer). */
export function withOneIdFewer(record: SummaryRecord): SummaryRecord | undefined {
  const [first, ...rest] = record.ids;
  if (first === undefined) return undefined;
  return {
    ...record,
    ids: rest,
    unnamedResults: record.unnamedResults + (first.result ? 1 : 0),
    unnamedOthers: record.unnamedOthers + (first.result ? 0 : 1),
  };
}

function size(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${Math.round(bytes / 1024)} KB`;
}

/** The head line of a summary with `record`, ending in ":". */
export function writeHead(record: SummaryRecord): string {
  const parts = [size(record.bytes)];
  if (record.ids.length > 0) parts.push(`recall by id: ${record.ids.map((x) => x.id).join(", ")}`);
  const unnamed: string[] = [];
  if (record.unnamedResults > 0) unnamed.push(`${record.unnamedResults} older tool results`);
  if (record.unnamedOthers > 0) unnamed.push(`${record.unnamedOthers} other messages`);
  if (unnamed.length > 0) parts.push(`not named: ${unnamed.join(", ")}`);
  return `Summary of the ${record.count} earlier messages (${parts.join("; ")}):`;
}

/** A summary message's record and text after its head, or undefined when `content` is not a summary. */
export function readSummary(content: unknown): { record: SummaryRecord; text: string } | undefined {
  if (typeof content !== "string") return undefined;
  const head = SUMMARY_HEAD.exec(content);
  if (head === null) return undefined;
  const record: SummaryRecord = { count: Number(head[1]), bytes: 0, ids: [], unnamedResults: 0, unnamedOthers: 0 };
  for (const part of (head[2] ?? "").split("; ")) {
    const sized = /^(\d+) (B|KB)$/.exec(part);
    if (sized !== null) record.bytes = Number(sized[1]) * (sized[2] === "KB" ? 1024 : 1);
    else if (part.startsWith("recall by id: "))
      record.ids = part
        .slice(14)
        .split(", ")
        .map((id) => ({ id, result: true }));
    else if (part.startsWith("not named: ")) {
      record.unnamedResults = Number(/(\d+) older tool results/.exec(part)?.[1] ?? 0);
      record.unnamedOthers = Number(/(\d+) other messages/.exec(part)?.[1] ?? 0);
    }
  }
  return { record, text: content.slice(head[0].length) };
}
