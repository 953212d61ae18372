// The file store's rule against any interleaving of what writers do to a session file: appends
// through the store, late lines of writers that lost their lock (written for a version another
// line already took), torn writes (a writer killed in the middle of one), a whole line left without
// its newline. After every step, every reader agrees with a model of the log: each acknowledged
// append once, in order, nothing else but whole lines that were first for their version.
import { appendFileSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { FileSessionStore } from "ctxwin";
import type { SessionEntry } from "ctxwin/session";

const directories: string[] = [];
afterAll(() => {
  for (const d of directories) rmSync(d, { recursive: true, force: true });
});

type Step =
  | { op: "append"; size: number; blind: boolean }
  | { op: "remember" }
  | { op: "late"; size: number }
  | { op: "torn"; cut: number }
  | { op: "whole-unterminated" };

const steps: fc.Arbitrary<Step[]> = fc.array(
  fc.oneof(
    { weight: 5, arbitrary: fc.record({ op: fc.constant("append" as const), size: fc.integer({ min: 1, max: 3 }), blind: fc.boolean() }) },
    { weight: 2, arbitrary: fc.constant({ op: "remember" as const }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant("late" as const), size: fc.integer({ min: 1, max: 4 }) }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant("torn" as const), cut: fc.double({ min: 0, max: 0.999, noNaN: true }) }) },
    { weight: 1, arbitrary: fc.constant({ op: "whole-unterminated" as const }) },
  ),
  { minLength: 1, maxLength: 30 },
);

/** A line as a writer that counted `seq` at checkpoint `after` writes it. */
const line = (seq: number, after: number, entries: SessionEntry[], tag: string) =>
  JSON.stringify({ seq, version: seq + entries.length, after, log: "L", append: tag, time: 1, entries });

describe("FileSessionStore's fencing, property", () => {
  it("readers from anywhere see each acknowledged append once, in order, whatever late, torn and unterminated writes came between", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(steps, async (plan) => {
        const directory = mkdtempSync(join(tmpdir(), "ctxwin-fence-"));
        directories.push(directory);
        const store = new FileSessionStore({ directory, fsync: false });
        const id = `s${run++}`;
        const path = store.pathOf(id);
        const size = () => {
          try {
            return statSync(path).size;
          } catch {
            return 0;
          }
        };
        const model: SessionEntry[] = [];
        // Where a writer that is about to stall counted: the file's end and the version there.
        let remembered: { offset: number; version: number } | undefined;
        // A whole line without its newline: it counts once the next write ends it.
        let unterminated: SessionEntry[] | undefined;
        let n = 0;
        for (const step of plan) {
          const entries = (count: number, kind: string) => Array.from({ length: count }, () => ({ type: kind, n: n++ }));
          if (step.op === "append") {
            const batch = entries(step.size, "message");
            const result = await store.append(
              id,
              batch,
              step.blind ? undefined : { expectedVersion: model.length + (unterminated?.length ?? 0) },
            );
            if (unterminated) model.push(...unterminated);
            unterminated = undefined;
            expect(result.first).toBe(model.length);
            model.push(...batch);
          } else if (step.op === "remember") {
            if (!unterminated) remembered = { offset: size(), version: model.length };
          } else if (step.op === "late") {
            // Only a stale one: a writer whose version another line already took.
            if (remembered && remembered.version < model.length) {
              appendFileSync(path, `\n${line(remembered.version, remembered.offset, entries(step.size, "late"), `late-${n}`)}\n`);
              if (unterminated) model.push(...unterminated); // its newline came
              unterminated = undefined;
            }
          } else if (step.op === "torn") {
            const whole = `\n${line(model.length, size(), entries(2, "torn"), `torn-${n}`)}\n`;
            // Its newline and at least one byte of its line (a write torn right after its newline,
            // following another torn write, is the one pattern the rule cannot tell from a whole
            // line of garbage: refused as corrupt, see docs/reliability.md), never the whole line.
            appendFileSync(path, whole.slice(0, Math.min(whole.length - 3, Math.max(2, Math.floor(whole.length * step.cut)))));
            if (unterminated) model.push(...unterminated); // its newline came
            unterminated = undefined;
          } else if (!unterminated) {
            const batch = entries(1, "whole");
            appendFileSync(path, `\n${line(model.length, size(), batch, `whole-${n}`)}`);
            unterminated = batch;
          }
          // Every reader, from every position, agrees with the model.
          const records = await store.read(id);
          expect(records.map((r) => r.entry)).toEqual(model);
          expect(records.map((r) => r.seq)).toEqual(model.map((_, i) => i));
          for (const from of new Set([1, model.length >> 1, model.length - 1, model.length])) {
            if (from > 0) expect((await store.read(id, from)).map((r) => r.entry)).toEqual(model.slice(from));
          }
          if (model.length > 0) expect((await store.info(id))?.version).toBe(model.length);
          expect(records.some((r) => r.entry.type === "late" || r.entry.type === "torn")).toBe(false);
        }
      }),
      { numRuns: Number(process.env.CTXWIN_FUZZ_RUNS ?? 120) },
    );
  }, 120_000);
});
