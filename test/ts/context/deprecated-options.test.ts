// The flat option names of 0.x still work for one release, each with a DeprecationWarning
// (process.emitWarning, code CTXWIN_DEP_FLAT_OPTION) once per process per name. This file owns its
// process's warnings: it is the only one that uses the flat names (vitest runs each file apart),
// and each test uses a name no earlier test used, so the first use of each warns.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MessageContextManager, extractiveSummarizer, getCounter, type MessageLike, type TrimEvent } from "ctxwin";
import { TokenBudgetStrategy } from "ctxwin/truncation";
import { contextInputFilter } from "ctxwin/openai-agents";

const quiet = { warn: () => undefined };
const counter = getCounter("gpt-4o");
const summarizer = extractiveSummarizer();
const onTrim = (_event: TrimEvent<MessageLike>) => undefined;

/** A valid value for each of the manager's flat names, and the place the warning names. */
const MANAGER: Array<[string, unknown, string]> = [
  ["llm", summarizer, "compaction.summarizer"],
  ["autoTruncate", false, "compaction.autoTruncate"],
  ["trimAt", 0.7, "compaction.trimAt"],
  ["trimTo", 0.5, "compaction.trimTo"],
  ["compactionTiming", "threshold", "compaction.timing"],
  ["strategy", new TokenBudgetStrategy(), "compaction.strategy"],
  ["onTrim", onTrim, "compaction.onTrim"],
  ["pinFirstUserMessage", false, "compaction.pinFirstUserMessage"],
  ["keepReasoningTurns", 2, "compaction.keepReasoningTurns"],
  ["maxToolResultTokens", 300, "compaction.maxToolResultTokens"],
  ["keepToolResults", 1, "compaction.keepToolResults"],
  ["clearAtLeast", 0, "compaction.clearAtLeast"],
  ["summaryRole", "system", "compaction.summaryRole"],
  ["maxSummaryTokens", 200, "compaction.maxSummaryTokens"],
  ["summaryInputTokens", 4000, "compaction.summaryInputTokens"],
  ["keepUserTokens", 100, "compaction.keepUserTokens"],
  ["preserveLast", 4, "compaction.preserveLast"],
  ["maxSummaryFailures", 2, "compaction.maxSummaryFailures"],
  ["breakerResetMs", 1000, "compaction.breakerResetMs"],
  ["onOverflow", "send", "warnings.onOverflow"],
  ["orphanToolResults", "drop", "warnings.orphanToolResults"],
];

let warnings: Error[] = [];
const listen = (warning: Error) => warnings.push(warning);
beforeEach(() => {
  warnings = [];
  process.on("warning", listen);
});
afterEach(() => {
  process.off("warning", listen);
});

/** process.emitWarning delivers on the next tick. */
const ticked = () => new Promise((resolve) => setImmediate(resolve));

function deprecations(): Array<{ message: string; code: unknown; name: string }> {
  return warnings
    .filter((w) => (w as { code?: unknown }).code === "CTXWIN_DEP_FLAT_OPTION")
    .map((w) => ({ message: w.message, code: (w as { code?: unknown }).code, name: w.name }));
}

describe("a flat option name of 0.x", () => {
  it.each(MANAGER)(
    "%s still works on the manager, with one DeprecationWarning naming %2$s... once per process",
    async (flat, value, place) => {
      const make = () =>
        new MessageContextManager({ model: "gpt-4o", counter, logger: quiet, [flat]: value } as ConstructorParameters<
          typeof MessageContextManager
        >[0]);
      const manager = make();
      make();
      await ticked();
      expect(deprecations()).toEqual([
        {
          name: "DeprecationWarning",
          code: "CTXWIN_DEP_FLAT_OPTION",
          message: expect.stringContaining(`options.${flat} is deprecated, use options.${place}`),
        },
      ]);
      // And it took effect where the grouped option would.
      if (flat === "trimAt") expect(manager.trimAt).toBe(0.7);
      if (flat === "trimTo") expect(manager.trimTo).toBe(0.5);
      if (flat === "autoTruncate") expect(manager.autoTruncate).toBe(false);
      if (flat === "onOverflow") expect(manager.onOverflow).toBe("send");
      if (flat === "llm") expect(manager.summarizer).toBe(summarizer);
    },
  );

  it("summarizer on an adapter: one warning, then none; strategy, already warned about by the manager, none", async () => {
    const make = () => contextInputFilter({ model: "gpt-4o", counter, summarizer, strategy: "smart" });
    make();
    make();
    await ticked();
    expect(deprecations().map((d) => d.message)).toEqual([
      expect.stringContaining("options.summarizer is deprecated, use options.compaction.summarizer"),
    ]);
  });

  it("already warned about gives no second warning, from the manager or an adapter", async () => {
    new MessageContextManager({ model: "gpt-4o", counter, logger: quiet, trimAt: 0.75, llm: summarizer });
    contextInputFilter({ model: "gpt-4o", counter, trimTo: 0.4, keepToolResults: 2 });
    await ticked();
    expect(deprecations()).toEqual([]);
  });

  it("the grouped form gives no warning, and manager.llm still reads the summarizer", async () => {
    const manager = new MessageContextManager({
      model: "gpt-4o",
      counter,
      logger: quiet,
      compaction: { summarizer, trimAt: 0.7 },
      warnings: { onOverflow: "send" },
    });
    await ticked();
    expect(deprecations()).toEqual([]);
    expect(manager.llm).toBe(manager.summarizer);
    expect(manager.summarizer).toBe(summarizer);
  });
});
