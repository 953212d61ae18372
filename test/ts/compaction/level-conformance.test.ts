// One contract, every compaction level: the same rules run against each level (hono's router tests
// are the model). A level runs here as MessageContextManager runs it: planned over the live view of
// a history, alone in a ProgressiveCompaction run, its edit applied by the HistoryEditor. A rule a
// level does not keep is declared in its `skip`, with the reason. A new level joins with one entry.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CircuitBreaker } from "../../../ts/compaction/circuit-breaker.js";
import type { CompactionLevel, CompactionLevelName } from "../../../ts/compaction/compaction-level.js";
import { ContextCompactor } from "../../../ts/compaction/context-compactor.js";
import type { AppliedEdit, HistoryEdit } from "../../../ts/compaction/history-edit.js";
import { ClearOldReasoning } from "../../../ts/compaction/levels/clear-old-reasoning.js";
import { ClearOldToolResults } from "../../../ts/compaction/levels/clear-old-tool-results.js";
import { CompactToolResults } from "../../../ts/compaction/levels/compact-tool-results.js";
import { Summarize } from "../../../ts/compaction/levels/summarize.js";
import { Truncate } from "../../../ts/compaction/levels/truncate.js";
import { ProgressiveCompaction, type CompactionLevelReport, type CompactionReport } from "../../../ts/compaction/progressive-compaction.js";
import { ToolResultCompactor } from "../../../ts/compaction/tool-result-compactor.js";
import { HistoryEditor } from "../../../ts/context/history-editor.js";
import { TokenBudgetStrategy } from "../../../ts/truncation/strategies.js";
import { UsageAnchor } from "../../../ts/budget/usage-anchor.js";
import { UsageCalibration } from "../../../ts/budget/usage-calibration.js";
import { MetadataReader } from "../../../ts/messages/metadata-reader.js";
import { hasReasoning } from "../../../ts/messages/reasoning.js";
import type { MessageLike } from "../../../ts/messages/types.js";
import { messageTokens } from "../../../ts/tokens/message-tokens.js";
import { TiktokenCounter } from "../../../ts/tokens/tiktoken-counter.js";
import { extractiveSummarizer } from "../../../ts/models/extractive-summarizer.js";
import { isClearedToolResult } from "../../../ts/compaction/levels/clear-old-tool-results.js";
import { messageId } from "../../../ts/compaction/tool-events.js";
import { toolOutputText, visitMessage } from "../../../ts/messages/message-shape.js";
import { mapToolResults } from "../../../ts/messages/tool-results.js";
import { Recall } from "../../../ts/recall/recall.js";

type Rule = "owned" | "units" | "reasoning" | "pinned" | "order" | "frees" | "stops" | "report" | "at-target" | "recall";

interface LevelCase {
  name: CompactionLevelName;
  /** The level under test. */
  newLevel: () => CompactionLevel;
  /** Rules the level does not keep, each with why and a history that shows it. */
  skip?: Partial<Record<Rule, { because: string; example: History }>>;
}

type Turn =
  | { kind: "user"; text: string; pinned: boolean }
  | { kind: "assistant"; text: string; reasoning: string | undefined }
  | {
      kind: "tools";
      shape: "openai" | "ai-sdk" | "responses";
      calls: number;
      output: string;
      reasoning: string | undefined;
      pinned: boolean;
    };

type History = { system: boolean; turns: Turn[]; share: number };

const quiet = { warn: () => {} };
const counter = new TiktokenCounter({ model: "gpt-4o" });
const strategy = new TokenBudgetStrategy();

const u = (text: string, pinned = false): Turn => ({ kind: "user", text, pinned });
const a = (text: string, reasoning?: string): Turn => ({ kind: "assistant", text, reasoning });
const tools = (
  shape: "openai" | "ai-sdk" | "responses",
  output: string,
  options: { calls?: number; reasoning?: string; pinned?: boolean } = {},
): Turn => ({
  kind: "tools",
  shape,
  calls: options.calls ?? 1,
  output,
  reasoning: options.reasoning,
  pinned: options.pinned ?? false,
});
const long = "read the file and found an error\n".repeat(20);

const LEVELS: LevelCase[] = [
  {
    name: "clear_old_reasoning",
    newLevel: () => new ClearOldReasoning(1),
    skip: {
      reasoning: {
        because: "clearing the reasoning of older turns is what the level is for (as Anthropic's clear_thinking does); the calls stay",
        example: {
          system: false,
          turns: [
            u("go"),
            tools("ai-sdk", long, { reasoning: "first I read" }),
            tools("ai-sdk", long, { reasoning: "then I check" }),
            a("done"),
          ],
          share: 0.2,
        },
      },
    },
  },
  {
    name: "compact_tool_results",
    newLevel: () => new CompactToolResults(new ToolResultCompactor({ maxResultTokens: 24 })),
  },
  {
    name: "clear_old_tool_results",
    newLevel: () => new ClearOldToolResults(1, 0),
  },
  {
    name: "summarize",
    // The offline digest: the span is chosen by the summary each end would write, exactly.
    newLevel: () =>
      new Summarize(
        new ContextCompactor({ model: extractiveSummarizer(), logger: quiet, keepUserTokens: 0, minMessagesToSummarize: 2 }),
        2,
        new CircuitBreaker({}),
      ),
  },
  { name: "truncate", newLevel: () => new Truncate(strategy) },
];

// ---- histories: system prompt, user turns (some pinned), tool exchanges in three shapes ----

const words = fc
  .array(fc.constantFrom("read", "file", "error", "tests", "pass", "dates.ts:41", "the", "build", "ok", "TypeError", "日本語", "🙂"), {
    minLength: 1,
    maxLength: 12,
  })
  .map((w) => w.join(" "));
const turn: fc.Arbitrary<Turn> = fc.oneof(
  fc.record({ kind: fc.constant("user" as const), text: words, pinned: fc.boolean() }),
  fc.record({ kind: fc.constant("assistant" as const), text: words, reasoning: fc.option(words, { nil: undefined }) }),
  fc.record({
    kind: fc.constant("tools" as const),
    shape: fc.constantFrom("openai" as const, "ai-sdk" as const, "responses" as const),
    calls: fc.integer({ min: 1, max: 2 }),
    output: fc.tuple(words, fc.integer({ min: 1, max: 40 })).map(([w, n]) => `${w}\n`.repeat(n)),
    reasoning: fc.option(words, { nil: undefined }),
    pinned: fc.boolean(),
  }),
);
const histories = fc.record({
  system: fc.boolean(),
  turns: fc.array(turn, { minLength: 2, maxLength: 14 }),
  share: fc.double({ min: 0.2, max: 0.8, noNaN: true }),
});

function build(system: boolean, turns: readonly Turn[]): MessageLike[] {
  const out: Array<Record<string, unknown>> = [];
  if (system) out.push({ role: "system", content: "You are a careful coding agent." });
  let call = 0;
  for (const t of turns) {
    if (t.kind === "user") out.push(t.pinned ? { role: "user", content: t.text, _preserve: true } : { role: "user", content: t.text });
    else if (t.kind === "assistant")
      out.push(
        t.reasoning === undefined
          ? { role: "assistant", content: t.text }
          : {
              role: "assistant",
              content: [
                { type: "reasoning", text: t.reasoning },
                { type: "text", text: t.text },
              ],
            },
      );
    else {
      const ids = Array.from({ length: t.calls }, () => `call_${call++}`);
      const pin = (m: Record<string, unknown>) => (t.pinned ? { ...m, _preserve: true } : m);
      if (t.shape === "openai") {
        out.push({
          role: "assistant",
          content: null,
          tool_calls: ids.map((id) => ({ id, type: "function", function: { name: "read", arguments: `{"path":"${id}.ts"}` } })),
        });
        for (const id of ids) out.push(pin({ role: "tool", tool_call_id: id, content: t.output }));
      } else if (t.shape === "ai-sdk") {
        const reasoning = t.reasoning === undefined ? [] : [{ type: "reasoning", text: t.reasoning }];
        out.push({
          role: "assistant",
          content: [
            ...reasoning,
            ...ids.map((id) => ({ type: "tool-call", toolCallId: id, toolName: "read", input: { path: `${id}.ts` } })),
          ],
        });
        out.push(
          pin({
            role: "tool",
            content: ids.map((id) => ({
              type: "tool-result",
              toolCallId: id,
              toolName: "read",
              output: { type: "text", value: t.output },
            })),
          }),
        );
      } else {
        if (t.reasoning !== undefined)
          out.push({ type: "reasoning", id: `rs_${call}`, summary: [{ type: "summary_text", text: t.reasoning }] });
        for (const id of ids) out.push({ type: "function_call", call_id: id, name: "read", arguments: `{"path":"${id}.ts"}` });
        for (const id of ids) out.push(pin({ type: "function_call_output", call_id: id, output: t.output }));
      }
    }
  }
  return out as unknown as MessageLike[];
}

/** What a run did: its report, the history before and after, and the originals of replaced copies. */
interface Outcome {
  report: CompactionReport<MessageLike>;
  entry: CompactionLevelReport;
  before: readonly MessageLike[];
  after: readonly MessageLike[];
  usageBefore: number;
  usageAfter: number;
  /** Each copy an edit put in, to the original it replaced. */
  originOf: Map<object, object>;
  /** Originals that an edit replaced or removed. */
  touched: Set<object>;
}

/** Runs `level` alone over `messages`, as MessageContextManager runs a compaction, to `share` of a window the history fills. */
async function runLevel(
  level: CompactionLevel,
  messages: readonly MessageLike[],
  share: number,
  options: { atTarget?: boolean } = {},
): Promise<Outcome> {
  const window = { effectiveLimit: 0 };
  const anchor = new UsageAnchor("gpt-4o", window, new UsageCalibration(), { noRequest: "", rewritten: "" }, quiet);
  const editor = new HistoryEditor<MessageLike>(counter, counter.countMessages([]), strategy, anchor, undefined, "error", quiet);
  editor.load(editor.readMessages(messages), undefined);
  const view = editor.view();
  const usageBefore = view.tokenUsage;
  // The history fills the window (above a 0.9 threshold), or sits well inside it (at the target).
  window.effectiveLimit = options.atTarget ? usageBefore * 4 : usageBefore;
  const before = editor.history.messages.slice();
  const originOf = new Map<object, object>();
  const touched = new Set<object>();
  const apply = (edit: HistoryEdit<MessageLike>): AppliedEdit<MessageLike> => {
    switch (edit.kind) {
      case "replace":
        for (const [i, after] of edit.replacements) {
          const original = editor.history.messages[i] as object;
          originOf.set(after, originOf.get(original) ?? original);
          touched.add(originOf.get(original) ?? original);
        }
        return { changed: editor.replace(edit.replacements), removed: [] };
      case "summarize": {
        const applied = editor.summarize(edit.removed, edit.summary);
        for (const m of applied.removed) touched.add(originOf.get(m) ?? m);
        return applied;
      }
      case "trim": {
        const { removed } = editor.trim({ indices: edit.kept.slice(), markerIndex: edit.markerIndex });
        for (const m of removed) touched.add(originOf.get(m) ?? m);
        return { changed: removed.length, removed };
      }
    }
  };
  const compaction = new ProgressiveCompaction({ strategy });
  const run = compaction.run(view, { threshold: 0.9, targetShare: share, effectiveLimit: window.effectiveLimit }, [level]);
  let step = run.next();
  while (!step.done) {
    const request = step.value;
    step = run.next(request.kind === "apply" ? apply(request.edit) : await request.promise);
  }
  const report = step.value;
  return {
    report,
    entry: report.levels[0] as CompactionLevelReport,
    before,
    after: editor.history.messages.slice(),
    usageBefore,
    usageAfter: view.tokenUsage,
    originOf,
    touched,
  };
}

/**
 * What a recall must give back for `message` as the caller added it, by id: each tool result's
 * text under its call's id, any other message's text under its own id (`messageId`); a message
 * that makes tool calls is named by its results.
 */
function originalTexts(message: MessageLike): Map<string, string> {
  const out = new Map<string, string>();
  let results = false;
  let calls = false;
  mapToolResults(message, (value, _kind, id) => {
    results = true;
    if (id !== undefined && !isClearedToolResult(value) && !out.has(id)) out.set(id, toolOutputText(value));
    return value;
  });
  visitMessage(message as unknown as Record<string, unknown>, {
    text: () => {},
    image: () => {},
    toolCall: () => (calls = true),
    toolResult: () => {},
  });
  if (!results && !calls) {
    const content = (message as { content?: unknown }).content;
    out.set(messageId(message), typeof content === "string" ? content : (JSON.stringify(content ?? message) ?? ""));
  }
  return out;
}

/** The tool unit of each message (-1: none), as the metadata reader groups them. */
function unitsOf(messages: readonly MessageLike[]): number[] {
  const reader = new MetadataReader();
  return messages.map((m, i) => reader.read(m, i).unit);
}

function runLevelConformance({ name, newLevel, skip = {} }: LevelCase): void {
  /**
   * A rule, checked on every generated history. A rule the level declares it does not keep is
   * checked the other way: its example must break it, or the declaration is stale and goes.
   */
  const rule = (id: Rule, title: string, check: (h: History) => Promise<void>) => {
    const declared = skip[id];
    if (declared === undefined) it(title, () => fc.assert(fc.asyncProperty(histories, check), { numRuns: 40 }));
    else it(`${title}: not this level, ${declared.because}`, () => expect(check(declared.example)).rejects.toThrow());
  };

  describe(`${name} conforms to CompactionLevel`, () => {
    rule("owned", "never changes a message the caller owns", async ({ system, turns, share }) => {
      const messages = build(system, turns);
      const snapshot = structuredClone(messages);
      await runLevel(newLevel(), messages, share);
      expect(messages).toEqual(snapshot);
    });

    rule(
      "units",
      "keeps a tool call with its results: a unit stays whole or goes whole, and no result is left without its call",
      async ({ system, turns, share }) => {
        const { before, after, originOf } = await runLevel(newLevel(), build(system, turns), share);
        expect(() => unitsOf(after)).not.toThrow();
        const units = unitsOf(before);
        const surviving = new Set(after.map((m) => originOf.get(m) ?? m));
        const byUnit = new Map<number, boolean[]>();
        before.forEach((m, i) => {
          const unit = units[i] as number;
          if (unit >= 0) byUnit.set(unit, [...(byUnit.get(unit) ?? []), surviving.has(m)]);
        });
        for (const kept of byUnit.values()) expect(new Set(kept).size).toBe(1);
      },
    );

    rule("reasoning", "keeps the reasoning of a turn whose calls it keeps", async ({ system, turns, share }) => {
      const { before, after, originOf } = await runLevel(newLevel(), build(system, turns), share);
      const reasoned = new Set<object>(before.filter((m) => hasReasoning(m)));
      for (const m of after) if (reasoned.has(originOf.get(m) ?? m)) expect(hasReasoning(m)).toBe(true);
    });

    rule("pinned", "keeps system messages and pinned ones as they are", async ({ system, turns, share }) => {
      const { before, after } = await runLevel(newLevel(), build(system, turns), share);
      const present = new Set(after);
      for (const m of before)
        if (m.role === "system" || (m as { _preserve?: unknown })._preserve === true) expect(present.has(m)).toBe(true);
    });

    rule("order", "keeps the order of what it keeps", async ({ system, turns, share }) => {
      const { before, after, originOf } = await runLevel(newLevel(), build(system, turns), share);
      const index = new Map(before.map((m, i) => [m as object, i]));
      const positions = after.map((m) => index.get(originOf.get(m) ?? m)).filter((i): i is number => i !== undefined);
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
    });

    rule("frees", "frees tokens or none, never adds", async ({ system, turns, share }) => {
      const { usageBefore, usageAfter } = await runLevel(newLevel(), build(system, turns), share);
      expect(usageAfter).toBeLessThanOrEqual(usageBefore);
    });

    rule("stops", "stops at its target: ends no more than one unit's tokens below it", async ({ system, turns, share }) => {
      const { report, before, after, usageAfter } = await runLevel(newLevel(), build(system, turns), share);
      if (usageAfter >= report.targetTokens) return;
      // The largest unit: a tool unit's messages together, any other message alone; units whose
      // messages interleave (parallel Responses calls: call, call, output, output) are one block,
      // since no cut between them keeps both whole.
      const tokens = messageTokens(counter, before);
      const units = unitsOf(before);
      const lastOf = new Map<number, number>();
      units.forEach((unit, i) => unit >= 0 && lastOf.set(unit, i));
      let largest = 0;
      for (let i = 0, block = 0, reach = -1; i < before.length; i++) {
        const unit = units[i] ?? -1;
        if (unit >= 0) reach = Math.max(reach, lastOf.get(unit) ?? i);
        block += tokens[i] ?? 0;
        if (reach <= i) {
          largest = Math.max(largest, block);
          block = 0;
        }
      }
      // A history emptied to the last message also sheds the request's fixed tokens (the reply
      // priming), which only a request with messages pays: 3 + 5 + 6 to a target of 7 keeps nothing.
      const fixed = after.length === 0 ? counter.countMessages([]) : 0;
      expect(usageAfter).toBeGreaterThanOrEqual(report.targetTokens - largest - fixed);
    });

    rule("report", "reports what it did: the tokens before and after, the messages it changed", async ({ system, turns, share }) => {
      const { entry, report, usageBefore, usageAfter, touched } = await runLevel(newLevel(), build(system, turns), share);
      expect(entry.name).toBe(name);
      expect(entry.tokensBefore).toBe(usageBefore);
      expect(entry.tokensAfter).toBe(usageAfter);
      expect(report.tokensAfter).toBe(usageAfter);
      expect(entry.error).toBeUndefined();
      expect(entry.messagesChanged).toBe(touched.size);
      if (entry.skipped !== undefined) expect(entry.messagesChanged).toBe(0);
    });

    rule(
      "recall",
      "leaves what it takes recallable as the caller added it: by the ids of each original and of each copy",
      async ({ system, turns, share }) => {
        const { report, touched, originOf } = await runLevel(newLevel(), build(system, turns), share);
        const recall = new Recall({ counter, maxTokens: 1_000_000 });
        recall.remember(report);
        const expected = new Map<string, string>();
        for (const original of touched) for (const [id, text] of originalTexts(original as MessageLike)) expected.set(id, text);
        // A copy named by another id (a message known by a hash of its content) reads back its original too.
        for (const [copy, original] of originOf) {
          const ids = [...originalTexts(copy as MessageLike).keys()];
          const texts = [...originalTexts(original as MessageLike).values()];
          if (ids.length === 1 && texts.length === 1 && !expected.has(ids[0] as string)) expected.set(ids[0] as string, texts[0] as string);
        }
        for (const [id, text] of expected) {
          const answer = await recall.read(id);
          expect(answer, id).toMatchObject({ ok: true, truncated: false });
          expect(answer.ok && answer.text === text, `${id} reads back its original`).toBe(true);
        }
      },
    );

    rule("at-target", "changes nothing when the history is already at its target", async ({ system, turns, share }) => {
      const messages = build(system, turns);
      const { entry, before, after } = await runLevel(newLevel(), messages, share, { atTarget: true });
      expect(after).toEqual(before);
      expect(after.every((m, i) => m === before[i])).toBe(true);
      expect(entry).toMatchObject({ applied: false, messagesChanged: 0 });
    });
  });
}

for (const level of LEVELS) runLevelConformance(level);
