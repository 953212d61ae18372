// ctxwin's trimMessages against @langchain/core's own, on generated conversations (parallel tool
// calls answered in any order, system messages, multi-part and empty content, multi-line and
// mixed-script text), both counting with the same counter. Where LangChain's result is valid (within
// maxTokens, no tool call parted from its results, a cut message cut as far as allowPartial allows,
// no hole), ctxwin's is the same; where it is not, ctxwin's is the reference's: LangChain's rules
// with every list counted whole, at every cut point, or, when that parts a tool unit, only at the
// cut points that part none.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  AIMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  trimMessages as langchainTrim,
  type BaseMessage,
} from "@langchain/core/messages";
import { getCounter } from "ctxwin";
import { trimMessages } from "ctxwin/langchain";

const counter = getCounter("gpt-4o");
const count = (messages: BaseMessage[]) => counter.countMessages(messages);

const text = fc.oneof(
  fc.constantFrom("", "ok", "line one\nline two\nline three\n", "東京 naïve 🚀\nzweite Zeile", "<|endoftext|>\n\ud800x"),
  fc.array(fc.string({ unit: "grapheme", maxLength: 30 }), { minLength: 1, maxLength: 5 }).map((lines) => lines.join("\n")),
);
const content = fc.oneof(
  { weight: 3, arbitrary: text },
  {
    weight: 2,
    arbitrary: fc.array(
      text.map((t) => ({ type: "text" as const, text: t })),
      { minLength: 1, maxLength: 4 },
    ),
  },
);
type Turn =
  | { kind: "system" | "human" | "ai"; content: string | Array<{ type: "text"; text: string }> }
  | { kind: "calls"; content: string; results: string[]; order: number[] };
const turn: fc.Arbitrary<Turn> = fc.oneof(
  fc.record({ kind: fc.constantFrom("system" as const, "human" as const, "ai" as const), content }),
  fc.array(text, { minLength: 1, maxLength: 3 }).chain((results) =>
    fc.record({
      kind: fc.constant("calls" as const),
      content: text,
      results: fc.constant(results),
      order: fc.shuffledSubarray([...results.keys()], { minLength: results.length, maxLength: results.length }),
    }),
  ),
);

/**
 * A fresh conversation for each call: LangChain's trim writes into the messages it cuts. Each
 * message has an id (its position), which a cut keeps: LangChain's "last" returns copies, so a
 * kept message is told from a cut of another by its id, not by its content ([""] is a cut of
 * ["", x] and may be a message of its own too).
 */
function build(turns: Turn[]): BaseMessage[] {
  const out: BaseMessage[] = [];
  turns.forEach((t, i) => {
    if (t.kind !== "calls") {
      const Message = t.kind === "system" ? SystemMessage : t.kind === "human" ? HumanMessage : AIMessage;
      out.push(new Message({ content: t.content, id: `m${out.length}` }));
    } else {
      out.push(
        new AIMessage({
          content: t.content,
          id: `m${out.length}`,
          tool_calls: t.results.map((_, k) => ({ id: `c${i}_${k}`, name: "tool", args: { k }, type: "tool_call" as const })),
        }),
      );
      for (const k of t.order) out.push(new ToolMessage({ content: t.results[k] ?? "", tool_call_id: `c${i}_${k}`, id: `m${out.length}` }));
    }
  });
  return out;
}

const shape = (m: BaseMessage | undefined) =>
  m === undefined
    ? undefined
    : {
        id: m.id,
        type: m.getType(),
        content: m.content,
        tool_call_id: (m as ToolMessage).tool_call_id,
        calls: (m as AIMessage).tool_calls?.map((c) => c.id) ?? [],
      };

interface Options {
  maxTokens: number;
  strategy: "first" | "last";
  allowPartial: boolean;
  includeSystem: boolean;
  startOn?: string[];
  endOn?: string[];
}

/** Where a list may be cut: no tool call on one side and one of its results on the other. */
function boundaries(messages: BaseMessage[]): boolean[] {
  const open = new Map<string, number>();
  const lastOf = new Map<number, number>();
  messages.forEach((m, i) => {
    for (const c of (m as AIMessage).tool_calls ?? []) open.set(c.id ?? "", i);
    const from = open.get((m as ToolMessage).tool_call_id ?? "\0");
    if (m.getType() === "tool" && from !== undefined) lastOf.set(from, i);
  });
  const ok = new Array<boolean>(messages.length + 1).fill(true);
  for (const [from, to] of lastOf) for (let k = from + 1; k <= to; k++) ok[k] = false;
  return ok;
}

/** The cuts of a message, largest first, as the options describe them: blocks, then lines of its first text. */
function cuts(m: BaseMessage, fromEnd: boolean): Array<string | unknown[]> {
  const out: Array<string | unknown[]> = [];
  const c = m.content;
  if (Array.isArray(c)) for (let i = c.length - 1; i >= 1; i--) out.push(fromEnd ? c.slice(c.length - i) : c.slice(0, i));
  const t =
    typeof c === "string"
      ? c
      : (c.find((b) => typeof b === "object" && b.type === "text" && (b as { text?: string }).text) as { text?: string } | undefined)?.text;
  if (t) {
    const split = t.split("\n");
    const pieces = [...split.slice(0, -1).map((s) => `${s}\n`), split[split.length - 1] ?? ""];
    for (let j = pieces.length - 1; j >= 1; j--) out.push((fromEnd ? pieces.slice(pieces.length - j) : pieces.slice(0, j)).join(""));
  }
  return out;
}

const withContent = (m: BaseMessage, c: string | unknown[]) => {
  const fields = Object.fromEntries(Object.entries(m).filter(([k]) => k !== "type" && !k.startsWith("lc_")));
  return new (m.constructor as new (f: object) => BaseMessage)({ ...fields, content: c });
};

const inTypes = (m: BaseMessage, types: string[] | undefined) => types === undefined || types.includes(m.getType());

/**
 * The reference: LangChain's rules with every list counted whole, cutting anywhere (as LangChain
 * does) when that keeps every tool call with its results, else only where no unit is parted.
 */
function reference(messages: BaseMessage[], o: Options): BaseMessage[] {
  const anywhere = referenceAt(messages, o, true);
  return invalid(anywhere, messages, o) === undefined ? anywhere : referenceAt(messages, o, false);
}

function referenceAt(messages: BaseMessage[], o: Options, anywhere: boolean): BaseMessage[] {
  const ok = anywhere ? new Array<boolean>(messages.length + 1).fill(true) : boundaries(messages);
  const fits = (list: BaseMessage[]) => count(list) <= o.maxTokens;
  const inUnit = (i: number) => !ok[i] || !ok[i + 1];
  const n = messages.length;
  if (o.strategy === "first") {
    let k = n;
    while (k > 0 && !(ok[k] && fits(messages.slice(0, k)))) k--;
    let kept = messages.slice(0, k);
    let cutAt = -1;
    if (o.allowPartial && k < n && !inUnit(k)) {
      const cut = cuts(messages[k] as BaseMessage, false)
        .map((c) => withContent(messages[k] as BaseMessage, c))
        .find((c) => fits([...kept, c]));
      if (cut) (kept = [...kept, cut]), (cutAt = kept.length);
    }
    if (o.endOn)
      while (kept.length > 0 && !((kept.length === cutAt || ok[kept.length]) && inTypes(kept[kept.length - 1] as BaseMessage, o.endOn)))
        kept = kept.slice(0, -1);
    return kept;
  }
  let end = n;
  if (o.endOn) while (end > 0 && !(ok[end] && inTypes(messages[end - 1] as BaseMessage, o.endOn))) end--;
  const sys = o.includeSystem && end > 0 && messages[0]?.getType() === "system";
  const head = sys ? [messages[0] as BaseMessage] : [];
  const lo = sys ? 1 : 0;
  let s = lo;
  while (s < end && !(ok[s] && fits([...head, ...messages.slice(s, end)]))) s++;
  if (sys && !fits(head)) {
    const cut = o.allowPartial
      ? cuts(head[0] as BaseMessage, true)
          .map((c) => withContent(head[0] as BaseMessage, c))
          .find((c) => fits([c]))
      : undefined;
    return cut ? [cut] : [];
  }
  let body = messages.slice(s, end);
  let cut = false;
  if (o.allowPartial && s > lo && !inUnit(s - 1)) {
    const c = cuts(messages[s - 1] as BaseMessage, true)
      .map((x) => withContent(messages[s - 1] as BaseMessage, x))
      .find((x) => fits([...head, x, ...body]));
    if (c) (body = [c, ...body]), (cut = true);
  }
  if (o.startOn) {
    let i = 0;
    const startsAt = (j: number) => (cut && j === 0) || ok[s - (cut ? 1 : 0) + j] === true;
    while (i < body.length && !(startsAt(i) && inTypes(body[i] as BaseMessage, o.startOn))) i++;
    body = body.slice(i);
  }
  return [...head, ...body];
}

const isInput = (m: BaseMessage, messages: BaseMessage[]) => messages.some((x) => JSON.stringify(shape(x)) === JSON.stringify(shape(m)));

/** Why LangChain's result breaks the rules (those of invalid, and allowPartial's: a cut that fits is made), or undefined. */
function invalidResult(result: Array<BaseMessage | undefined>, messages: BaseMessage[], o: Options): string | undefined {
  const why = invalid(result, messages, o);
  if (why !== undefined || !o.allowPartial) return why;
  const list = result as BaseMessage[];
  const best = reference(messages, o);
  // LangChain's search for a cut missed one that fits (it tries a "last" message's first blocks).
  // The reference's cut is the one object it made (its other messages are the inputs themselves):
  // by shape alone a cut can equal an input message (the last block of [" ", ""] is [""], and so
  // may be the message before it).
  if (best.some((m) => !messages.includes(m)) && list.every((m) => isInput(m, messages))) return "no cut where one fits";
  return undefined;
}

/** Why a result breaks the rules, or undefined when it keeps them. */
function invalid(result: Array<BaseMessage | undefined>, messages: BaseMessage[], o: Options): string | undefined {
  if (result.some((m) => m === undefined)) return "a hole";
  const list = result as BaseMessage[];
  if (list.length > 0 && count(list) > o.maxTokens) return "over maxTokens"; // nothing is always within
  const calls = new Set(list.flatMap((m) => (m as AIMessage).tool_calls?.map((c) => c.id) ?? []));
  if (list.some((m) => m.getType() === "tool" && !calls.has((m as ToolMessage).tool_call_id))) return "a result without its call";
  const results = new Set(list.filter((m) => m.getType() === "tool").map((m) => (m as ToolMessage).tool_call_id));
  const answered = new Set(messages.filter((m) => m.getType() === "tool").map((m) => (m as ToolMessage).tool_call_id));
  if ([...calls].some((id) => answered.has(id ?? "") && !results.has(id ?? ""))) return "a call without its results";
  // Every message an input message in order, or one cut of one, the largest cut that fits.
  return orderedWithOneCut(list, messages, o, 0, 0, false);
}

/**
 * Whether list[r..] are input messages from `at` on, in order, with at most one cut (the largest of
 * its message that fits). A cut's content can equal cuts of several messages (["ok"] is a cut of
 * [a, "ok"] and of ["", "", "ok"] alike), so its message is found by where LangChain's rules put a
 * cut: right after the kept prefix ("first"); right before the kept suffix, or last when nothing
 * follows it ("last"); in place of a system message too large to keep (includeSystem).
 */
function orderedWithOneCut(
  list: BaseMessage[],
  messages: BaseMessage[],
  o: Options,
  r: number,
  at: number,
  cutSeen: boolean,
): string | undefined {
  const same = (a: BaseMessage | undefined, b: BaseMessage | undefined) => JSON.stringify(shape(a)) === JSON.stringify(shape(b));
  if (r === list.length) return undefined;
  const m = list[r] as BaseMessage;
  // An input message, if that leads somewhere; else the cut: a cut can equal a later input message
  // (the last block of [" ", x] is [x], and [x] may follow it).
  const next = messages.findIndex((x, i) => i >= at && same(x, m));
  const asInput = next < 0 ? "a message that is not an input" : orderedWithOneCut(list, messages, o, r + 1, next + 1, cutSeen);
  if (asInput === undefined) return undefined;
  if (cutSeen) return next < 0 ? "two cut messages" : asInput;
  const fromEnd = o.strategy === "last";
  const systemCut = fromEnd && o.includeSystem && r === 0 && messages[0]?.getType() === "system";
  const placed = (i: number) =>
    !fromEnd ? i === at : systemCut ? i === 0 : r + 1 < list.length ? same(messages[i + 1], list[r + 1]) : true;
  const origins = messages.flatMap((x, i) => (i >= at && placed(i) && cuts(x, fromEnd).some((c) => same(withContent(x, c), m)) ? [i] : []));
  // Nothing after a "last" cut: it is the last message kept, so the latest candidate.
  if (fromEnd && !systemCut && r + 1 === list.length) origins.splice(0, origins.length - 1);
  if (origins.length === 0) return "a cut that is not the first (last) blocks or lines of a message where a cut stands";
  let why: string | undefined;
  for (const origin of origins) {
    const options = cuts(messages[origin] as BaseMessage, fromEnd);
    const mine = options.findIndex((c) => JSON.stringify(c) === JSON.stringify(m.content));
    const around = (c: string | unknown[]) => list.map((x, i) => (i === r ? withContent(messages[origin] as BaseMessage, c) : x));
    why = options.slice(0, mine).some((c) => count(around(c)) <= o.maxTokens)
      ? "a cut smaller than one that fits"
      : orderedWithOneCut(list, messages, o, r + 1, origin + 1, true);
    if (why === undefined) return undefined;
  }
  return why;
}

type Budget = { percent: number } | { at: number; delta: number };
const options: fc.Arbitrary<Omit<Options, "maxTokens"> & { budget: Budget }> = fc
  .record({
    strategy: fc.constantFrom("first" as const, "last" as const),
    allowPartial: fc.boolean(),
    includeSystem: fc.boolean(),
    startOn: fc.option(fc.constantFrom<string[]>(["human"], ["human", "system"], ["ai"]), { nil: undefined }),
    endOn: fc.option(fc.constantFrom<string[]>(["human"], ["ai"], ["tool"], ["ai", "tool"]), { nil: undefined }),
    // maxTokens: a share of the whole, or the count of a prefix / suffix give or take a few tokens,
    // so that the budget runs out inside tool units and inside the message at the edge.
    budget: fc.oneof(
      fc.integer({ min: 0, max: 110 }).map((percent) => ({ percent })),
      fc.record({ at: fc.nat(), delta: fc.integer({ min: -6, max: 6 }) }),
    ),
  })
  .map((o) => (o.strategy === "first" ? { ...o, includeSystem: false, startOn: undefined } : o));

describe("trimMessages against @langchain/core's", () => {
  it("gives LangChain's result wherever that is valid, and the largest valid one where it is not", async () => {
    let same = 0;
    let repaired = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(turn, { minLength: 1, maxLength: 9 }),
        options,
        fc.boolean(),
        async (turns, { budget, ...rest }, asFunction) => {
          const messages = build(turns);
          const n = messages.length;
          const maxTokens =
            "percent" in budget
              ? Math.floor((count(messages) * budget.percent) / 100)
              : Math.max(
                  0,
                  count(rest.strategy === "last" ? messages.slice(budget.at % n) : messages.slice(0, (budget.at % n) + 1)) + budget.delta,
                );
          const o: Options = { ...rest, maxTokens };
          const theirs = (await langchainTrim(build(turns), { ...o, tokenCounter: count })) as Array<BaseMessage | undefined>;
          const ours = await trimMessages(messages, { ...o, tokenCounter: asFunction ? count : counter });
          expect(invalid(ours, messages, o)).toBeUndefined();
          // The caller's own objects, but for one cut message.
          expect(ours.filter((m) => !messages.includes(m)).length).toBeLessThanOrEqual(1);
          const why = invalidResult(theirs, messages, o);
          if (why === undefined) {
            same++;
            expect(ours.map(shape)).toEqual(theirs.map(shape));
          } else {
            repaired++;
            expect(ours.map(shape)).toEqual(reference(messages, o).map(shape));
          }
        },
      ),
      {
        numRuns: 1000,
        // Counterexamples found before: a cut whose content is also a cut of an earlier message
        // (["ok"]); LangChain cutting a too-large system message from its first block, which
        // equals a cut of the last message; a cut equal to the input message after it; a cut
        // (the last block of [" ", ""]) equal to the input message before it, where LangChain
        // makes no cut; LangChain's cut of a "last" message from its first block ([""] of
        // ["", x]), equal to the first message.
        examples: [
          [
            [
              {
                kind: "human",
                content: [
                  { type: "text", text: "" },
                  { type: "text", text: "" },
                  { type: "text", text: "ok" },
                ],
              },
              { kind: "calls", content: "", results: ["", ""], order: [0, 1] },
              {
                kind: "human",
                content: [
                  { type: "text", text: "東京 naïve 🚀\nzweite Zeile" },
                  { type: "text", text: "ok" },
                ],
              },
              { kind: "system", content: [{ type: "text", text: "" }] },
              { kind: "calls", content: "", results: [""], order: [0] },
            ],
            {
              strategy: "last",
              allowPartial: true,
              includeSystem: false,
              startOn: undefined,
              endOn: undefined,
              budget: { at: 1347985813, delta: 5 },
            },
            false,
          ],
          [
            [
              {
                kind: "system",
                content: [
                  { type: "text", text: "line one\nline two\nline three\n" },
                  { type: "text", text: "東京 naïve 🚀\nzweite Zeile" },
                ],
              },
              { kind: "calls", content: "line one\nline two\nline three\n", results: ["", "𐀀㉀𐀀ᎀ 𐀀⍀⟂"], order: [1, 0] },
              {
                kind: "system",
                content: [
                  { type: "text", text: "東京 naïve 🚀\nzweite Zeile" },
                  { type: "text", text: "\nᎀϏ\nࠁ㉀𐀀㏀ 𐀀𐀀𐀀𐀀\n𐀀 𐀀ࠁ𐀀ࠁ" },
                  { type: "text", text: "line one\nline two\nline three\n" },
                ],
              },
            ],
            { strategy: "last", allowPartial: true, includeSystem: true, startOn: undefined, endOn: undefined, budget: { percent: 9 } },
            false,
          ],
          [
            [
              {
                kind: "ai",
                content: [
                  { type: "text", text: " " },
                  { type: "text", text: "<|endoftext|>\n\ud800x" },
                ],
              },
              { kind: "ai", content: [{ type: "text", text: "<|endoftext|>\n\ud800x" }] },
              { kind: "system", content: "line one\nline two\nline three\n" },
              { kind: "system", content: [{ type: "text", text: "ok" }] },
              { kind: "system", content: "line one\nline two\nline three\n" },
            ],
            {
              strategy: "last",
              allowPartial: true,
              includeSystem: false,
              startOn: undefined,
              endOn: ["ai"],
              budget: { at: 7426962, delta: -5 },
            },
            false,
          ],
          [
            [
              { kind: "human", content: [{ type: "text", text: "" }] },
              {
                kind: "human",
                content: [
                  { type: "text", text: " " },
                  { type: "text", text: "" },
                ],
              },
              { kind: "calls", content: "line one\nline two\nline three\n", results: ["𐀀\n"], order: [0] },
              { kind: "calls", content: "", results: [""], order: [0] },
              {
                kind: "human",
                content: [
                  { type: "text", text: "東京 naïve 🚀\nzweite Zeile" },
                  { type: "text", text: "line one\nline two\nline three\n" },
                  { type: "text", text: "𐀀\n" },
                ],
              },
              {
                kind: "system",
                content: [
                  { type: "text", text: "⑀῀\nḀ𝀀ㆀ𝗀\n𝐀𐀀" },
                  { type: "text", text: "" },
                ],
              },
            ],
            { strategy: "last", allowPartial: true, includeSystem: false, startOn: undefined, endOn: ["human"], budget: { percent: 75 } },
            false,
          ],
          [
            [
              { kind: "human", content: [{ type: "text", text: "" }] },
              { kind: "calls", content: "", results: [""], order: [0] },
              {
                kind: "human",
                content: [
                  { type: "text", text: "" },
                  { type: "text", text: "૰𐀀𐀀𐀀𐀀𐀀" },
                ],
              },
            ],
            { strategy: "last", allowPartial: true, includeSystem: false, startOn: undefined, endOn: undefined, budget: { percent: 13 } },
            false,
          ],
        ],
      },
    );
    // Both kinds of case were met.
    expect(same).toBeGreaterThan(50);
    expect(repaired).toBeGreaterThan(20);
    // 1,000 generated conversations, each trimmed by both libraries and checked against the
    // reference: about 2 s alone, far more on a loaded machine than the suite's 30 s default allows.
  }, 180_000);
});
