// The note that carries a session's open problems into a prompt that no longer shows them.
//
// A prompt brought within its window loses tool results: a trim drops whole turns, a summary may
// leave a problem out. The open-problems record still holds each failure's lines; when a prompt
// shows none of them for a problem (neither the result, nor its cleared placeholder, nor a
// summary quoting it), the problem goes into one note message, so that the model keeps seeing every
// failure until a later result shows it resolved.
import type { InsertedRole } from "../messages/roles.js";
import { describeProblems, type Problem, type ProblemRecord } from "./open-problems.js";

export const PROBLEM_NOTE_HEADING =
  "Problems still open from tool results no longer shown in full (each stays open until a later result shows it resolved):";

/**
 * The line that shows a problem: its last failure line that is not the failing test's own mark, a
 * stack frame or the exit code (a traceback's exception comes after its frames; the line a summary
 * keeps of a problem when it keeps one).
 */
function telltale(problem: Problem): string | undefined {
  const lines = problem.lines.map((l) => l.trim()).filter((l) => l !== "" && !/^exit code\b/i.test(l));
  const reasons = problem.test !== undefined && lines.length > 1 ? lines.filter((l) => !l.includes(problem.test as string)) : lines;
  const errors = reasons.filter((l) => !/^(at |File "|Traceback\b)/.test(l));
  return errors[errors.length - 1] ?? reasons[0] ?? lines[0];
}

/** The open problems of `record` (newest first) whose failure lines `promptText` (the prompt as JSON) does not show. */
export function problemsNotShown(record: ProblemRecord, promptText: string): Problem[] {
  const missing: Problem[] = [];
  for (let i = record.problems.length - 1; i >= 0; i--) {
    const p = record.problems[i] as Problem;
    if (p.resolved !== undefined) continue;
    const line = telltale(p);
    // The prompt is JSON text: the line is looked for as JSON would write it.
    if (line !== undefined && !promptText.includes(JSON.stringify(line).slice(1, -1))) missing.push(p);
  }
  return missing;
}

/** The note listing `problems` (from `record`), or undefined when there are none. */
export function problemNote(
  record: ProblemRecord,
  problems: readonly Problem[],
  role: InsertedRole,
): { role: InsertedRole; content: string } | undefined {
  if (problems.length === 0) return undefined;
  const shown = new Set(problems);
  const text = describeProblems({ ...record, problems: record.problems.filter((p) => shown.has(p)) }, 8, 0);
  return text === "" ? undefined : { role, content: `${PROBLEM_NOTE_HEADING}\n${text}` };
}
