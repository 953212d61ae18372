// The trajectory benchmark's measuring code, on small trajectories written here: the conversion of
// both agents' formats to chat messages, the questions generated from a trajectory, the shell
// readers they rest on, and the verdicts and faults read from a request (the data layer:
// trajectories-data.test.ts). Nothing here reads the fetched trajectories: the suite passes on a
// checkout without them.
import { describe, expect, it } from "vitest";
import { convertTrajectory, type ChatMessage } from "../../../bench/trajectories/convert.js";
import { classify, faults, listedOpenProblems, namedRecallIds, requestText } from "../../../bench/trajectories/evaluate.js";
import { readOutcome } from "../../../bench/trajectories/outcome.js";
import { callRecords, generateQuestions, type QuestionKind } from "../../../bench/trajectories/questions.js";
import { editedFiles, isReadOnly, isTestCommand } from "../../../bench/trajectories/shell.js";

const bash = (thought: string, command: string) => ({
  role: "assistant",
  content: `THOUGHT: ${thought}\n\n\`\`\`bash\n${command}\n\`\`\``,
  extra: {},
});
const result = (code: number, output: string) => ({
  role: "user",
  content: `<returncode>${code}</returncode>\n<output>\n${output}</output>`,
});

// A mini-swe-agent run: reads, a failing test, edits through the shell, a format error, the fix.
const PYTEST_FAIL = [
  "============================= test session starts ==============================",
  "collected 3 items",
  "",
  "tests/test_parse.py .F.                                                  [100%]",
  "",
  "=================================== FAILURES ===================================",
  "E       AssertionError: assert '-1:00:00' == '-01:00:00'",
  "=========================== short test summary info ============================",
  "FAILED tests/test_parse.py::test_negative - AssertionError: assert '-1:00:00' == '-01:00:00'",
  "========================= 1 failed, 2 passed in 0.12s ==========================",
  "",
].join("\n");
const PATCH = "--- a/src/util.py\n+++ b/src/util.py\n@@ -1 +1 @@\n-x = 1\n+x = 2";
const MINI = {
  trajectory_format: "mini-swe-agent-1",
  messages: [
    { role: "system", content: "You are a helpful assistant that can interact with a computer shell." },
    { role: "user", content: "<pr_description>\nparse_duration() fails for negative durations\n</pr_description>" },
    bash("Find the parser.", "grep -rn 'raise ValueError' src/ | head"),
    result(0, "src/parse.py:40:        raise ValueError('bad duration')\n"),
    bash("Run the tests.", "cd /testbed && python -m pytest tests/test_parse.py"),
    result(1, PYTEST_FAIL),
    bash("Fix the regex.", "sed -i 's/\\\\d+:/-?\\\\d+:/' src/parse.py"),
    result(0, ""),
    { role: "assistant", content: "THOUGHT: two at once\n\n```bash\nls\n```\n\n```bash\npwd\n```" },
    { role: "user", content: "Please always provide EXACTLY ONE action in triple backticks, found 2 actions." },
    bash(
      "Write a script and a patch.",
      "cat <<'EOF' > fix.patch\n" + PATCH + "\nEOF\ngit apply fix.patch && python - <<'EOF'\nopen('notes/out.txt', 'w').write('x')\nEOF",
    ),
    result(0, ""),
    bash("Move and delete.", "mv old_name.py new_name.py && rm -f scratch.py"),
    result(0, ""),
    bash("Run the tests again.", "cd /testbed && python -m pytest tests/test_parse.py"),
    result(0, "========================= 3 passed in 0.10s ==========================\n"),
    bash("Done.", "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached"),
    { role: "user", content: "diff --git a/src/parse.py b/src/parse.py\n" },
  ],
};

// A SWE-agent 0.x run: a demonstration, the task, interface commands with the editor's state.
const SWE_AGENT = {
  environment: "swe_main",
  trajectory: [{}],
  info: {},
  history: [
    { role: "system", content: "SETTING: You are an autonomous programmer.", agent: "primary" },
    { role: "user", content: "Here is a demonstration of how to correctly accomplish this task.", agent: "primary", is_demo: true },
    {
      role: "user",
      content: "We're currently solving the following issue within our repository.\nISSUE:\nNPE in Parser",
      agent: "primary",
    },
    {
      role: "assistant",
      content: "Open it.\n```\nopen src/Parser.java\n```",
      thought: "Open it.\n",
      action: "open src/Parser.java\n",
      agent: "primary",
    },
    {
      role: "user",
      content:
        "[File: /acme__parser/src/Parser.java (120 lines total)]\n1:package acme;\n(Open file: /acme__parser/src/Parser.java)\n(Current directory: /acme__parser)\nbash-$",
      agent: "primary",
    },
    {
      role: "assistant",
      content: "Fix line 3.\n```\nedit 3:3\n    return null;\nend_of_edit\n```",
      thought: "Fix line 3.\n",
      action: "edit 3:3\n    return null;\nend_of_edit\n",
      agent: "primary",
    },
    {
      role: "user",
      content:
        "[File: /acme__parser/src/Parser.java (120 lines total)]\n3:    return null;\nFile updated.\n(Open file: /acme__parser/src/Parser.java)\n(Current directory: /acme__parser)\nbash-$",
      agent: "primary",
    },
    {
      role: "assistant",
      content: "Compile.\n```\njavac src/Parser.java\n```",
      thought: "Compile.\n",
      action: "javac src/Parser.java\n",
      agent: "primary",
    },
    {
      role: "user",
      content:
        "src/Parser.java:3: error: incompatible types: <null> cannot be converted to int\n1 error\n(Open file: /acme__parser/src/Parser.java)\n(Current directory: /acme__parser)\nbash-$",
      agent: "primary",
    },
    { role: "assistant", content: "Exit due to cost limit", thought: "Exit due to cost limit", action: "exit_cost", agent: "primary" },
  ],
};

function answersAt(messages: ChatMessage[], questions: ReturnType<typeof generateQuestions>, turn: number, kind: QuestionKind): string[] {
  expect(messages[(questions[turn] as { before: number }).before]?.role).toBe("assistant");
  return (questions[turn]?.answers ?? []).filter((a) => a.kind === kind).map((a) => a.text);
}

describe("trajectory conversion", () => {
  it("turns a mini-swe-agent run into system, task, bash calls with their results, and format errors left as they were", () => {
    const run = convertTrajectory(MINI);
    expect(run.format).toBe("mini-swe-agent");
    expect(run.toolCalls).toBe(7);
    const [system, task, first, firstResult] = run.messages;
    expect(system).toEqual({ role: "system", content: MINI.messages[0]?.content });
    expect(task).toEqual({ role: "user", content: MINI.messages[1]?.content });
    expect(first).toEqual({
      role: "assistant",
      content: "THOUGHT: Find the parser.",
      tool_calls: [
        {
          id: "call_0",
          type: "function",
          function: { name: "bash", arguments: JSON.stringify({ command: "grep -rn 'raise ValueError' src/ | head" }) },
        },
      ],
    });
    // The output's bytes, as recorded.
    expect(firstResult).toEqual({ role: "tool", tool_call_id: "call_0", content: MINI.messages[3]?.content });
    const formatError = run.messages.findIndex((m) => m.role === "assistant" && m.tool_calls === undefined);
    expect(run.messages[formatError]?.content).toBe(MINI.messages[8]?.content);
    expect(run.messages[formatError + 1]).toEqual({ role: "user", content: MINI.messages[9]?.content });
    // Every call is answered, right after it.
    run.messages.forEach((m, i) => {
      if (m.role === "assistant" && m.tool_calls)
        expect(run.messages[i + 1]).toMatchObject({ role: "tool", tool_call_id: m.tool_calls[0]?.id });
    });
  });

  it("turns a SWE-agent 0.x run into its prompt (the demonstration a system message), the task, and interface calls", () => {
    const run = convertTrajectory(SWE_AGENT);
    expect(run.format).toBe("swe-agent");
    expect(run.messages.map((m) => m.role)).toEqual([
      "system",
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
    ]);
    expect(run.messages[1]?.content).toBe(SWE_AGENT.history[1]?.content);
    expect(run.messages[2]?.content).toBe(SWE_AGENT.history[2]?.content);
    const names = run.messages.flatMap((m) => (m.role === "assistant" ? (m.tool_calls ?? []).map((c) => c.function.name) : []));
    expect(names).toEqual(["open", "edit", "bash"]);
    expect(run.messages[5]).toMatchObject({
      content: "Fix line 3.\n",
      tool_calls: [{ function: { arguments: JSON.stringify({ command: "edit 3:3\n    return null;\nend_of_edit" }) } }],
    });
    // The last turn ran nothing: a plain assistant message.
    expect(run.messages.at(-1)).toEqual({ role: "assistant", content: "Exit due to cost limit" });
  });

  it("rejects what is neither format", () => {
    expect(() => convertTrajectory({ messages: [] })).toThrow(TypeError);
  });
});

describe("trajectory questions", () => {
  const run = convertTrajectory(MINI);
  const questions = generateQuestions(run.messages, "/testbed");

  it("asks one set of questions per assistant turn, from the messages before it", () => {
    expect(questions).toHaveLength(run.messages.filter((m) => m.role === "assistant").length);
    expect(questions[0]?.answers).toEqual([]);
    expect(answersAt(run.messages, questions, 1, "last-command")).toEqual(["grep -rn 'raise ValueError' src/ | head"]);
  });

  it("opens the failing test run's error line and failing tests, and closes them when the same command passes", () => {
    expect(answersAt(run.messages, questions, 2, "open-error")).toEqual([
      "FAILED tests/test_parse.py::test_negative - AssertionError: assert '-1:00:00' == '-01:00:00'",
    ]);
    expect(answersAt(run.messages, questions, 2, "failing-test")).toEqual(["tests/test_parse.py::test_negative"]);
    expect(answersAt(run.messages, questions, 2, "last-test")).toEqual(["cd /testbed && python -m pytest tests/test_parse.py"]);
    // Still open while other commands run.
    expect(answersAt(run.messages, questions, 6, "open-error")).toHaveLength(1);
    const last = questions.length - 1;
    expect(answersAt(run.messages, questions, last, "open-error")).toEqual([]);
    expect(answersAt(run.messages, questions, last, "failing-test")).toEqual([]);
  });

  it("collects the files edited through the shell, as the repository names them", () => {
    const last = questions.length - 1;
    expect(answersAt(run.messages, questions, last, "file")).toEqual([
      "src/parse.py",
      "src/util.py",
      "notes/out.txt",
      "fix.patch",
      "old_name.py",
      "new_name.py",
      "scratch.py",
    ]);
  });

  it("follows SWE-agent's open file into its edits, and its compiler errors", () => {
    const swe = convertTrajectory(SWE_AGENT);
    const q = generateQuestions(swe.messages, undefined);
    expect(answersAt(swe.messages, q, 3, "file")).toEqual(["src/Parser.java"]);
    expect(answersAt(swe.messages, q, 3, "open-error")).toEqual([
      "src/Parser.java:3: error: incompatible types: <null> cannot be converted to int",
    ]);
  });

  it("keys a command without its heredoc bodies, and a passing && chain closes each of its parts", () => {
    const shell = (id: string, command: string, code: number, output: string): ChatMessage[] => [
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id, type: "function", function: { name: "bash", arguments: JSON.stringify({ command }) } }],
      },
      { role: "tool", tool_call_id: id, content: `<returncode>${code}</returncode>\n<output>\n${output}\n</output>` },
    ];
    const script = (body: string) => `cat <<'EOF' > repro.py\n${body}\nEOF\npython repro.py`;
    const messages: ChatMessage[] = [
      { role: "user", content: "task" },
      ...shell("c1", script("import missing"), 1, "Traceback (most recent call last):\nModuleNotFoundError: No module named 'missing'"),
      ...shell("c2", "python tests/runtests.py queries.JoinTest", 1, "FAIL: test_join (queries.JoinTest)\nFAILED (failures=1)"),
      // The script rewritten and run again: the same check, passing.
      ...shell("c3", script("print('ok')"), 0, "ok"),
      ...shell("c4", "python repro.py && python tests/runtests.py queries.JoinTest", 0, "ok\nOK"),
      { role: "assistant", content: "done" },
    ];
    const q = generateQuestions(messages, "/testbed");
    expect(answersAt(messages, q, 2, "open-error")).toEqual(["FAIL: test_join (queries.JoinTest)"]);
    // The test failure is the newest open one until the chain that runs it passes; the script's is closed.
    expect(answersAt(messages, q, 3, "open-error")).toEqual(["FAIL: test_join (queries.JoinTest)"]);
    expect(answersAt(messages, q, 4, "open-error")).toEqual([]);
  });

  it("never opens a problem from a command that only reads, whatever it prints", () => {
    const messages: ChatMessage[] = [
      { role: "user", content: "task" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "c1", type: "function", function: { name: "bash", arguments: JSON.stringify({ command: "sed -n '890,910p' schema.py" }) } },
        ],
      },
      {
        role: "tool",
        tool_call_id: "c1",
        content:
          "<returncode>0</returncode>\n<output>\nTraceback (most recent call last):\n  File \"x.py\", line 1\nKeyError: 'a'\n</output>",
      },
      { role: "assistant", content: "done" },
    ];
    expect(callRecords(messages)[0]).toMatchObject({ readOnly: true, failed: false });
    expect(generateQuestions(messages, "/testbed")[1]?.answers.filter((a) => a.kind === "open-error")).toEqual([]);
  });
});

describe("command and output readers", () => {
  it("tells reading commands from writing ones", () => {
    for (const c of [
      "cat a.py",
      "sed -n '1,20p' a.py",
      "grep -rn Error src | head -5",
      "cd /testbed && git diff",
      "ls -la && find . -name '*.py'",
      "nl -ba x.py | sed -n '10,40p'",
    ])
      expect(isReadOnly(c), c).toBe(true);
    for (const c of [
      "sed -i 's/a/b/' a.py",
      "cat > a.py <<'EOF'\nx\nEOF",
      "echo x > a.txt",
      "python reproduce.py",
      "grep x a | tee out.txt",
      "find . -name '*.pyc' -delete",
    ])
      expect(isReadOnly(c), c).toBe(false);
  });

  it("recognizes test runs", () => {
    for (const c of [
      "python -m pytest tests/",
      "cd /testbed && ./tests/runtests.py migrations",
      "pytest -x -q",
      "bin/test sympy/core",
      "mvn -q test -Dtest=FooTest",
      "python3 tests/test_fix.py",
    ])
      expect(isTestCommand(c), c).toBe(true);
    for (const c of ["python reproduce_issue.py", "cat tests/test_x.py", "mvn compile"]) expect(isTestCommand(c), c).toBe(false);
  });

  it("finds the files a command writes, moves or deletes", () => {
    expect(editedFiles("cd sub && sed -i.bak -e 's/a/b/' one.py two.py", "/testbed")).toEqual([
      "/testbed/sub/one.py",
      "/testbed/sub/two.py",
    ]);
    expect(editedFiles("python x.py > out.log 2>&1 && echo ok >/dev/null", "/testbed")).toEqual(["/testbed/out.log"]);
    expect(editedFiles("cp a.py b.py && touch c.py", undefined)).toEqual(["b.py", "c.py"]);
    // A script quoted wrong leaves words bash passes to sed as files: only paths count. A quote
    // left open is a syntax error: bash runs nothing.
    expect(editedFiles("sed -i '1i Don\\'t show the doc's' src/doc.py", "/w")).toEqual(["/w/src/doc.py"]);
    expect(editedFiles("sed -i '3c\\    # Don\\'t show the docstring' src/doc.py", "/w")).toEqual([]);
    expect(editedFiles("apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/a.ts\n@@\n-x\n+y\n*** End Patch\nEOF", "/w")).toEqual([
      "/w/src/a.ts",
    ]);
  });

  it("reads how a command ended", () => {
    expect(
      readOutcome(
        '<returncode>1</returncode>\n<output>\nTraceback (most recent call last):\n  File "r.py", line 3, in <module>\n    f()\nValueError: bad\n</output>',
      ),
    ).toMatchObject({ exitCode: 1, tracebackOutcome: true, errorLine: "ValueError: bad" });
    expect(readOutcome("Ran 4 tests in 0.01s\n\nFAIL: test_x (pkg.tests.T)\nFAILED (failures=1)")).toMatchObject({
      testsFailed: true,
      failingTests: ["test_x (pkg.tests.T)"],
      errorLine: "FAIL: test_x (pkg.tests.T)",
    });
    expect(readOutcome("[ERROR] Tests run: 3, Failures: 1, Errors: 0, Skipped: 0\n[ERROR] BUILD FAILURE")).toMatchObject({
      testsFailed: true,
      errorLine: "[ERROR] BUILD FAILURE",
    });
    // A failing exit without a traceback or test report: the last line that says error, not the output's last line.
    expect(
      readOutcome(
        "<returncode>2</returncode>\n<output>\nRunning Sphinx\nException occurred: KeyError 'x'\nA bug report can be filed in the tracker.\n</output>",
      ).errorLine,
    ).toBe("Exception occurred: KeyError 'x'");
    expect(readOutcome("<returncode>0</returncode>\n<output>\nall good\n</output>")).toMatchObject({
      exitCode: 0,
      testsFailed: false,
      tracebackOutcome: false,
      errorLine: undefined,
    });
  });
});

describe("request verdicts and faults", () => {
  const request = [
    { role: "system", content: "prompt" },
    { role: "user", content: "the task" },
    {
      role: "system",
      content:
        "Summary of the 8 earlier messages (3 KB; recall by id: call_1, call_2):\nOpen problems, newest first:\n- pytest tests: FAILED t::a [id call_2]\n- cat x: Error [id call_1]\n- and 2 older open problems\nLast command: ls",
    },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "call_3", type: "function", function: { name: "bash", arguments: JSON.stringify({ command: "pytest -k neg\nexit 0" }) } },
      ],
    },
    { role: "tool", tool_call_id: "call_3", content: '[tool result cleared: 2 KB; recall("call_3")]' },
    { role: "tool", tool_call_id: "call_9", content: "orphan" },
  ];

  it("reads the request's text with each call's command as written", () => {
    expect(requestText(request)).toContain("bash pytest -k neg\nexit 0");
  });

  it("finds the recall ids the request names", () => {
    expect(namedRecallIds(requestText(request)).sort()).toEqual(["call_1", "call_2", "call_3"]);
  });

  it("classifies each answer present, recoverable through a named id, or lost", async () => {
    const originals: Record<string, string> = { call_3: "E   assert 1 == 2\n1 failed" };
    const verdicts = await classify(
      [
        { kind: "last-command", text: "pytest -k neg\nexit 0" },
        { kind: "open-error", text: "E   assert 1 == 2" },
        { kind: "file", text: "src/never.py" },
      ],
      requestText(request),
      async (id) => originals[id],
    );
    expect(verdicts).toEqual(["present", "recoverable", "lost"]);
    // Without recall (a baseline), nothing is recoverable.
    expect(await classify([{ kind: "open-error", text: "E   assert 1 == 2" }], requestText(request), undefined)).toEqual(["lost"]);
  });

  it("counts split units, a missing task and a missing newest result", () => {
    expect(faults(request, "the task", "call_3")).toEqual({ splitUnits: 1, taskMissing: false, newestResultPresent: true });
    expect(faults(request.slice(2, 5), "the task", "call_4")).toEqual({ splitUnits: 0, taskMissing: true, newestResultPresent: false });
  });

  it("lists a summary's open problems by the ids they name", () => {
    expect(listedOpenProblems(request[2]?.content as string)).toEqual(["call_2", "call_1"]);
  });
});
