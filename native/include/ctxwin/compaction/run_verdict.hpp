// Whether a tool call failed, judged from the call and its result together: the one judgement the
// problem ledger, the cleared placeholder and the task digest share.
//
// - A call that only reads (a `cat`, `sed -n`, `grep`, `git show` through a shell; a read_file or
//   an editor's `view`) reports content, not an outcome: what it prints never opens a problem (a
//   shell read is neither a failure nor a success); a read tool fails only when its result opens
//   with an error (the tool's own "ENOENT: ..."), or the framework marks it as one.
// - A call whose result shows an exit status that belongs to its work (read_shell_command's
//   status_reliable) failed when that status is not 0 or its output reports failing tests: a
//   script that prints "Error: ..." and exits 0 did not fail.
// - Otherwise (no status, or the status of a `| tail` after the work): it failed when its output
//   reports failing tests, a failing tally, or an error line (a traceback's exception, a compiler's
//   error, a non-zero exit code).
//
//   RunVerdict v = judge_run(read_tool_call("bash", R"({"command":"sed -n '890,910p' schema.py"})"), read_tool_outcome(out), out);
//   v.failed;  // false, whatever `out` prints
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ctxwin/compaction/tool_call.hpp"
#include "ctxwin/compaction/tool_outcome.hpp"

namespace ctxwin {

struct RunVerdict {
  bool failed = false;
  // It did its work and the work passed: a later success of the same check resolves its problem.
  bool succeeded = false;
  // A test run that passed as a whole (a passing tally or passing tests, none failing).
  bool tests_passed = false;
  // Why it failed: its error lines; else its failing tally; else the line it ended with and its
  // exit code.
  std::vector<std::string> lines;
};

// `reported_error`: the tool or the framework marked the result as an error.
RunVerdict judge_run(const ToolCallReading& call, const ToolOutcome& outcome, std::string_view result, bool reported_error = false,
                     std::size_t max_line_bytes = 200);

}  // namespace ctxwin
