// How a recorded command ended, read from its output alone: its exit code when the agent reports
// one (mini-swe-agent's `<returncode>`, OpenHands' `[The command completed with exit code N.]`), a traceback or stack trace as its outcome, failing tests
// (pytest, unittest and Django, sympy's bin/test, Maven Surefire), compiler errors, the shell's own
// errors, SWE-agent's rejected edits; and the line that says what failed. Independent of ctxwin's
// readers, like the rest of the trajectory benchmark.

export interface Outcome {
  /** The exit code the agent was told, when it was told one. */
  exitCode: number | undefined;
  timedOut: boolean;
  /** Failing tests this output names (at most a few dozen), as printed. */
  failingTests: string[];
  /** Tests this output names as passing. */
  passingTests: string[];
  /** Whether the output reports failing tests (names or a tally). */
  testsFailed: boolean;
  /** Whether the output ends in a traceback or stack trace. */
  tracebackOutcome: boolean;
  /** Compiler errors, the shell's errors, a rejected edit. */
  otherErrors: boolean;
  /** The line that says what failed, if any (trimmed). */
  errorLine: string | undefined;
}

// Lines of the agents' own wrapping, not of the command's output.
// OpenHands ends a shell output with `[The command completed with exit code N.]` (and, in older
// versions, `[Command finished with exit code N]`), the working directory and the interpreter.
const WRAPPER =
  /^(<\/?(returncode|output|output_head|output_tail|elided_chars|warning)>.*|\d+ characters elided|\(Open file: .*\)|\(Current directory: .*\)|bash-\$|\[File: .*\]|\[The command completed with exit code -?\d+\.\]|\[Command finished with exit code -?\d+\]|\[Current working directory: .*\]|\[Python interpreter: .*\])$/;
const OPENHANDS_EXIT = /^\[(?:The command completed|Command finished) with exit code (-?\d+)\.?\]$/m;

const EXCEPTION_LINE = /^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt|Failure|Warning)(: .*)?$/;
const JAVA_EXCEPTION = /^(Exception in thread ".*" )?[a-z][\w$]*(\.[\w$]+)+(Exception|Error)(: .*)?$/;
const FRAME = /^(\s+at |\s+File "|\s+\.\.\. \d+ more|Caused by: )/;

function outputLines(content: string): string[] {
  return content
    .split("\n")
    .map((l) => l.replace(/\r$/, ""))
    .filter((l) => !WRAPPER.test(l.trim()));
}

function lastNonEmpty(lines: readonly string[]): string | undefined {
  for (let i = lines.length - 1; i >= 0; i--) if ((lines[i] as string).trim() !== "") return (lines[i] as string).trim();
  return undefined;
}

function lastErrorLike(lines: readonly string[]): string | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = (lines[i] as string).trim();
    if (/\b(error|Error|ERROR|exception|Exception|failed|Failed|FAILED|fatal)\b/.test(line)) return line;
  }
  return undefined;
}

/** The failing and passing tests an output names. */
function tests(lines: readonly string[]): {
  failing: string[];
  passing: string[];
  failLines: string[];
  tallyLines: string[];
  tallyFailed: boolean;
} {
  const failing: string[] = [];
  const passing: string[] = [];
  const failLines: string[] = [];
  const tallyLines: string[] = [];
  let tallyFailed = false;
  for (const raw of lines) {
    const line = raw.trim();
    let m: RegExpExecArray | null;
    if ((m = /^(FAILED|ERROR) (\S+::\S+?)(?: - .*)?$/.exec(line))) {
      failing.push(m[2] as string);
      failLines.push(line);
    } else if ((m = /^(\S+::\S+) (FAILED|ERROR)\b/.exec(line))) {
      failing.push(m[1] as string);
      failLines.push(line);
    } else if ((m = /^(\S+::\S+) PASSED\b/.exec(line))) {
      passing.push(m[1] as string);
    } else if ((m = /^(FAIL|ERROR): (test\w* \([\w.]+\))/.exec(line))) {
      failing.push(m[2] as string);
      failLines.push(line);
    } else if ((m = /^(test\w* \([\w.]+\)) \.\.\. ok$/.exec(line))) {
      passing.push(m[1] as string);
    } else if ((m = /^(test\w* \([\w.]+\)) \.\.\. (FAIL|ERROR)$/.exec(line))) {
      failing.push(m[1] as string);
      failLines.push(line);
    } else if ((m = /^_{3,} (\S+\.py:test\w*) _{3,}$/.exec(line))) {
      failing.push(m[1] as string);
      failLines.push(line);
    } else if (
      (m = /^(\w+)\(([\w.$]+)\)\s+Time elapsed: .*<<< (FAILURE|ERROR)!$/.exec(line)) ||
      (m = /^\[ERROR\] ([\w.$]+\.\w+)\s+Time elapsed: .*<<< (FAILURE|ERROR)!$/.exec(line))
    ) {
      failing.push(m[2] !== undefined && m[3] !== undefined ? `${m[1]}(${m[2]})` : (m[1] as string));
      failLines.push(line);
    } else if ((m = /^\[ERROR\]\s+(\w+\.\w+):\d+/.exec(line)) || (m = /^\[ERROR\]\s+(\w+\.\w+)(?:\[.*\])?\s+»/.exec(line))) {
      failing.push(m[1] as string);
      failLines.push(line);
    }
    if (
      /^=+ .*\b\d+ (failed|errors?)\b.* =+$/.test(line) ||
      /^FAILED \((failures|errors)=\d+/.test(line) ||
      /tests finished: .*\b\d+ (failed|exceptions?)/.test(line) ||
      (/^(\[ERROR\] )?Tests run: \d+, Failures: \d+, Errors: \d+/.test(line) && !/Failures: 0, Errors: 0/.test(line)) ||
      /^\[(ERROR|INFO)\] BUILD FAILURE$/.test(line)
    ) {
      tallyFailed = true;
      tallyLines.push(line);
    }
  }
  return { failing: [...new Set(failing)].slice(0, 40), passing: [...new Set(passing)], failLines, tallyLines, tallyFailed };
}

/** Whether the output ends in a traceback (the command's own outcome, not one it printed midway). */
function endsInTraceback(lines: readonly string[]): { yes: boolean; line: string | undefined } {
  const trimmed = lines.map((l) => l.trimEnd()).filter((l) => l.trim() !== "");
  const tracebackAt = trimmed.findLastIndex((l) => l.trim() === "Traceback (most recent call last):");
  if (tracebackAt >= 0) {
    const after = trimmed.slice(tracebackAt + 1);
    const exception = after.findIndex((l) => !/^\s/.test(l) && EXCEPTION_LINE.test(l.trim()));
    // The exception line is among the last few lines: what follows it is the message's own lines.
    if (exception >= 0 && after.length - exception <= 6) return { yes: true, line: (after[exception] as string).trim() };
  }
  const javaAt = trimmed.findLastIndex((l) => JAVA_EXCEPTION.test(l.trim()) && !/^\s/.test(l));
  if (javaAt >= 0 && trimmed.slice(javaAt + 1).every((l) => FRAME.test(l))) return { yes: true, line: (trimmed[javaAt] as string).trim() };
  return { yes: false, line: undefined };
}

export function readOutcome(content: string): Outcome {
  const exit = /^<returncode>(-?\d+)<\/returncode>/.exec(content) ?? OPENHANDS_EXIT.exec(content);
  const timedOut = /^The last command <command>[\s\S]*?<\/command> timed out and has been killed\./.test(content);
  const lines = outputLines(content);
  const t = tests(lines);
  const tb = endsInTraceback(lines);
  const compiler = lines.find(
    (l) =>
      /^\S+\.(java|c|cc|cpp|h|rs|go|ts|js):\d+(:\d+)?: (error|fatal error): /.test(l.trim()) ||
      /^\[ERROR\] \S+\.java:\[\d+,\d+\] /.test(l.trim()),
  );
  const shell = lines.find((l) =>
    /^(\/bin\/)?(ba)?sh: (line \d+: )?.*(command not found|syntax error.*|unexpected EOF.*|No such file or directory)$/.test(l.trim()),
  );
  // SWE-agent's rejected edit (its first line), OpenHands' editor refusing a call (`ERROR:` then the reason).
  const rejectedEdit = /^Your proposed edit has introduced new syntax error/.test(content)
    ? content.split("\n", 1)[0]
    : /^ERROR:\n/.test(content)
      ? (lastNonEmpty(content.split("\n").slice(1, 2)) ?? "ERROR:")
      : undefined;
  const otherErrors = compiler !== undefined || shell !== undefined || rejectedEdit !== undefined;
  let errorLine = tb.line ?? t.failLines[0] ?? t.tallyLines.at(-1) ?? compiler?.trim() ?? rejectedEdit ?? shell?.trim();
  if (timedOut) errorLine ??= content.split("\n", 1)[0];
  const exitCode = exit ? Number(exit[1]) : undefined;
  // A failing exit with none of the above: the last line that says error or failure, else the last line.
  if (errorLine === undefined && exitCode !== undefined && exitCode !== 0) errorLine = lastErrorLike(lines) ?? lastNonEmpty(lines);
  return {
    exitCode,
    timedOut,
    failingTests: t.failing,
    passingTests: t.passing,
    testsFailed: t.failing.length > 0 || t.tallyFailed,
    tracebackOutcome: tb.yes,
    otherErrors,
    errorLine,
  };
}
