// The questions asked of every request, generated from the trajectory alone before any replay:
// from the messages the agent had before an assistant turn, what an agent needs to go on.
//   open-error   the error line of the newest failing command not yet followed by a passing run
//                of the same command (heredoc bodies aside; a passing `a && b` ran a and b)
//                (failing: a non-zero exit, failing tests, a traceback or stack trace as the
//                outcome, compiler or shell errors, a rejected edit; a command that only reads
//                never fails in this sense)
//   file         each file edited so far (edit tools: SWE-agent's, OpenHands' str_replace_editor; sed -i, redirections, tee, Python writes,
//                git apply / patch / apply_patch, cp, mv, rm, touch), as the repository names it
//   last-command the newest command
//   last-test    the newest command that runs tests
//   failing-test the tests failing in the newest open test failures (at most 10)
// Each answer is a string that a request holds verbatim when it keeps what the agent needs.
import type { ChatMessage } from "./convert.js";
import { readOutcome, type Outcome } from "./outcome.js";
import { editedFiles, heredocWrites, isReadOnly, isTestCommand, normalizePath, repositoryPath, splitHeredocs } from "./shell.js";

export type QuestionKind = "open-error" | "file" | "last-command" | "last-test" | "failing-test";
export const QUESTION_KINDS: readonly QuestionKind[] = ["open-error", "file", "last-command", "last-test", "failing-test"];

export interface Answer {
  kind: QuestionKind;
  text: string;
}

/** A tool call and its result, as the question generator reads them. */
export interface CallRecord {
  id: string;
  name: string;
  command: string;
  result: string;
  outcome: Outcome;
  readOnly: boolean;
  test: boolean;
  failed: boolean;
  /** The file an edit tool's call changed (OpenHands' editor), if any. */
  editorWrite?: string;
}

export interface RequestQuestions {
  /** The index of the assistant message the request comes before. */
  before: number;
  answers: Answer[];
}

export const MAX_FAILING_TESTS = 10;

/**
 * The command a call carries: its `command` argument (followed by its `path` argument when it
 * has one: an editor's `view /x.py`), else the arguments as written.
 */
export function commandOf(args: string): string {
  return parseCall(args).command ?? args;
}

/** A call's `command` and `path` arguments (undefined when absent or when the arguments are not JSON). */
function parseCall(args: string): { command: string | undefined; editorCommand: string | undefined; path: string | undefined } {
  try {
    const parsed = JSON.parse(args) as { command?: unknown; path?: unknown };
    if (typeof parsed.command === "string") {
      const path = typeof parsed.path === "string" ? parsed.path : undefined;
      return { command: path === undefined ? parsed.command : `${parsed.command} ${path}`, editorCommand: parsed.command, path };
    }
    return { command: undefined, editorCommand: undefined, path: undefined };
  } catch {
    // Not JSON: the arguments are the command.
    return { command: args, editorCommand: undefined, path: undefined };
  }
}

/** OpenHands' file editor: `view` reads; `create`, `str_replace`, `insert`, `undo_edit` change `path`. */
export const EDITOR_TOOL = "str_replace_editor";
const EDITOR_WRITES = new Set(["create", "str_replace", "insert", "undo_edit"]);

/** Whether a call failed: see the header. */
export function failedCall(outcome: Outcome, readOnly: boolean): boolean {
  if (readOnly) return false;
  if (outcome.testsFailed || outcome.tracebackOutcome || outcome.timedOut) return true;
  if (outcome.exitCode !== undefined) return outcome.exitCode !== 0;
  return outcome.otherErrors;
}

/** The tool calls of `messages` with their results, in order. */
export function callRecords(messages: readonly ChatMessage[]): CallRecord[] {
  const results = new Map<string, string>();
  for (const m of messages) if (m.role === "tool") results.set(m.tool_call_id, m.content);
  const records: CallRecord[] = [];
  for (const m of messages) {
    if (m.role !== "assistant" || m.tool_calls === undefined) continue;
    for (const call of m.tool_calls) {
      const result = results.get(call.id);
      if (result === undefined) continue;
      const { command, editorCommand, path } = parseCall(call.function.arguments);
      // A call with no command runs nothing (OpenHands' think and finish): not a command here.
      if (command === undefined) continue;
      const editor = call.function.name === EDITOR_TOOL;
      const readOnly = editor ? editorCommand === "view" : isReadOnly(command);
      const outcome = readOutcome(result);
      records.push({
        id: call.id,
        name: call.function.name,
        command,
        result,
        outcome,
        readOnly,
        test: !editor && isTestCommand(command),
        failed: failedCall(outcome, readOnly),
        // An edit the editor refused (`ERROR: ...`) changed nothing.
        ...(editor && path !== undefined && EDITOR_WRITES.has(editorCommand ?? "") && !outcome.otherErrors ? { editorWrite: path } : {}),
      });
    }
  }
  return records;
}

/**
 * A command's identity across runs: its text without its heredoc bodies, whitespace runs
 * collapsed. A heredoc's body is what the command writes, as an editor call's text is: a script
 * rewritten and run again is the same check run again, as an edit then a rerun is.
 */
function commandKey(command: string): string {
  return splitHeredocs(command).text.trim().replace(/\s+/g, " ");
}

/**
 * The keys a passing command ran: its own, and each part of an `a && b` chain (a chain passes only
 * when every part did), so that `python repro.py && pytest t.py` passing closes `pytest t.py`.
 */
function passedKeys(command: string): string[] {
  const key = commandKey(command);
  return [
    key,
    ...key
      .split("&&")
      .map((part) => part.trim())
      .filter((part) => part !== ""),
  ];
}

/** The working directory an output reports (SWE-agent's `(Current directory: /x)`, OpenHands' `[Current working directory: /x]`), if any. */
function reportedDirectory(result: string): string | undefined {
  return /^\(Current directory: (\/[^)]*)\)$/m.exec(result)?.[1] ?? /^\[Current working directory: (\/[^\]]*)\]$/m.exec(result)?.[1];
}

/** The file SWE-agent's editor has open after a result (`[File: /x (N lines total)]`, `(Open file: /x)`). */
function reportedOpenFile(result: string): string | undefined {
  const open = /^\(Open file: (\/[^)]+)\)$/m.exec(result)?.[1];
  return open ?? /^\[File: (\/\S+) \(\d+ lines total\)\]$/m.exec(result)?.[1];
}

/**
 * The questions of every request of `messages`: one per assistant message, from the messages
 * before it. `startDir` is the directory each command starts in when the agent does not report
 * one (mini-swe-agent runs every command in a new shell at /testbed).
 */
export function generateQuestions(messages: readonly ChatMessage[], startDir: string | undefined): RequestQuestions[] {
  const records = new Map(callRecords(messages).map((r) => [r.id, r]));
  const out: RequestQuestions[] = [];
  const files: string[] = [];
  const written = new Map<string, string>();
  const openFailures = new Map<string, { at: number; line: string | undefined; tests: string[] }>();
  let lastCommand: string | undefined;
  let lastTest: string | undefined;
  let cwd: string | undefined = startDir;
  let openFile: string | undefined;
  let order = 0;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as ChatMessage;
    if (m.role === "assistant") {
      out.push({ before: i, answers: snapshot() });
      continue;
    }
    if (m.role !== "tool") continue;
    const record = records.get(m.tool_call_id);
    if (record === undefined) continue;
    const { command } = record;
    lastCommand = command;
    if (record.test) lastTest = command;
    // Files: the edit tools' (SWE-agent's `edit` changes the open file; `create` opens what it
    // made, where the editor says) and the shell's; a patch written by a heredoc is read by a
    // `git apply` of it, in the same command or a later one.
    for (const [path, body] of heredocWrites(command, cwd)) written.set(path, body);
    const reported = reportedOpenFile(record.result);
    const edited =
      record.editorWrite !== undefined
        ? [record.editorWrite]
        : record.name === "edit"
          ? openFile === undefined
            ? []
            : [openFile]
          : record.name === "create" && reported !== undefined
            ? [reported]
            : editedFiles(command, cwd, written);
    for (const f of edited) {
      const path = repositoryPath(f);
      if (!files.includes(path)) files.push(path);
    }
    if (record.name === "open" || record.name === "create") {
      const target = command.split(/\s+/)[1];
      if (target !== undefined) openFile = normalizePath(target, cwd);
    }
    openFile = reported ?? openFile;
    cwd = reportedDirectory(record.result) ?? cwd;
    // Failures open, and close when the same command passes (or a chain of commands that includes it).
    const key = commandKey(command);
    if (record.failed) openFailures.set(key, { at: order++, line: record.outcome.errorLine, tests: record.outcome.failingTests });
    else if (!record.readOnly) for (const passed of passedKeys(command)) openFailures.delete(passed);
    if (record.outcome.passingTests.length > 0) {
      for (const failure of openFailures.values()) failure.tests = failure.tests.filter((t) => !record.outcome.passingTests.includes(t));
    }
  }
  return out;

  function snapshot(): Answer[] {
    const answers: Answer[] = [];
    const open = [...openFailures.values()].sort((a, b) => b.at - a.at);
    const newest = open[0];
    if (newest?.line !== undefined) answers.push({ kind: "open-error", text: newest.line });
    for (const f of files) answers.push({ kind: "file", text: f });
    if (lastCommand !== undefined && lastCommand.trim() !== "") answers.push({ kind: "last-command", text: lastCommand.trim() });
    if (lastTest !== undefined) answers.push({ kind: "last-test", text: lastTest.trim() });
    const failing = open.find((f) => f.tests.length > 0)?.tests ?? [];
    for (const t of failing.slice(0, MAX_FAILING_TESTS)) answers.push({ kind: "failing-test", text: t });
    return answers;
  }
}
