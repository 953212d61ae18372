// The trajectory benchmark's third agent, OpenHands, on a small completion log written here: its
// conversion to chat messages (convert-openhands.ts) and the questions read from its shell and
// editor calls. Nothing here reads the fetched trajectories.
import { describe, expect, it } from "vitest";
import { convertTrajectory, detectFormat, type ChatMessage } from "../../../bench/trajectories/convert.js";
import { requestText } from "../../../bench/trajectories/evaluate.js";
import { readOutcome } from "../../../bench/trajectories/outcome.js";
import { callRecords, generateQuestions, type QuestionKind } from "../../../bench/trajectories/questions.js";

const ROOT = "/workspace/acme__parse__1.0";
const FILE = `${ROOT}/src/parse.py`;
const PYTEST = "cd /workspace/acme__parse__1.0 && python -m pytest tests/test_parse.py";
const TRAILER = `\n[The command completed with exit code %d.]\n[Current working directory: ${ROOT}]\n[Python interpreter: /usr/bin/python]`;
const shellResult = (output: string, code: number) => output + TRAILER.replace("%d", String(code));

let n = 0;
const turn = (text: string, name: string, args: Record<string, unknown>, result: string) => {
  const id = `toolu_${String(++n).padStart(2, "0")}`;
  return [
    { role: "assistant", content: text, tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }] },
    { role: "tool", tool_call_id: id, name, content: result },
  ];
};

const FAIL = "FAILED tests/test_parse.py::test_negative - AssertionError: assert '-1:00:00' == '-01:00:00'";
const EDIT_ERROR = `ERROR:\nNo replacement was performed, old_str \`x = 3\` did not appear verbatim in ${FILE}.`;
// The last request of a run, as OpenHands logs it: the whole history in chat shape, and the answer.
const SYSTEM = "You are OpenHands agent, a helpful AI assistant.";
const TOOLS = "\nYou have access to the following functions:\n\n---- BEGIN FUNCTION #1: execute_bash ----";
const LOG = {
  // What the model was sent: the same history as text, the tools described after the system prompt.
  messages: [
    { role: "system", content: SYSTEM + TOOLS },
    { role: "user", content: "Here's a running example of how to perform a task with the provided tools. ..." },
  ],
  fncall_messages: [
    { role: "system", content: SYSTEM },
    { role: "user", content: [{ type: "text", text: "<issue_description>\nparse fails\n</issue_description>", cache_control: {} }] },
    ...turn(
      "Run the tests.",
      "execute_bash",
      { command: PYTEST },
      shellResult(`collected 3 items\n\n${FAIL}\n1 failed, 2 passed in 0.1s`, 1),
    ),
    ...turn(
      "",
      "str_replace_editor",
      { command: "view", path: FILE },
      `Here's the result of running \`cat -n\` on ${FILE}:\n     1\tx = 1`,
    ),
    ...turn("Fix it.", "str_replace_editor", { command: "str_replace", path: FILE, old_str: "x = 3", new_str: "x = 2" }, EDIT_ERROR),
    ...turn(
      "Again.",
      "str_replace_editor",
      { command: "str_replace", path: FILE, old_str: "x = 1", new_str: "x = 2" },
      `The file ${FILE} has been edited.`,
    ),
    ...turn("Note.", "think", { thought: "The regex is fixed." }, "Your thought has been logged."),
    ...turn("Rerun.", "execute_bash", { command: PYTEST }, shellResult("collected 3 items\n\n3 passed in 0.1s", 0)),
  ],
  fncall_response: {
    choices: [
      {
        message: { role: "assistant", content: "Fixed.", tool_calls: [{ id: "toolu_99", function: { name: "finish", arguments: "{}" } }] },
      },
    ],
  },
};

function answers(messages: ChatMessage[], turnIndex: number, kind: QuestionKind): string[] {
  const q = generateQuestions(messages, undefined)[turnIndex];
  expect(messages[q?.before ?? -1]?.role).toBe("assistant");
  return (q?.answers ?? []).filter((a) => a.kind === kind).map((a) => a.text);
}

describe("OpenHands trajectories", () => {
  const run = convertTrajectory(LOG);

  it("converts the logged history: the calls renamed in order, arguments and results byte for byte, the last answer a plain message", () => {
    expect(detectFormat(LOG)).toBe("openhands");
    expect(run.format).toBe("openhands");
    expect(run.toolCalls).toBe(6);
    expect(run.messages.map((m) => m.role)).toEqual(["system", "user", ...Array(6).fill(["assistant", "tool"]).flat(), "assistant"]);
    // The system prompt as sent, with the tools described; the task as OpenHands holds it.
    expect(run.messages[0]).toEqual({ role: "system", content: SYSTEM + TOOLS });
    expect(run.messages[1]).toEqual({ role: "user", content: "<issue_description>\nparse fails\n</issue_description>" });
    expect(run.messages[2]).toEqual({
      role: "assistant",
      content: "Run the tests.",
      tool_calls: [{ id: "call_0", type: "function", function: { name: "execute_bash", arguments: JSON.stringify({ command: PYTEST }) } }],
    });
    // No text: null content, as the other formats; the tool message keeps no `name`.
    expect(run.messages[4]).toMatchObject({ role: "assistant", content: null });
    expect(run.messages[5]).toEqual({ role: "tool", tool_call_id: "call_1", content: LOG.fncall_messages[5]?.content });
    expect(run.messages.at(-1)).toEqual({ role: "assistant", content: "Fixed." });
  });

  it("keeps the function-calling system prompt when the text one is not it extended", () => {
    const other = { ...LOG, messages: [{ role: "system", content: "another prompt" }] };
    expect(convertTrajectory(other).messages[0]).toEqual({ role: "system", content: SYSTEM });
  });

  it("leaves out a call never answered, and refuses a result for no call", () => {
    const cut = { ...LOG, fncall_messages: LOG.fncall_messages.slice(0, 3) };
    expect(convertTrajectory(cut).messages[2]).toEqual({ role: "assistant", content: "Run the tests." });
    expect(convertTrajectory(cut).toolCalls).toBe(0);
    const orphan = { ...LOG, fncall_messages: [...LOG.fncall_messages.slice(0, 2), LOG.fncall_messages[3]] };
    expect(() => convertTrajectory(orphan)).toThrow(/a tool result for no call/);
  });

  it("reads the shell's exit code and working directory from OpenHands' trailer, not as output", () => {
    const outcome = readOutcome(shellResult("collected 3 items\n\n3 passed in 0.1s", 0));
    expect(outcome).toMatchObject({ exitCode: 0, testsFailed: false, errorLine: undefined });
    expect(readOutcome(shellResult("ls: cannot access 'x'", 2))).toMatchObject({ exitCode: 2, errorLine: "ls: cannot access 'x'" });
    expect(readOutcome(EDIT_ERROR)).toMatchObject({ otherErrors: true, errorLine: EDIT_ERROR.split("\n")[1] });
  });

  it("reads editor calls: view only reads, str_replace edits its path; think runs nothing", () => {
    const records = callRecords(run.messages);
    expect(records.map((r) => r.command)).toEqual([PYTEST, `view ${FILE}`, `str_replace ${FILE}`, `str_replace ${FILE}`, PYTEST]);
    expect(records.map((r) => [r.readOnly, r.test, r.failed])).toEqual([
      [false, true, true],
      [true, false, false],
      [false, false, true],
      [false, false, false],
      [false, true, false],
    ]);
    expect(records[3]?.editorWrite).toBe(FILE);
    // What the request shows of an editor call: its name, command and path.
    expect(requestText(run.messages)).toContain(`str_replace_editor view ${FILE}`);
  });

  it("asks of each request the open error, the files edited (as the repository names them), the last command and test", () => {
    expect(answers(run.messages, 1, "open-error")).toEqual([FAIL]);
    expect(answers(run.messages, 1, "failing-test")).toEqual(["tests/test_parse.py::test_negative"]);
    expect(answers(run.messages, 2, "last-command")).toEqual([`view ${FILE}`]);
    expect(answers(run.messages, 2, "last-test")).toEqual([PYTEST]);
    // The refused edit is the newest open failure, until the same edit succeeds.
    expect(answers(run.messages, 3, "open-error")).toEqual([EDIT_ERROR.split("\n")[1]]);
    expect(answers(run.messages, 3, "file")).toEqual([]);
    expect(answers(run.messages, 4, "open-error")).toEqual([FAIL]);
    expect(answers(run.messages, 4, "file")).toEqual(["src/parse.py"]);
    // think is not a command: the last command stays the edit.
    expect(answers(run.messages, 5, "last-command")).toEqual([`str_replace ${FILE}`]);
    expect(answers(run.messages, 6, "open-error")).toEqual([]);
    expect(answers(run.messages, 6, "failing-test")).toEqual([]);
  });
});
