// Property: whatever concurrent async turns, compactions and forced trims do to one manager, its
// session's log holds every message added, once, in the order added, and reopens to the same view
// (issue 39: 2-6 of 80 messages were missing per run). On the memory, file and Redis stores; the
// chaos run (npm run chaos) runs 1,000 plans more. CTXWIN_TURN_RUNS sets the memory store's runs.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { everyStore } from "./support/every-store.js";
import { runConcurrentTurns, turnPlans } from "./support/concurrent-turns.js";

const RUNS = Number(process.env.CTXWIN_TURN_RUNS ?? 60);

const STORES = everyStore("ctxwin-turns-", RUNS);

let sessions = 0;

describe.each(STORES)("concurrent async turns on the %s store", (_name, makeStore, runs) => {
  it("the log holds every message added, once, in order, and reopens to the same view", async () => {
    const store = makeStore();
    try {
      // The issue's case first: 40 turns at once, each with a result large enough to force trims.
      const issue = await runConcurrentTurns(store, `turns-${sessions++}`, {
        turns: Array.from({ length: 40 }, (_, i) => ({
          before: i % 3,
          between: (i * 7) % 4,
          lines: 60 + (i % 5) * 10,
          flush: i % 2 === 0,
        })),
        summaryMs: 2,
      });
      expect({ missing: issue.missing, duplicated: issue.duplicated, inOrder: issue.inOrder, reopenedEqual: issue.reopenedEqual }).toEqual({
        missing: 0,
        duplicated: 0,
        inOrder: true,
        reopenedEqual: true,
      });
      expect(issue.added).toHaveLength(80);
      await fc.assert(
        fc.asyncProperty(turnPlans(40), async (plan) => {
          const outcome = await runConcurrentTurns(store, `turns-${sessions++}`, plan);
          expect({
            missing: outcome.missing,
            duplicated: outcome.duplicated,
            inOrder: outcome.inOrder,
            reopenedEqual: outcome.reopenedEqual,
          }).toEqual({ missing: 0, duplicated: 0, inOrder: true, reopenedEqual: true });
        }),
        { numRuns: runs },
      );
    } finally {
      await store.close();
    }
  }, 300_000);
});
