#include "ctxwin/compaction/tool_outcome.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace ctxwin {
namespace {

using Lines = std::vector<std::string>;

TEST(ReportsError, FailureLinesButNotCode) {
  for (const char* line : {"Error: cannot find module './dates'",
                           "  FAILED test/dates.test.ts > keeps the day",
                           "Traceback (most recent call last):",
                           "AssertionError: expected 1 to be 2",
                           "TypeScript error TS2304: Cannot find name 'x'",
                           "ENOENT: no such file or directory",
                           "java.lang.IllegalStateException: bad state",
                           "fatal: not a git repository",
                           "error[E0308]: mismatched types",
                           "src/a.ts(19,63): error TS2339: Property 'title' does not exist",
                           "Error: ENOSPC: no space left on device, write '/tmp/x'",
                           "write failed: ENOSPC",
                           "exit code 2",
                           "Process exited with code 137",
                           " × test/a.test.ts > adds (3 ms)",
                           "--- FAIL: TestAdd (0.00s)",
                           "test parser::tests::empty ... FAILED",
                           "not ok 3 - adds",
                           "panic: runtime error: index out of range",
                           "Segmentation fault (core dumped)"}) {
    EXPECT_TRUE(reports_error(line)) << line;
  }
  for (const char* line : {"  if (!x) throw new Error(\"invoice has no date\");", "const errors = [];", "ok 12 test/case_12.test.ts (3ms)",
                           "// handle the error case", "errorCount: 0", "exit code 0", " ✓ test/a.test.ts > adds (3 ms)",
                           "ENOSPCX is not a code", "Tests 48 passed (48)"}) {
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
  EXPECT_EQ(o.failed_tests[0].lines,
            (Lines{"Error: duplicate charge detected for ch_17_5", "    at Ledger.charge (src/billing/ledger.ts:88:11)",
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
      "(18234, 7)\nTraceback (most recent call last):\n  File \"<stdin>\", line 2, in <module>\n  File \"frame.py\", line 8869, in "
      "groupby\n"
      "    return DataFrameGroupBy(\n  File \"grouper.py\", line 985, in get_grouper\n    raise KeyError(gpr)\nKeyError: 'plan_tier'");
  EXPECT_EQ(o.error_lines,
            (Lines{"File \"frame.py\", line 8869, in groupby", "File \"grouper.py\", line 985, in get_grouper", "KeyError: 'plan_tier'"}));
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
  const ToolOutcome cjk = read_tool_outcome("Error: " + std::string(60, 'a') + "\xE6\x97\xA5\xE6\x9C\xAC",
                                            {.max_lines = 2, .max_line_bytes = 68, .frames_per_error = 0});
  EXPECT_EQ(cjk.error_lines.front(), "Error: " + std::string(60, 'a') + "...");
  EXPECT_NO_THROW(read_tool_outcome(std::string("\0\xff\xfe\n exit code 99999999999999\n\xe2\x9c", 30)));
  EXPECT_TRUE(read_tool_outcome("").error_lines.empty());
}

// Program text printed by a reader (a file's lines, grep -n, nl) is not a failure.
TEST(ReportsError, CodeIsNotAFailure) {
  for (const char* line : {"            except KeyError:", "   890\t        except (KeyError, ValueError):",
                           "django/db/models/query.py:890:        except KeyError:", "412-    raise ValueError('bad value')",
                           "        msg = \"Error: %s\" % detail", "    error = None", "if error.code == 2:", "failure.reason = reason",
                           "class ValidationError(Exception):", "    def error(self, msg):", "  catch (err) {"}) {
    EXPECT_FALSE(reports_error(line)) << line;
  }
  for (const char* line :
       {"KeyError: 'plan_tier'", "E       AssertionError: assert 'a' == 'b'", "E       assert 1 == 2", "FAILED (failures=1, errors=2)",
        "thread 'parser::tests::empty' panicked at src/parser.rs:41:9:", "test_x (pkg.Case) ... ERROR"}) {
    EXPECT_TRUE(reports_error(line)) << line;
  }
}

TEST(TestMark, UnittestPytestAndTheirVerdicts) {
  const std::vector<std::tuple<std::string, std::string, bool>> cases = {
      {"test_unicode_validator (auth_tests.test_validators.UsernameValidatorsTests) ... ok",
       "test_unicode_validator (auth_tests.test_validators.UsernameValidatorsTests)", true},
      {"test_ascii_validator (auth_tests.test_validators.UsernameValidatorsTests) ... FAIL",
       "test_ascii_validator (auth_tests.test_validators.UsernameValidatorsTests)", false},
      {"FAIL: test_ascii_validator (auth_tests.test_validators.UsernameValidatorsTests)",
       "test_ascii_validator (auth_tests.test_validators.UsernameValidatorsTests)", false},
      {"ERROR: test_setup (app.tests.Case.test_setup)", "test_setup (app.tests.Case.test_setup)", false},
      {"tests/test_card.py::test_long_strings PASSED                        [ 50%]", "tests/test_card.py::test_long_strings", true},
      {"tests/test_card.py::TestCard::test_float FAILED                      [100%]", "tests/test_card.py::TestCard::test_float", false},
      {"ERROR tests/test_io.py::test_read - FileNotFoundError: x", "tests/test_io.py::test_read", false},
      {"rspec ./spec/models/user_spec.rb:12 # User validates email", "User validates email", false},
  };
  for (const auto& [line, name, passed] : cases) {
    const TestMark mark = test_mark(line);
    EXPECT_EQ(mark.name, name) << line;
    EXPECT_EQ(mark.passed, passed) << line;
  }
  // Verdicts and other lines that are not a test.
  for (const char* line :
       {"FAILED (errors=1)", "FAILED (failures=2, errors=1)", "OK (skipped=3)",
        "ERROR: Could not find a version that satisfies the requirement foo", "test_x (pkg.Case) ... skipped 'needs network'"}) {
    EXPECT_TRUE(test_mark(line).name.empty()) << line;
  }
}

TEST(TestKey, OneTestWhateverItsSpelling) {
  EXPECT_EQ(test_key("tests/test_card.py::TestCard::test_float"), "TestCard::test_float");
  EXPECT_EQ(test_key("TestCard.test_float"), "TestCard::test_float");
  EXPECT_EQ(test_key("test_float (astropy.io.fits.tests.test_card.TestCard)"), "TestCard::test_float");
  EXPECT_EQ(test_key("test_float (astropy.io.fits.tests.test_card.TestCard.test_float)"), "TestCard::test_float");
  EXPECT_EQ(test_key("tests/test_card.py::test_long"), "test_long");
  EXPECT_EQ(test_key("parser::tests::empty"), "empty");
  EXPECT_EQ(test_key("rejects a duplicate charge"), "rejects a duplicate charge");
}

TEST(ReadToolOutcome, UnittestAsDjangosRunnerPrintsIt) {
  const ToolOutcome o = read_tool_outcome(
      "<returncode>1</returncode>\n<output>\nTesting against Django installed in '/testbed/django' with up to 8 processes\n"
      "System check identified no issues (0 silenced).\n"
      "test_ascii_validator (auth_tests.test_validators.UsernameValidatorsTests) ... ok\n"
      "test_unicode_validator (auth_tests.test_validators.UsernameValidatorsTests) ... FAIL\n\n"
      "======================================================================\n"
      "FAIL: test_unicode_validator (auth_tests.test_validators.UsernameValidatorsTests)\n"
      "----------------------------------------------------------------------\nTraceback (most recent call last):\n"
      "  File \"/testbed/tests/auth_tests/test_validators.py\", line 256, in test_unicode_validator\n    v(invalid)\n"
      "AssertionError: ValidationError not raised\n\n----------------------------------------------------------------------\n"
      "Ran 2 tests in 0.004s\n\nFAILED (failures=1)\n</output>");
  EXPECT_EQ(o.exit_code, 1);
  ASSERT_EQ(o.failed_tests.size(), 1u);
  EXPECT_EQ(o.failed_tests[0].name, "test_unicode_validator (auth_tests.test_validators.UsernameValidatorsTests)");
  EXPECT_EQ(o.failed_tests[0].lines.back(), "AssertionError: ValidationError not raised");
  EXPECT_EQ(o.passed_tests, (Lines{"test_ascii_validator (auth_tests.test_validators.UsernameValidatorsTests)"}));
  EXPECT_EQ(o.tally, "Ran 2 tests in 0.004s; FAILED (failures=1)");
  EXPECT_TRUE(o.tally_failed);
  EXPECT_EQ(o.error_lines.back(), "exit code 1");  // the <returncode> tag's status, after the lines it is the status of
  EXPECT_EQ(o.last_line, "FAILED (failures=1)");
  const ToolOutcome ok = read_tool_outcome("Ran 14 tests in 0.120s\n\nOK (skipped=1)\n");
  EXPECT_EQ(ok.tally, "Ran 14 tests in 0.120s; OK (skipped=1)");
  EXPECT_FALSE(ok.failed());
}

TEST(ReadToolOutcome, PytestFailureSections) {
  const ToolOutcome o = read_tool_outcome(
      "============================= test session starts ==============================\ncollected 3 items\n\n"
      "tests/test_card.py .F.                                                   [100%]\n\n"
      "=================================== FAILURES ===================================\n"
      "_____________________________ TestCard.test_float ______________________________\n\n"
      "self = <test_card.TestCard object at 0x7f>\n\n    def test_float(self):\n>       assert fmt(1e-10) == '1e-10'\n"
      "E       AssertionError: assert '1.0000000000E-10' == '1e-10'\n\ntests/test_card.py:41: AssertionError\n"
      "=========================== short test summary info ============================\n"
      "FAILED tests/test_card.py::TestCard::test_float - AssertionError: assert '1.00...\n"
      "========================= 1 failed, 2 passed in 0.21s ==========================");
  ASSERT_EQ(o.failed_tests.size(), 1u);  // the header and the summary line are one test
  EXPECT_EQ(o.failed_tests[0].name, "TestCard.test_float");
  // The summary's line, which names the test and says why, then the section's explanation.
  EXPECT_EQ(o.failed_tests[0].lines, (Lines{"FAILED tests/test_card.py::TestCard::test_float - AssertionError: assert '1.00...",
                                            "E       AssertionError: assert '1.0000000000E-10' == '1e-10'"}));
  // The section's header is not a line that reports the failure; the summary's is.
  EXPECT_EQ(std::count(o.error_lines.begin(), o.error_lines.end(),
                       "_____________________________ TestCard.test_float ______________________________"),
            0);
  EXPECT_EQ(o.tally, "========================= 1 failed, 2 passed in 0.21s ==========================");
  EXPECT_TRUE(o.tally_failed);
}

TEST(ReadToolOutcome, MochaAndRspecNumberTheirFailures) {
  const ToolOutcome mocha = read_tool_outcome(
      "  Parser\n    \xE2\x9C\x93 parses numbers\n    1) parses dates\n\n  1 passing (12ms)\n  1 failing\n\n"
      "  1) Parser\n       parses dates:\n     AssertionError: expected 1 to equal 2\n      at Context.<anonymous> "
      "(test/parser.test.js:9:12)\n");
  ASSERT_EQ(mocha.failed_tests.size(), 1u);
  EXPECT_EQ(mocha.failed_tests[0].name, "parses dates");
  EXPECT_EQ(mocha.failed_tests[0].lines.front(), "AssertionError: expected 1 to equal 2");
  EXPECT_EQ(mocha.passed_tests, (Lines{"parses numbers"}));
  const ToolOutcome rspec = read_tool_outcome(
      "F.\n\nFailures:\n\n  1) User validates email\n     Failure/Error: expect(user).to be_valid\n       expected valid? to be truthy\n\n"
      "2 examples, 1 failure\n\nFailed examples:\n\nrspec ./spec/models/user_spec.rb:12 # User validates email");
  ASSERT_EQ(rspec.failed_tests.size(), 1u);
  EXPECT_EQ(rspec.failed_tests[0].name, "User validates email");
  EXPECT_EQ(rspec.tally, "2 examples, 1 failure");
  EXPECT_TRUE(rspec.tally_failed);
}

TEST(ReadToolOutcome, MavenSurefire) {
  const ToolOutcome o = read_tool_outcome(
      "[INFO] Running com.example.ParserTest\n"
      "[ERROR] Tests run: 4, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.05 s <<< FAILURE! - in com.example.ParserTest\n"
      "[ERROR] testEmpty(com.example.ParserTest)  Time elapsed: 0.01 s  <<< FAILURE!\njava.lang.AssertionError: expected:<0> but was:<1>\n"
      "\tat com.example.ParserTest.testEmpty(ParserTest.java:42)\n\n[INFO] BUILD FAILURE");
  ASSERT_EQ(o.failed_tests.size(), 1u);
  EXPECT_EQ(o.failed_tests[0].name, "testEmpty(com.example.ParserTest)");
  EXPECT_TRUE(o.failed());
  EXPECT_TRUE(reports_error("[INFO] BUILD FAILURE"));
  EXPECT_TRUE(read_tool_outcome("[INFO] Tests run: 12, Failures: 0, Errors: 0, Skipped: 1\n[INFO] BUILD SUCCESS")
                  .tally.starts_with("[INFO] Tests run: 12"));
  EXPECT_FALSE(read_tool_outcome("[INFO] Tests run: 12, Failures: 0, Errors: 0, Skipped: 1\n[INFO] BUILD SUCCESS").failed());
  EXPECT_TRUE(reports_error("bash: line 1: mvnw: command not found"));
  EXPECT_TRUE(reports_error("python: can't open file '/testbed/x.py': [Errno 2] No such file or directory"));
}

TEST(ReadToolOutcome, ExitStatusesAsAgentsToolsPrintThem) {
  EXPECT_EQ(read_tool_outcome("<returncode>2</returncode>\n<output>\nexit code 0 is what we want\n</output>").exit_code, 2);
  EXPECT_EQ(read_tool_outcome("building\n[Command finished with exit code 1]").exit_code, 1);
  EXPECT_EQ(read_tool_outcome("Exit code: 0\nWall time: 1.2 seconds\nOutput:\nok").exit_code, 0);
  EXPECT_EQ(read_tool_outcome("<returncode>0</returncode>\n<output>\nhello\n</output>").last_line, "hello");
  EXPECT_EQ(exit_status_in("<returncode>3</returncode>"), 3);
  EXPECT_FALSE(exit_status_in("no status here").has_value());
}

}  // namespace
}  // namespace ctxwin
