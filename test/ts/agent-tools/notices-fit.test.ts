// The notes the manager adds to a request (the notices, the text compact_context was asked to
// keep) are not part of its usage: they join a request only while it stays inside the window, and
// a notice that does not fit is owed to a later request, still once.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MessageContextManager, getCounter } from "ctxwin";
import { contextToolTarget, runContextTool, type NoticeEvent } from "ctxwin/context";

const MODEL = "gpt-4o";
const counter = getCounter(MODEL);

describe("notices and kept notes inside the window", () => {
  it("never put a request over the window, and each notice reaches one request", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1_200, max: 4_000 }),
        fc.array(fc.integer({ min: 20, max: 400 }), { minLength: 8, maxLength: 40 }),
        fc.double({ min: 0.3, max: 0.95, noNaN: true }),
        fc.double({ min: 0.9, max: 1, noNaN: true }),
        async (window, sizes, at, trimAt) => {
          const manager = new MessageContextManager({
            model: MODEL,
            limits: { maxTokens: window, maxOutputTokens: 0, reservedTokens: 0 },
            notices: { afterCompaction: true, beforeCompaction: { at } },
            // Trims late, so that a request can come close to the window.
            compaction: { autoTruncate: true, trimAt, trimTo: trimAt - 0.05 },
          });
          const notices: NoticeEvent[] = [];
          manager.on("notice", (event) => notices.push(event));
          manager.setSystemPrompt("You are a careful coding agent.");
          manager.addMessage({ role: "user", content: "Fix the date parser." });
          let delivered = 0;
          for (const [step, size] of sizes.entries()) {
            if (step === 3)
              await runContextTool(contextToolTarget(manager), "compact_context", {
                reason: "phase done",
                keep: ["a finding worth keeping ".repeat(8)],
              });
            const request = manager.getContextForRequest();
            expect(counter.countMessages(request)).toBeLessThanOrEqual(manager.limits.effectiveLimit);
            delivered += request.filter((m) => String(m.content).startsWith("[ctxwin] Context")).length;
            manager.addMessage({ role: "assistant", content: `Step ${step}: ${"reading the parser again. ".repeat(Math.ceil(size / 5))}` });
          }
          // A notice is told to the caller when it reaches a request: once each, whenever that is.
          expect(delivered).toBe(notices.length);
        },
      ),
      {
        numRuns: 40,
        // Found in CI: a trim aimed within the omission marker's size of the window kept every
        // message beside the marker already there, 1,650 tokens for a window of 1,649.
        examples: [[2061, [20, 20, 31, 20, 20, 141, 166, 86, 206, 246, 106, 66, 61, 346, 101, 20], 0.3, 0.9996664645239539]],
      },
    );
  });
});
