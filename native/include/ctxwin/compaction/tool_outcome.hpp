// What a tool's output says about how its run went: the lines that report a failure (errors, the
// first frames of their stack traces, failing assertions, a non-zero exit code), the tests it
// reports failing and passing, its exit code and the line that tallies it. The one reading of tool
// output in the core: the tool-result compactor keeps these lines when it cuts a result, a cleared
// result keeps them in its placeholder, and the problem ledger and the task digest decide from them
// what is still failing.
//
//   ToolOutcome o = read_tool_outcome(test_log);
//   o.failed();          // an error line, a failing test, a failing tally or a non-zero exit code
//   o.error_lines;       // {"Error: duplicate charge detected for ch_17_5", "    at Ledger.charge (...)", "exit code 1"}
//   o.failed_tests;      // {{"rejects a duplicate charge", {"Error: duplicate charge ...", ...}}}
//   o.passed_tests;      // {"creates a charge", ...}
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ctxwin {

// True when a line reports a failure: it opens with a failure word (error, fatal, panic,
// traceback, failed, fail, failure, exception, denied, segmentation fault) not followed by code
// (`error = None`), or a failing test's mark (x, a cross, "not ok", pytest's "E   "), says
// "...Error: message" / "...Exception: message" (a colon before any parenthesis or quote and text
// after it, outside a string literal, so `throw new Error("x")`, `except KeyError:` and
// `msg = "Error: x"` are not one), ends with a runner's FAILED / FAIL / ERROR, reports a thread
// that panicked, holds a system error code (ENOENT, ENOSPC, ...), or reports a non-zero exit code.
// A line of program text (its first word `except`, `raise`, `if`, `def`, ... after a line-number
// gutter such as `890:` or `path.py:890:`) is never one.
bool reports_error(std::string_view line);

// The exit status a line reports ("exit code 1", "<returncode>0</returncode>", "Exit code: 2",
// "[Command finished with exit code 1]", "Process exited with code 137"), if any.
std::optional<long> exit_status_in(std::string_view line);

// An indented frame of a stack trace: "    at f (file.ts:1:2)", "  File \"x.py\", line 3", "#0 ...".
bool is_stack_frame(std::string_view line);

// "Tests 3 failed | 209 passed (212)", "0 problems", "48 passed", "Ran 12 tests in 0.3s",
// "5 examples, 1 failure": a line that tallies a run.
bool is_tally(std::string_view line);

struct ErrorLineLimits {
  // The most lines kept of one output, and of one failing test.
  std::size_t max_lines = 8;
  // A longer line is cut at a character boundary.
  std::size_t max_line_bytes = 200;
  // Stack frames (or assertion details) kept after each error line.
  std::size_t frames_per_error = 2;
};

struct FailedTest {
  // The test's own name: the last part of "file > suite > name", without timings or reasons.
  std::string name;
  // What the output says about it: the lines of its failure block, else its mark line.
  std::vector<std::string> lines;
};

// What a run reports. Exit statuses are read in the forms agents' tools print them ("exit code 1",
// "Process exited with code 137", "[Command finished with exit code 1]", "Exit code: 1",
// mini-swe-agent's "<returncode>1</returncode>", which no later line overrides); lines that only
// wrap the output in tags (`<output>`, `</output_tail>`) are skipped.
struct ToolOutcome {
  // The failure lines, in order, bounded by ErrorLineLimits (a <returncode> tag as "exit code N").
  std::vector<std::string> error_lines;
  // Where each of them is in the text: its line number, from 0.
  std::vector<std::size_t> error_line_numbers;
  std::vector<FailedTest> failed_tests;
  std::vector<std::string> passed_tests;
  std::optional<long> exit_code;
  // The last line that tallies the run, if any, as printed ("==== 2 failed, 10 passed in 1.2s ====");
  // unittest's "Ran 12 tests in 0.3s; OK" joins its verdict.
  std::string tally;
  // The tally counts failures ("3 failed", "2 errors", "1 problem").
  bool tally_failed = false;
  // The last line that is neither empty nor an exit code (what a successful command ended with).
  std::string last_line;
  // The output ends in a Python traceback: its exception line is among the last few lines, so it
  // is what the command itself ended with, whatever its exit status (a script that prints the
  // exception it caught, a command piped into `tail`).
  bool ends_in_traceback = false;
  // The agent's tool killed the command for taking too long (mini-swe-agent's "The last command
  // <command>...</command> timed out and has been killed."): a failure whatever its output says.
  bool timed_out = false;

  bool failed() const noexcept {
    return !error_lines.empty() || !failed_tests.empty() || tally_failed || timed_out || (exit_code.has_value() && *exit_code != 0);
  }
};

ToolOutcome read_tool_outcome(std::string_view text, const ErrorLineLimits& limits = {});

// The failure lines of `text` alone (read_tool_outcome(text).error_lines).
std::vector<std::string> error_lines(std::string_view text, const ErrorLineLimits& limits = {});

// The test name a line reports and whether it passed, for the usual runners' formats: vitest and
// jest ("✓ name (3 ms)", "× name", "FAIL a.test.ts > suite > name", "PASS file"), pytest
// ("FAILED tests/x.py::test_a - reason", "ERROR tests/x.py::test_b", "tests/x.py::test_a PASSED [ 50%]";
// read_tool_outcome also reads its "____ test_a ____" failure headers), unittest and Django's runner
// ("test_a (pkg.Case) ... ok", "FAIL: test_a (pkg.Case)", never its verdict "FAILED (errors=1)"),
// go ("--- FAIL: TestA (0.01s)"), cargo ("test a::b ... ok"), TAP ("not ok 3 - name"), rspec
// ("rspec ./spec/a_spec.rb:12 # User validates"; read_tool_outcome also reads mocha's and rspec's
// numbered failures, "1) does the thing"). Empty name: the line reports no test.
struct TestMark {
  std::string name;
  bool passed = false;
};
TestMark test_mark(std::string_view line);

// What makes two spellings of a test the same test: "tests/a.py::Case::test_x", pytest's header
// "Case.test_x" and unittest's "test_x (pkg.a.Case)" are all "Case::test_x"; "tests/a.py::test_x"
// is "test_x"; other names are themselves.
std::string test_key(std::string_view name);

}  // namespace ctxwin
