// Compaction stops at its target: over random tool sessions and targets across the whole range
// (not only half of the history), a run lands at or under the target, and no more than one unit's
// tokens below it (a unit: a tool call with its results, or a message alone), because every level
// takes units oldest first only until the target is reached, and a level that is not needed does
// not run.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ContextLimits, MessageContextManager, TiktokenCounter, type MessageLike } from "ctxwin";

const counter = new TiktokenCounter({ model: "gpt-4o" });
const quiet = { warn: () => {} };

type Step = { ask: string; tool: string; output: string; lines: number };

const step: fc.Arbitrary<Step> = fc.record({
  ask: fc.constantFrom("Read the next file.", "Run the tests again.", "Search for the parser.", "why does it fail?"),
  tool: fc.constantFrom("read_file", "run_tests", "search_code"),
  output: fc.constantFrom("src/util/dates.ts:41 parseIsoDate(value)", "✓ test/dates.test.ts (12 tests) 40ms", "Error: duplicate charge detected for ch_17_5", "日本語のログ 🙂 ok"),
  lines: fc.integer({ min: 1, max: 400 }),
});

function session(steps: Step[]): MessageLike[] {
  const out: MessageLike[] = [{ role: "user", content: "Fix the invoice export bug; keep the public API." }];
  steps.forEach((s, i) => {
    out.push({ role: "user", content: s.ask });
    out.push({ role: "assistant", content: null, tool_calls: [{ id: `call_${i}`, type: "function", function: { name: s.tool, arguments: `{"n":${i}}` } }] } as MessageLike);
    out.push({ role: "tool", tool_call_id: `call_${i}`, content: `${s.output}\n`.repeat(s.lines) } as MessageLike);
  });
  return out;
}

/** The largest unit's tokens: a tool call with its result, or a message alone. */
function largestUnit(messages: readonly MessageLike[]): number {
  let largest = 0;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as { role: string; tool_calls?: unknown };
    const unit = m.tool_calls !== undefined ? [messages[i], messages[i + 1]] : [messages[i]];
    largest = Math.max(largest, counter.countMessages(unit as MessageLike[]) - counter.countMessages([]));
    if (m.tool_calls !== undefined) i++;
  }
  return largest;
}

describe("compaction stops at its target", () => {
  it("lands at or under the target and within one unit of it, across targets", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 3, maxLength: 24 }), fc.double({ min: 0.1, max: 0.97, noNaN: true }), async (steps, share) => {
        const messages = session(steps);
        const total = counter.countMessages(messages);
        const target = Math.max(200, Math.floor(total * share));
        const context = new MessageContextManager<MessageLike>({
          model: "gpt-4o",
          counter,
          limits: new ContextLimits({ model: "gpt-4o", maxTokens: target, maxOutputTokens: 0, reservedTokens: 0 }),
          trimAt: 1,
          trimTo: 1,
          maxToolResultTokens: 200,
          autoTruncate: false,
          logger: quiet,
        });
        context.load(messages);
        const report = await context.compactIfNeeded({ threshold: 1 });
        expect(report.targetTokens).toBe(target);
        if (report.tokensBefore <= target) {
          // Nothing to do: no level runs.
          expect(report.levels.every((level) => !level.applied)).toBe(true);
          return;
        }
        expect(report.tokensAfter).toBeLessThanOrEqual(target);
        expect(report.tokensAfter).toBeGreaterThanOrEqual(target - largestUnit(messages));
        // A level after the one that reached the target does not run.
        const reached = report.levels.findIndex((level) => level.tokensAfter <= target);
        for (const level of report.levels.slice(reached + 1)) expect(level.applied).toBe(false);
      }),
      { numRuns: 60 },
    );
  });
});
