// Summaries and placeholders that read shell agents: an agent that edits through `sed -i`,
// heredocs and `python - <<'PY'` has its files listed as changed; what it only read (`grep`,
// `nl | sed -n`) is never an open problem, whatever the file's code says; a failure is resolved
// when the same script or test file later passes; a passing run's placeholder keeps its outcome.
import { describe, expect, it } from "vitest";
import { ContextLimits, MessageContextManager, TiktokenCounter, TruncationMode, extractiveSummarizer } from "ctxwin";
import { ContextCompactor } from "ctxwin/compaction";
import { fixSession, stepMessages, type Msg } from "./shell-agent-steps.js";

const counter = new TiktokenCounter({ model: "gpt-4o" });
const quiet = { warn: () => {}, info: () => {}, error: () => {}, debug: () => {} };
const TASK: Msg = { role: "user", content: "Item.objects.get_field('name') raises KeyError for a field that exists. Fix it." };

function session(): Msg[] {
  return [TASK, ...fixSession().flatMap((step, i) => stepMessages(step, `call_${i + 1}`))];
}

describe("a summary of a shell agent's work", () => {
  it("lists the files it changed through the shell, and its resolved failures; nothing it only read", async () => {
    const compactor = new ContextCompactor({ model: extractiveSummarizer(), keepUserTokens: 0, maxSummaryTokens: 2000 });
    const messages = session();
    const result = await compactor.compactWithDetails(messages, 0, counter, { preserveLast: 0 });
    const summary = result.summary?.content ?? "";
    expect(summary).toContain("\nFiles changed: reproduce.py (deleted), django/db/models/query.py and django/db/models/options.py.\n");
    // The script that failed passed later, and so did the test file: no problem is open.
    expect(summary).not.toContain("Open problems");
    expect(summary).toMatch(
      /Resolved problems, newest first:\n- test "TestCard.test_case_0": FAILED tests\/model_fields\/test_card\.py::TestCard::test_case_0 - AssertionError -> now passed: tests\/model_fields\/test_card\.py::TestCard::test_case\.\.\.\n- `cd \/testbed && python reproduce\.py`: KeyError: 'name' -> now <django\.db\.models\.fields\.CharField: name>; exit code 0/,
    );
    // What the reads printed (a file's `except KeyError:` and `raise FieldError("Error: ...")`) is nowhere.
    expect(summary).not.toContain("FieldError");
    expect(summary).not.toContain("sed -n");
    // Read first, then changed: listed as changed only.
    expect(summary).not.toMatch(/Files read: [^\n]*django\/db\/models\/query\.py/);
  });

  it("in a managed history, every request lists open problems from runs only, and the summary names the files changed", async () => {
    const context = new MessageContextManager<Msg>({
      model: "gpt-4o",
      counter,
      mode: TruncationMode.SUMMARIZE,
      limits: new ContextLimits({ model: "gpt-4o", maxTokens: 1500, maxOutputTokens: 0, reservedTokens: 0 }),
      logger: quiet,
      compaction: {
        summarizer: extractiveSummarizer(),
        preserveLast: 2,
        keepToolResults: 1,
      },
    });
    context.addMessage(TASK);
    const steps = fixSession();
    let summaries = 0;
    for (let i = 0; i < steps.length; i++) {
      for (const m of stepMessages(steps[i]!, `call_${i + 1}`)) context.addMessage(m);
      await context.compactIfNeeded();
      const request = context.getContextForRequest();
      const text = request.map((m) => (typeof m.content === "string" ? m.content : "")).join("\n");
      const open = /Open problems, newest first:\n((?:- .*\n?)*)/.exec(text)?.[1] ?? "";
      for (const line of open.split("\n").filter((l) => l.startsWith("- "))) {
        expect(line, `request after step ${i + 1}`).not.toMatch(/`(grep|nl|sed -n|cat|git diff)/);
      }
      // The reproduction failed at step 5 and passed at step 8: open in between, in some form.
      if (i + 1 >= 5 && i + 1 < 8) expect(text, `request after step ${i + 1}`).toContain("KeyError: 'name'");
      const summary = request.find((m) => typeof m.content === "string" && m.content.startsWith("Summary of the"));
      if (summary !== undefined) {
        summaries++;
        // A summary of the task and steps 1-6 or more covers the sed -i of query.py.
        const covered = Number(/^Summary of the (\d+) earlier messages/.exec(summary.content as string)?.[1]);
        if (covered >= 12)
          expect(summary.content, `request after step ${i + 1}`).toMatch(/Files changed: [^\n]*django\/db\/models\/query\.py/);
      }
    }
    expect(summaries).toBeGreaterThan(0);
  });
});

describe("the placeholders of a shell agent's results", () => {
  it("keep a failure's lines and a passing run's outcome line, and nothing of a read", async () => {
    const context = new MessageContextManager<Msg>({
      model: "gpt-4o",
      counter,
      mode: TruncationMode.TOKEN_BUDGET,
      limits: new ContextLimits({ model: "gpt-4o", maxTokens: 200_000, maxOutputTokens: 0, reservedTokens: 0 }),
      logger: quiet,
      compaction: { keepToolResults: 1, clearAtLeast: 0, maxToolResultTokens: 100_000 },
    });
    const messages = session();
    context.load(messages);
    // A target every old result must be cleared to reach, and the newest cleared one (step 11's
    // 212 lines of -v output) alone passes: level 2 clears them all, and no turn is dropped.
    const results = messages.filter((m) => m.role === "tool");
    const cleared = context.tokenUsage - counter.countMessages(results.slice(0, -1)) + 11 * 40;
    await context.compactIfNeeded({ threshold: (cleared + 1000) / context.limits.effectiveLimit });
    const result = (id: string) => context.getMessages().find((m) => m.tool_call_id === id)?.content as string;
    const head = (id: string) => new RegExp(`^\\[tool result cleared: [^\\]]*recall\\("${id}"\\)\\]`);
    // Reads (grep, nl | sed -n, sed -n, git diff): the size and the recall call, no line of what they printed.
    for (const id of ["call_1", "call_2", "call_3", "call_10"]) {
      expect(result(id)).toMatch(head(id));
      expect(result(id), id).not.toContain("\n");
    }
    // The reproduction failing, then passing.
    expect(result("call_5")).toMatch(head("call_5"));
    expect(result("call_5")).toContain("\nError lines kept:\n");
    expect(result("call_5")).toContain("KeyError: 'name'");
    // (Step 8's one line is not cleared: its placeholder would cost as much.)
    // The tests failing, then passing: after the fix the prompt shows the success too.
    expect(result("call_9")).toContain("E       AssertionError: assert '1.0E-10' == '1e-10'");
    expect(result("call_9")).toContain("FAILED tests/model_fields/test_card.py::TestCard::test_case_0 - AssertionError");
    expect(result("call_9")).toContain("========================= 1 failed, 211 passed in 0.41s =========================");
    expect(result("call_11")).toMatch(/\nOutcome kept: =+ 212 passed in 0\.40s =+$/);
    expect(context.getMessages()).toHaveLength(messages.length);
  });
});
