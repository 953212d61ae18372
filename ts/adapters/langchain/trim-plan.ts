// The trim behind trimMessages: LangChain's rules (strategy "first" / "last", startOn, endOn,
// includeSystem, allowPartial), with one more: a tool call and its results are one unit
// (MetadataReader numbers them), kept whole or dropped whole. The messages are first trimmed as
// LangChain trims them (cut wherever the budget runs out); when that result parts a unit, they are
// trimmed again with cuts only where no unit is parted and no message of a unit cut into a
// partial, which gives the largest result that keeps the units whole.
import { MetadataReader } from "../../messages/metadata-reader.js";
import { withContent } from "../../messages/langchain-shape.js";
import { isRecord } from "../../messages/message-shape.js";

/** Counts a list of messages (the request they would make). */
export type ListCounter = (messages: readonly object[]) => Promise<number>;

export interface TrimPlanOptions {
  maxTokens: number;
  count: ListCounter;
  strategy: "first" | "last";
  allowPartial: boolean;
  includeSystem: boolean;
  /** Whether a message is of one of the types startOn / endOn name (undefined: no such option). */
  startOn?: (message: object) => boolean;
  endOn?: (message: object) => boolean;
  isSystem: (message: object) => boolean;
  splitText: (text: string) => Promise<string[]>;
}

interface Units {
  /** boundary[k]: no tool unit has messages both before k and from k on. */
  boundary: boolean[];
  /** inUnit[i]: message i is part of a tool unit. */
  inUnit: boolean[];
  /** Each unit's messages. */
  members: number[][];
}

function unitsOf(messages: readonly object[]): Units {
  const reader = new MetadataReader({ orphanToolResults: "drop" });
  const byUnit = new Map<number, number[]>();
  const inUnit = messages.map((message, i) => {
    const { unit } = reader.read(message, i);
    if (unit < 0) return false;
    const list = byUnit.get(unit) ?? [];
    list.push(i);
    byUnit.set(unit, list);
    return true;
  });
  const boundary = new Array<boolean>(messages.length + 1).fill(true);
  for (const list of byUnit.values()) for (let k = (list[0] ?? 0) + 1; k <= (list[list.length - 1] ?? 0); k++) boundary[k] = false;
  return { boundary, inUnit, members: [...byUnit.values()] };
}

/** The cuts of a message to try, largest first: its first (or last) content blocks, else the first (last) lines of its first text. */
async function* cutsOf(message: object, fromEnd: boolean, splitText: (text: string) => Promise<string[]>): AsyncGenerator<object> {
  const content = (message as { content?: unknown }).content;
  if (Array.isArray(content)) {
    for (let i = content.length - 1; i >= 1; i--)
      yield withContent(message, fromEnd ? content.slice(content.length - i) : content.slice(0, i));
  }
  let text: string | undefined;
  if (typeof content === "string") text = content;
  else if (Array.isArray(content)) {
    const block = content.find((b: unknown) => isRecord(b) && b.type === "text" && typeof b.text === "string" && b.text !== "") as
      | { text: string }
      | undefined;
    text = block?.text;
  }
  if (text === undefined || text === "") return;
  const pieces = await splitText(text);
  for (let j = pieces.length - 1; j >= 1; j--)
    yield withContent(message, (fromEnd ? pieces.slice(pieces.length - j) : pieces.slice(0, j)).join(""));
}

/** The largest cut of `message` with which `around(cut)` fits, or undefined. */
async function largestCut(
  message: object,
  fromEnd: boolean,
  o: TrimPlanOptions,
  around: (cut: object) => object[],
): Promise<object | undefined> {
  for await (const cut of cutsOf(message, fromEnd, o.splitText)) if ((await o.count(around(cut))) <= o.maxTokens) return cut;
  return undefined;
}

/** What a plan keeps: the messages, and where each stood (a cut stands where its message stood). */
interface Kept {
  messages: object[];
  positions: number[];
}

/** The trim under LangChain's rules, cutting only at `boundary` and cutting no message in `inUnit`. */
async function planAt(
  messages: readonly object[],
  o: TrimPlanOptions,
  boundary: readonly boolean[],
  inUnit: readonly boolean[],
): Promise<Kept> {
  const n = messages.length;
  const at = (k: number) => messages[k] as object;
  const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
  if (o.strategy === "first") {
    let k = n;
    while (k > 0 && (!boundary[k] || (await o.count(messages.slice(0, k))) > o.maxTokens)) k--;
    const kept: Kept = { messages: messages.slice(0, k), positions: range(0, k) };
    let cut = false;
    if (o.allowPartial && k < n && !inUnit[k]) {
      const partial = await largestCut(at(k), false, o, (c) => [...kept.messages, c]);
      if (partial !== undefined) {
        kept.messages.push(partial);
        kept.positions.push(k);
        cut = true;
      }
    }
    if (o.endOn) {
      const endOn = o.endOn;
      // The cut stands where its message stood, which a boundary follows (it is in no unit).
      const endsAt = (len: number) => (cut && len === k + 1 ? true : boundary[len]);
      let len = kept.messages.length;
      while (len > 0 && !(endsAt(len) && endOn(kept.messages[len - 1] as object))) len--;
      kept.messages.length = len;
      kept.positions.length = len;
    }
    return kept;
  }
  let end = n;
  if (o.endOn) {
    const endOn = o.endOn;
    while (end > 0 && !(boundary[end] && endOn(at(end - 1)))) end--;
  }
  const system = o.includeSystem && end > 0 && o.isSystem(at(0));
  const head: object[] = system ? [at(0)] : [];
  const lo = system ? 1 : 0;
  if (system && (await o.count(head)) > o.maxTokens) {
    // Not even the system message fits: a cut of it, or nothing.
    const partial = o.allowPartial ? await largestCut(at(0), true, o, (c) => [c]) : undefined;
    return partial === undefined ? { messages: [], positions: [] } : { messages: [partial], positions: [0] };
  }
  let s = lo;
  while (s < end && (!boundary[s] || (await o.count([...head, ...messages.slice(s, end)])) > o.maxTokens)) s++;
  const body: object[] = messages.slice(s, end);
  const positions = range(s, end);
  let cut = false;
  if (o.allowPartial && s > lo && !inUnit[s - 1]) {
    const partial = await largestCut(at(s - 1), true, o, (c) => [...head, c, ...body]);
    if (partial !== undefined) {
      body.unshift(partial);
      positions.unshift(s - 1);
      cut = true;
    }
  }
  if (o.startOn) {
    const startOn = o.startOn;
    // The body may start at a boundary only (a cut is in no unit); startOn never takes the system message.
    const startsAt = (i: number) => (cut && i === 0 ? true : boundary[positions[i] ?? n]);
    let i = 0;
    while (i < body.length && !(startsAt(i) && startOn(body[i] as object))) i++;
    body.splice(0, i);
    positions.splice(0, i);
  }
  return { messages: [...head, ...body], positions: [...(system ? [0] : []), ...positions] };
}

/** Whether the kept positions hold some but not all of a unit's messages. */
function partsAUnit(units: Units, positions: readonly number[]): boolean {
  const kept = new Set(positions);
  return units.members.some((list) => {
    const inside = list.filter((i) => kept.has(i)).length;
    return inside > 0 && inside < list.length;
  });
}

/** The kept messages: the caller's own objects, and at most one new one (a cut, with allowPartial). */
export async function planTrim(messages: readonly object[], o: TrimPlanOptions): Promise<object[]> {
  const units = unitsOf(messages);
  // First as LangChain trims: anywhere, any message cut.
  const anywhere = await planAt(
    messages,
    o,
    new Array<boolean>(messages.length + 1).fill(true),
    new Array<boolean>(messages.length).fill(false),
  );
  if (!partsAUnit(units, anywhere.positions)) return anywhere.messages;
  return (await planAt(messages, o, units.boundary, units.inUnit)).messages;
}
