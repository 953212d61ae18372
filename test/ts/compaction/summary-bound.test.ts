// No summary exceeds its bound: a summary message is its head (under 100 tokens, however many ids
// it could name) and a text within maxSummaryTokens, the session's open-problems record included,
// however many problems are open and however long their lines, with the offline digest or a model
// that ignores the bound. Property tests over generated shell-agent histories.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ContextLimits, MessageContextManager, TiktokenCounter, TruncationMode, extractiveSummarizer } from "ctxwin";
import { ContextCompactor } from "ctxwin/compaction";
import { codeListing, pytestOutput, stepMessages, type Msg, type Step } from "./shell-agent-steps.js";

const counter = new TiktokenCounter({ model: "gpt-4o" });
const quiet = { warn: () => {}, info: () => {}, error: () => {}, debug: () => {} };
const HEAD_BOUND = 100;

type Kind = "read" | "edit" | "fail" | "pass" | "testfail" | "testpass";

/** A step of a generated session: what kind, on which of a few files, how large. */
function step(kind: Kind, n: number, size: number): Step {
  const file = `src/package_${n % 7}/deeply/nested/module_with_a_long_name_${n}.py`;
  switch (kind) {
    case "read":
      return { command: `nl -ba ${file} | sed -n '1,${size}p'`, returncode: 0, output: codeListing(1, size) };
    case "edit":
      return {
        command: `sed -i 's/old_name_${n}/new_name_${n}/g' ${file} && cat <<'EOF' > scratch_${n}.py\nprint(${n})\nEOF`,
        returncode: 0,
        output: "",
      };
    case "fail":
      return {
        command: `python scripts/check_${n}.py --verbose`,
        returncode: 1,
        output: `Traceback (most recent call last):\n  File "scripts/check_${n}.py", line ${size}, in <module>\n    main()\n  File "${file}", line ${size * 3}, in main\nValueError: ${"the value computed from the configuration was not what the check expected ".repeat(1 + (size % 4))}${n}`,
      };
    case "pass":
      return { command: `python scripts/check_${n}.py --verbose`, returncode: 0, output: `check ${n} ok` };
    case "testfail":
      return {
        command: `python -m pytest tests/test_module_${n}.py -q`,
        returncode: 1,
        output: pytestOutput(`tests/test_module_${n}.py`, 40 + size, 1 + (size % 5)),
      };
    case "testpass":
      return {
        command: `python -m pytest tests/test_module_${n}.py -q`,
        returncode: 0,
        output: pytestOutput(`tests/test_module_${n}.py`, 40 + size, 0),
      };
  }
}

const steps = fc.array(
  fc.record({
    kind: fc.constantFrom<Kind>("read", "edit", "fail", "pass", "testfail", "testpass"),
    n: fc.integer({ min: 0, max: 30 }),
    size: fc.integer({ min: 1, max: 60 }),
  }),
  {
    minLength: 16,
    maxLength: 48,
  },
);

/** Every summary in `messages`: its head's tokens and the whole message's. */
function summaries(messages: readonly Msg[]): Array<{ head: number; whole: number; text: string }> {
  return messages
    .filter((m) => typeof m.content === "string" && m.content.startsWith("Summary of the "))
    .map((m) => {
      const text = m.content as string;
      return { head: counter.count(text.slice(0, text.indexOf("\n"))), whole: counter.count(text), text };
    });
}

describe("the summary's bound", () => {
  it("holds in a managed history after every compaction (offline digest, open-problems record at its head)", async () => {
    await fc.assert(
      fc.asyncProperty(
        steps,
        fc.integer({ min: 40, max: 600 }),
        fc.integer({ min: 1200, max: 4000 }),
        async (generated, maxSummaryTokens, window) => {
          const context = new MessageContextManager<Msg>({
            model: "gpt-4o",
            counter,
            mode: TruncationMode.SUMMARIZE,
            limits: new ContextLimits({ model: "gpt-4o", maxTokens: window, maxOutputTokens: 0, reservedTokens: 0 }),
            logger: quiet,
            compaction: { summarizer: extractiveSummarizer(), maxSummaryTokens, preserveLast: 4 },
          });
          context.addMessage({ role: "user", content: "Make every check in scripts/ pass without changing the tests." });
          for (let i = 0; i < generated.length; i++) {
            const { kind, n, size } = generated[i]!;
            for (const m of stepMessages(step(kind, n, size), `call_${i}_${"x".repeat(n)}`)) context.addMessage(m);
            await context.compactIfNeeded();
            for (const s of summaries(context.getMessages())) {
              expect(s.head, s.text).toBeLessThan(HEAD_BOUND);
              expect(s.whole, s.text).toBeLessThanOrEqual(maxSummaryTokens + HEAD_BOUND);
            }
          }
        },
      ),
      { numRuns: 12 },
    );
  });

  it("holds for a model that ignores it, and for a problem record longer than the bound", async () => {
    await fc.assert(
      fc.asyncProperty(
        steps,
        fc.integer({ min: 20, max: 400 }),
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 0, max: 3000 }),
        async (generated, maxSummaryTokens, problems, answerWords) => {
          const messages: Msg[] = [{ role: "user", content: "Make every check pass." }];
          generated.forEach(({ kind, n, size }, i) =>
            messages.push(...stepMessages(step(kind, n, size), `call_${i}_${"long_provider_id_".repeat(1 + (n % 3))}`)),
          );
          const record = Array.from(
            { length: problems },
            (_, k) =>
              `- \`python scripts/check_${k}.py\`: File "x.py", line ${k} | ValueError: ${"bad value ".repeat(k + 3)} | exit code 1 [id call_${k}]`,
          );
          const text =
            problems === 0
              ? ""
              : `Open problems, newest first:\n${record.join("\n")}\nResolved problems, newest first:\n- \`make\`: Error: x -> now ok [id r1]`;
          for (const model of [
            extractiveSummarizer(),
            async () => "The agent ran the checks and edited files. ".repeat(answerWords / 8 + 1),
          ]) {
            const compactor = new ContextCompactor({ model, maxSummaryTokens, keepUserTokens: 0, logger: quiet });
            const result = await compactor.compactWithDetails(messages, 0, counter, { preserveLast: 2, problems: text });
            if (result.summary === undefined) continue;
            const [s] = summaries([result.summary as Msg]);
            expect(s!.head, s!.text).toBeLessThan(HEAD_BOUND);
            expect(s!.whole, s!.text).toBeLessThanOrEqual(maxSummaryTokens + HEAD_BOUND);
            // The newest open problem comes first, whole or cut, while the bound leaves it room.
            if (problems > 0 && maxSummaryTokens >= 120) expect(s!.text).toContain("- `python scripts/check_0.py`");
            // The problems the bound leaves out stay one recall away: the count line names the
            // ids of the newest of them (at most eight), as many as the listed lines leave room for.
            const older = /^- and (\d+) older open problems(?: \(recall by id: ([^)]*)\))?$/m.exec(s!.text);
            if (older !== null) {
              const left = Array.from({ length: problems }, (_, k) => `call_${k}`).filter((id) => !s!.text.includes(`[id ${id}]`));
              expect(Number(older[1]), s!.text).toBe(left.length);
              const named = older[2]?.split(", ") ?? [];
              expect(named.length, s!.text).toBeLessThanOrEqual(8);
              expect(named, s!.text).toEqual(left.slice(0, named.length));
            }
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});
