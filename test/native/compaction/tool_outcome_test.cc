#include "ctxwin/compaction/tool_outcome.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ctxwin {
namespace {

using Lines = std::vector<std::string>;

TEST(ReportsError, FailureLinesButNotCode) {
  for (const char* line : {"Error: cannot find module './dates'", "  FAILED test/dates.test.ts > keeps the day",
                           "Traceback (most recent call last):", "AssertionError: expected 1 to be 2",
                           "TypeScript error TS2304: Cannot find name 'x'", "ENOENT: no such file or directory",
                           "java.lang.IllegalStateException: bad state", "fatal: not a git repository",
                           "error[E0308]: mismatched types", "src/a.ts(19,63): error TS2339: Property 'title' does not exist",
                           "Error: ENOSPC: no space left on device, write '/tmp/x'", "write failed: ENOSPC",
                           "exit code 2", "Process exited with code 137", " × test/a.test.ts > adds (3 ms)",
                           "--- FAIL: TestAdd (0.00s)", "test parser::tests::empty ... FAILED", "not ok 3 - adds",
                           "panic: runtime error: index out of range", "Segmentation fault (core dumped)"}) {
    EXPECT_TRUE(reports_error(line)) << line;
  }
  for (const char* line : {"  if (!x) throw new Error(\"invoice has no date\");", "const errors = [];",
                           "ok 12 test/case_12.test.ts (3ms)", "// handle the error case", "errorCount: 0", "exit code 0",
                           " ✓ test/a.test.ts > adds (3 ms)", "ENOSPCX is not a code", "Tests 48 passed (48)"}) {
    EXPECT_FALSE(reports_error(line)) << line;
  }
}

TEST(TestMark, TheUsualRunnersFormats) {
  const std::vector<std::tuple<std::string, std::string, bool>> cases = {
      {" ✓ test/search.test.ts > search > finds by name (4 ms)", "finds by name", true},
      {" × test/search.test.ts > search > handles emoji queries (3 ms)", "handles emoji queries", false},
      {"FAIL test/search.test.ts > search > handles emoji queries", "handles emoji queries", false},
      {"  ● search › handles emoji queries", "handles emoji queries", false},
      {"PASS test/search.test.js", "test/search.test.js", true},
      {"FAILED tests/test_dates.py::test_west_of_utc - AssertionError: assert 1 == 2", "tests/test_dates.py::test_west_of_utc", false},
      {"tests/test_dates.py::test_west_of_utc PASSED", "tests/test_dates.py::test_west_of_utc", true},
      {"--- FAIL: TestParse (0.01s)", "TestParse", false},
      {"--- PASS: TestParse (0.00s)", "TestParse", true},
      {"test parser::tests::empty ... ok", "parser::tests::empty", true},
      {"not ok 3 - parses dates", "parses dates", false},
      {"ok 3 - parses dates", "parses dates", true},
  };
  for (const auto& [line, name, passed] : cases) {
    const TestMark mark = test_mark(line);
    EXPECT_EQ(mark.name, name) << line;
    EXPECT_EQ(mark.passed, passed) << line;
  }
  EXPECT_TRUE(test_mark("✖ 3 problems (3 errors, 0 warnings)").name.empty());
  EXPECT_TRUE(test_mark("reading src/a.ts").name.empty());
}

const char* kVitest =
    " RUN  v1.6.0 /srv/payments\n"
    "\n"
    " ✓ test/billing.test.ts > ledger > creates a charge (2 ms)\n"
    " × test/billing.test.ts > ledger > rejects a duplicate charge (7 ms)\n"
    "\n"
    "FAIL test/billing.test.ts > ledger > rejects a duplicate charge\n"
    "Error: duplicate charge detected for ch_17_5\n"
    "    at Ledger.charge (src/billing/ledger.ts:88:11)\n"
    "    at retryCharge (src/billing/retry.ts:41:18)\n"
    "    at test/billing.test.ts:212:5\n"
    "\n"
    " Test Files  1 failed (1)\n"
    "      Tests  1 failed | 48 passed (49)\n"
    "   Duration  3.42s\n"
    "exit code 1";

TEST(ReadToolOutcome, AFailingTestRunItsTestsReasonsAndTally) {
  const ToolOutcome o = read_tool_outcome(kVitest);
  EXPECT_TRUE(o.failed());
  ASSERT_EQ(o.failed_tests.size(), 1u);
  EXPECT_EQ(o.failed_tests[0].name, "rejects a duplicate charge");
  EXPECT_EQ(o.failed_tests[0].lines, (Lines{"Error: duplicate charge detected for ch_17_5", "    at Ledger.charge (src/billing/ledger.ts:88:11)",
                                            "    at retryCharge (src/billing/retry.ts:41:18)", "    at test/billing.test.ts:212:5"}));
  EXPECT_EQ(o.passed_tests, (Lines{"creates a charge"}));
  EXPECT_EQ(o.tally, "Tests  1 failed | 48 passed (49)");
  EXPECT_TRUE(o.tally_failed);
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_EQ(o.error_lines.front(), "× test/billing.test.ts > ledger > rejects a duplicate charge (7 ms)");
  EXPECT_EQ(o.error_lines.back(), "exit code 1");
  ASSERT_EQ(o.error_lines.size(), o.error_line_numbers.size());
  EXPECT_EQ(o.error_line_numbers[1], 6u);  // the Error: line
}

TEST(ReadToolOutcome, APythonTracebackKeepsItsLastFramesAndTheException) {
  const ToolOutcome o = read_tool_outcome(
      "(18234, 7)\nTraceback (most recent call last):\n  File \"<stdin>\", line 2, in <module>\n  File \"frame.py\", line 8869, in groupby\n"
      "    return DataFrameGroupBy(\n  File \"grouper.py\", line 985, in get_grouper\n    raise KeyError(gpr)\nKeyError: 'plan_tier'");
  EXPECT_EQ(o.error_lines, (Lines{"File \"frame.py\", line 8869, in groupby", "File \"grouper.py\", line 985, in get_grouper", "KeyError: 'plan_tier'"}));
  EXPECT_TRUE(o.failed());
}

TEST(ReadToolOutcome, ASuccessfulCommandAndItsLastLine) {
  const ToolOutcome o = read_tool_outcome("> payments@3.2.0 build\n> tsc -p tsconfig.build.json\n\nbuild ok in 4.4s\nexit code 0");
  EXPECT_FALSE(o.failed());
  EXPECT_EQ(o.last_line, "build ok in 4.4s");
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_TRUE(read_tool_outcome("0 problems").tally == "0 problems");
  EXPECT_FALSE(read_tool_outcome("0 problems").failed());
  EXPECT_TRUE(read_tool_outcome("Found 2 errors in the same file, starting at: src/search/rank.ts:19").failed());
}

TEST(ReadToolOutcome, BoundsAndHostileInput) {
  std::string log;
  for (int i = 0; i < 100; ++i) log += "Error: failure number " + std::to_string(i) + " " + std::string(400, 'x') + "\n";
  const ToolOutcome o = read_tool_outcome(log, {.max_lines = 5, .max_line_bytes = 50, .frames_per_error = 1});
  ASSERT_EQ(o.error_lines.size(), 5u);
  for (const auto& line : o.error_lines) EXPECT_LE(line.size(), 53u) << line;
  // A cut never splits a code point.
  const ToolOutcome cjk = read_tool_outcome("Error: " + std::string(60, 'a') + "\xE6\x97\xA5\xE6\x9C\xAC", {.max_lines = 2, .max_line_bytes = 68, .frames_per_error = 0});
  EXPECT_EQ(cjk.error_lines.front(), "Error: " + std::string(60, 'a') + "...");
  EXPECT_NO_THROW(read_tool_outcome(std::string("\0\xff\xfe\n exit code 99999999999999\n\xe2\x9c", 30)));
  EXPECT_TRUE(read_tool_outcome("").error_lines.empty());
}

}  // namespace
}  // namespace ctxwin
