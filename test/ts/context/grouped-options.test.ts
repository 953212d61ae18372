// The options grouped by concern (issue 37): the flat names of 0.x land where the grouped form puts
// them (one test per name, on the one function that moves them), a manager and an adapter made
// with the flat names and with the groups send the same requests, giving a name both ways is a
// coded TypeError naming both, and the grouped types reject keys a group does not hold.
// The deprecation warnings are in deprecated-options.test.ts, which needs a process of its own.
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  ContextLimits,
  MessageContextManager,
  TruncationMode,
  extractiveSummarizer,
  getCounter,
  type MessageLike,
  type TrimEvent,
} from "ctxwin";
import { contextInputFilter } from "ctxwin/openai-agents";
import { contextMiddleware } from "ctxwin/ai-sdk";
import { ADAPTER_SHAPE, MANAGER_SHAPE, groupOptions } from "../../../ts/context/grouped-options.js";

type Options = ConstructorParameters<typeof MessageContextManager<MessageLike>>[0];
type AdapterOptions = Parameters<typeof contextInputFilter>[0];

const quiet = { warn: () => undefined };
const counter = getCounter("gpt-4o");
const summarizer = extractiveSummarizer();
const onTrim = (_event: TrimEvent<MessageLike>) => undefined;

/** A value each flat name of 0.x takes (the manager's and the adapters'). */
const VALUES: Record<string, unknown> = {
  llm: summarizer,
  summarizer,
  autoTruncate: false,
  trimAt: 0.7,
  trimTo: 0.5,
  compactionTiming: "threshold",
  strategy: "token_budget",
  onTrim,
  pinFirstUserMessage: false,
  keepReasoningTurns: 2,
  maxToolResultTokens: 300,
  keepToolResults: 1,
  clearAtLeast: 0,
  summaryRole: "system",
  maxSummaryTokens: 200,
  summaryInputTokens: 4000,
  keepUserTokens: 100,
  preserveLast: 4,
  maxSummaryFailures: 2,
  breakerResetMs: 1000,
  onOverflow: "send",
  orphanToolResults: "drop",
};

describe("groupOptions, the one place flat names become groups", () => {
  it("knows every flat name of the manager and of the adapters", () => {
    expect(Object.keys(MANAGER_SHAPE.flat).sort()).toEqual(
      Object.keys(VALUES)
        .filter((k) => k !== "summarizer")
        .sort(),
    );
    expect(Object.keys(ADAPTER_SHAPE.flat).sort()).toEqual([
      "keepToolResults",
      "maxToolResultTokens",
      "preserveLast",
      "strategy",
      "summarizer",
      "summaryRole",
      "trimTo",
    ]);
  });

  it.each(Object.entries(MANAGER_SHAPE.flat))("moves the manager's %s to %j", (flat, [group, key]) => {
    const value = VALUES[flat];
    const grouped = groupOptions({ model: "gpt-4o", logger: quiet, [flat]: value }, MANAGER_SHAPE);
    const expected: Record<string, unknown> = { model: "gpt-4o", logger: quiet, compaction: {}, warnings: {} };
    (expected[group] as Record<string, unknown>)[key] = value;
    expect(grouped).toEqual(expected);
    // The same option given in its group is taken as it is.
    expect(groupOptions({ model: "gpt-4o", logger: quiet, [group]: { [key]: value } }, MANAGER_SHAPE)).toEqual(expected);
  });

  it.each(Object.entries(ADAPTER_SHAPE.flat))("moves an adapter's %s to %j", (flat, [group, key]) => {
    const value = VALUES[flat];
    expect(groupOptions({ model: "gpt-4o", [flat]: value, onCompact: onTrim }, ADAPTER_SHAPE)).toEqual({
      model: "gpt-4o",
      onCompact: onTrim,
      [group]: { [key]: value },
    });
  });

  it("leaves the caller's objects as they were, and takes a flat name set to undefined as not given", () => {
    const compaction = { trimAt: 0.9 };
    const given = { model: "gpt-4o", compaction, trimTo: 0.5, llm: undefined };
    expect(groupOptions(given, MANAGER_SHAPE)).toEqual({ model: "gpt-4o", compaction: { trimAt: 0.9, trimTo: 0.5 }, warnings: {} });
    expect(compaction).toEqual({ trimAt: 0.9 });
    expect(given).toEqual({ model: "gpt-4o", compaction, trimTo: 0.5, llm: undefined });
  });
});

describe("a flat name and its place both given", () => {
  it.each(Object.entries(MANAGER_SHAPE.flat))("is a TypeError naming both for the manager's %s", (flat, [group, key]) => {
    const value = VALUES[flat];
    let error: (TypeError & { code?: string }) | undefined;
    try {
      new MessageContextManager({ model: "gpt-4o", logger: quiet, [flat]: value, [group]: { [key]: value } } as Options);
    } catch (e) {
      error = e as TypeError & { code?: string };
    }
    expect(error).toBeInstanceOf(TypeError);
    expect(error?.code).toBe("ERR_CTXWIN_INVALID_ARGUMENT");
    expect(error?.message).toContain(`options.${flat} and options.${group}.${key}`);
  });

  it.each(Object.entries(ADAPTER_SHAPE.flat))("is a TypeError naming both for an adapter's %s", (flat, [group, key]) => {
    const value = VALUES[flat];
    for (const make of [
      () => contextInputFilter({ model: "gpt-4o", [flat]: value, [group]: { [key]: value } } as AdapterOptions),
      () => contextMiddleware({ model: "gpt-4o", [flat]: value, [group]: { [key]: value } } as AdapterOptions),
    ]) {
      expect(make).toThrow(
        expect.objectContaining({
          name: "TypeError",
          code: "ERR_CTXWIN_INVALID_ARGUMENT",
          message: expect.stringContaining(`options.${flat} and options.${group}.${key}`),
        }),
      );
    }
  });

  it("and llm beside compaction.summarizer, a group that is no object, a key no group holds: coded TypeErrors", () => {
    const bad = (options: unknown) => () => new MessageContextManager(options as Options);
    expect(bad({ model: "gpt-4o", llm: summarizer, compaction: { summarizer } })).toThrow(
      /options\.llm and options\.compaction\.summarizer/,
    );
    expect(bad({ model: "gpt-4o", compaction: "fast" })).toThrow(
      expect.objectContaining({
        code: "ERR_CTXWIN_INVALID_ARGUMENT",
        message: expect.stringContaining("options.compaction must be an object"),
      }),
    );
    expect(bad({ model: "gpt-4o", warnings: { trimAt: 0.5 } })).toThrow(/options\.warnings\.trimAt is not an option/);
    // An adapter's group holds what the adapter passes to its manager, and nothing else.
    expect(() => contextInputFilter({ model: "gpt-4o", compaction: { trimAt: 0.5 } } as AdapterOptions)).toThrow(
      /options\.compaction\.trimAt is not an option/,
    );
  });
});

/** A coding agent's history: a task, then tool calls with results of a few hundred tokens, some failing. */
function history(steps: number): MessageLike[] {
  const out: MessageLike[] = [{ role: "user", content: "Fix the failing CSV export: due dates are one day early west of UTC." }];
  for (let i = 0; i < steps; i++) {
    out.push({
      role: "assistant",
      content: `Step ${i}: reading module ${i}.`,
      tool_calls: [{ id: `call_${i}`, type: "function", function: { name: "read_file", arguments: `{"path":"src/m${i}.ts"}` } }],
    });
    const body = Array.from({ length: 40 }, (_, j) => `${j} export const v${i}_${j} = ${i * j};`).join("\n");
    out.push({ role: "tool", tool_call_id: `call_${i}`, content: i % 4 === 0 ? `Error: test ${i} failed\n${body}` : body });
  }
  return out;
}

/** Every request a manager sends over the history, one message at a time, with the compactions settled. */
async function requests(options: Options): Promise<unknown[]> {
  const manager = new MessageContextManager<MessageLike>(options);
  manager.setSystemPrompt("You are a careful coding agent.");
  const out: unknown[] = [];
  const events: unknown[] = [];
  manager.on("trimmed", (e) => events.push(["trimmed", e.kept, e.tokensAfter]));
  manager.on("compacted", (r) => events.push(["compacted", r.tokensAfter, r.levels.map((l) => l.name)]));
  for (const message of history(30)) {
    manager.addMessage(message);
    await manager.flush();
    out.push(manager.getContextForRequest());
  }
  out.push(manager.getStats().tokenUsage, events);
  return out;
}

const limits = () => new ContextLimits({ model: "gpt-4o", maxTokens: 3000, maxOutputTokens: 0, reservedTokens: 0 });

describe("the same manager, made with the flat names and with the groups", () => {
  for (const mode of [TruncationMode.SMART, TruncationMode.SUMMARIZE, TruncationMode.TOKEN_BUDGET]) {
    it(`sends the same requests in ${mode} mode`, async () => {
      const flat = await requests({
        model: "gpt-4o",
        mode,
        counter,
        limits: limits(),
        logger: quiet,
        llm: summarizer,
        trimAt: 0.75,
        trimTo: 0.5,
        keepToolResults: 2,
        maxToolResultTokens: 120,
        clearAtLeast: 100,
        keepReasoningTurns: 1,
        preserveLast: 4,
        summaryRole: "system",
        maxSummaryTokens: 150,
        keepUserTokens: 100,
        pinFirstUserMessage: true,
        onOverflow: "send",
        orphanToolResults: "drop",
      });
      const grouped = await requests({
        model: "gpt-4o",
        mode,
        counter,
        limits: limits(),
        logger: quiet,
        compaction: {
          summarizer,
          trimAt: 0.75,
          trimTo: 0.5,
          keepToolResults: 2,
          maxToolResultTokens: 120,
          clearAtLeast: 100,
          keepReasoningTurns: 1,
          preserveLast: 4,
          summaryRole: "system",
          maxSummaryTokens: 150,
          keepUserTokens: 100,
          pinFirstUserMessage: true,
        },
        warnings: { onOverflow: "send", orphanToolResults: "drop" },
      });
      expect(grouped).toEqual(flat);
      // The run trimmed or compacted: the options were at work, not idle.
      expect((flat[flat.length - 1] as unknown[]).length).toBeGreaterThan(0);
    });
  }

  it("an adapter sends the same prompts", async () => {
    const run = async (options: AdapterOptions) => {
      const filter = contextInputFilter(options);
      const out: unknown[] = [];
      const items: unknown[] = [{ role: "user", content: "Fix the failing CSV export: due dates are one day early west of UTC." }];
      let changed = 0;
      for (const m of history(30).slice(1)) {
        if (m.role === "assistant")
          items.push({
            type: "function_call",
            callId: (m.tool_calls as Array<{ id: string }>)[0]?.id,
            name: "read_file",
            arguments: "{}",
            status: "completed",
          });
        else
          items.push({
            type: "function_call_result",
            callId: m.tool_call_id,
            name: "read_file",
            status: "completed",
            output: { type: "text", text: m.content },
          });
        const modelData = { input: items.slice() as never, instructions: "Be careful." };
        const sent = await filter({ modelData, agent: {}, context: undefined });
        if (sent !== modelData) changed++;
        out.push(sent.input);
      }
      return { out, changed };
    };
    const base = { model: "gpt-4o", counter, limits: { maxTokens: 3000, maxOutputTokens: 500 }, logger: quiet };
    const flat = await run({
      ...base,
      summarizer,
      trimTo: 0.5,
      keepToolResults: 2,
      maxToolResultTokens: 120,
      preserveLast: 4,
      summaryRole: "user",
      strategy: "smart",
    });
    const grouped = await run({
      ...base,
      compaction: {
        summarizer,
        trimTo: 0.5,
        keepToolResults: 2,
        maxToolResultTokens: 120,
        preserveLast: 4,
        summaryRole: "user",
        strategy: "smart",
      },
    });
    expect(grouped).toEqual(flat);
    expect(flat.changed).toBeGreaterThan(0);
  });
});

describe("the grouped types", () => {
  it("type-check the groups, mark the flat names deprecated, and reject keys a group does not hold", () => {
    expectTypeOf<{
      model: string;
      compaction: { trimAt: number; summarizer: typeof summarizer };
      warnings: { onOverflow: "send" };
    }>().toMatchTypeOf<Options>();
    expectTypeOf<{ model: string; compaction: { trimTo: number; strategy: "smart" } }>().toMatchTypeOf<AdapterOptions>();
    expectTypeOf<NonNullable<Options["compaction"]>["summarizer"]>().toEqualTypeOf<
      NonNullable<AdapterOptions["compaction"]>["summarizer"]
    >();
    expectTypeOf<NonNullable<Options["compaction"]>["summaryRole"]>().toEqualTypeOf<
      NonNullable<AdapterOptions["compaction"]>["summaryRole"]
    >();
    const typo = () =>
      new MessageContextManager({
        model: "gpt-4o",
        // @ts-expect-error a key the compaction group does not hold
        compaction: { trimat: 0.5 },
      });
    const misplaced = () =>
      new MessageContextManager({
        model: "gpt-4o",
        // @ts-expect-error trimAt is a compaction option, not a warning
        warnings: { trimAt: 0.5 },
      });
    // @ts-expect-error an adapter's group holds only what the adapter passes to its manager
    const adapter = () => contextInputFilter({ model: "gpt-4o", compaction: { trimAt: 0.5 } });
    // What the types reject, the constructor rejects too, for callers without TypeScript.
    for (const make of [typo, misplaced, adapter]) expect(make).toThrow(expect.objectContaining({ code: "ERR_CTXWIN_INVALID_ARGUMENT" }));
  });
});
