#include "ctxwin/compaction/problem_ledger.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ctxwin/compaction/cleared_result.hpp"
#include "ctxwin/error.hpp"

namespace ctxwin {
namespace {

const char* kFailingRun =
    " ✓ test/billing.test.ts > ledger > creates a charge (2 ms)\n"
    "FAIL test/billing.test.ts > ledger > rejects a duplicate charge\n"
    "Error: duplicate charge detected for ch_17_5\n"
    "    at Ledger.charge (src/billing/ledger.ts:88:11)\n"
    "      Tests  1 failed | 48 passed (49)\n"
    "exit code 1";

std::vector<std::string> open_checks(const ProblemLedger& ledger) {
  std::vector<std::string> out;
  for (const Problem* p : ledger.open()) out.push_back(p->check);
  return out;
}

TEST(CheckOfCall, TheSubjectOfACall) {
  EXPECT_EQ(check_of_call("run_command", R"({"command":"npm   run build"})"), "run_command\nnpm run build");
  EXPECT_EQ(check_of_call("read_file", R"({"path":"src/a.ts","offset":3})"), "read_file\nsrc/a.ts");
  EXPECT_EQ(check_of_call("run_tests", R"({"filter":"billing"})"), "run_tests\nbilling");
  EXPECT_EQ(check_of_call("create_replacement", R"({"sku":"LMP-220","order_id":"A-1042"})"), "create_replacement\nA-1042");
  EXPECT_EQ(check_of_call("run_python", R"js({"code":"print(1)"})js"), "run_python\n");
  EXPECT_EQ(check_of_call("bash", R"({"command":["npm","test"]})"), "bash\nnpm test");
  EXPECT_EQ(check_of_call("odd", "not json"), "odd\n");
  EXPECT_EQ(describe_call("run_command", R"({"command":"npm run build"})"), "`npm run build`");
  EXPECT_EQ(describe_call("run_tests", R"({"filter":"billing"})"), "run_tests {\"filter\":\"billing\"}");
}

TEST(ProblemLedger, AFailingTestStaysOpenUntilThatTestPasses) {
  ProblemLedger ledger;
  ledger.observe({"call_17", "run_tests", R"({"filter":"billing"})"}, kFailingRun);
  ASSERT_EQ(open_checks(ledger), (std::vector<std::string>{"test\nrejects a duplicate charge"}));
  const Problem& p = *ledger.open().front();
  EXPECT_EQ(p.id, "call_17");
  EXPECT_EQ(p.lines.front(), "Error: duplicate charge detected for ch_17_5");
  EXPECT_EQ(p.outcome, "Tests  1 failed | 48 passed (49); exit code 1");
  // Other tools succeeding, another test passing, another command passing: still open.
  ledger.observe({"call_18", "read_file", R"({"path":"src/billing/ledger.ts"})"}, "export class Ledger {}");
  ledger.observe({"call_19", "run_tests", R"({"filter":"refunds"})"},
                 " ✓ test/r.test.ts > refunds > refunds a charge (1 ms)\nTests 3 passed (3)\nexit code 0");
  ledger.observe({"call_20", "run_command", R"({"command":"npm run lint"})"}, "0 problems");
  EXPECT_EQ(ledger.open().size(), 1u);
  // That test passing (in any run) resolves it.
  ledger.observe({"call_21", "run_tests", R"({"filter":"duplicate"})"},
                 " ✓ test/billing.test.ts > ledger > rejects a duplicate charge (2 ms)\nTests 1 passed (1)");
  EXPECT_TRUE(ledger.open().empty());
  ASSERT_EQ(ledger.resolved().size(), 1u);
  EXPECT_EQ(ledger.resolved().front()->resolved_by, "call_21");
}

TEST(ProblemLedger, ACommandsFailureIsResolvedByTheSameCommandSucceeding) {
  ProblemLedger ledger;
  ledger.observe({"c29", "run_command", R"({"command":"npm run build"})"},
                 "Error: ENOSPC: no space left on device, write '/tmp/build/ledger.js'\nexit code 1");
  ledger.observe({"c30", "run_command", R"({"command":"rm -rf /tmp/build/.cache"})"}, "exit code 0");
  EXPECT_EQ(ledger.open().size(), 1u);
  ledger.observe({"c31", "run_command", R"({"command":"npm run build"})"}, "build ok in 4.4s\nexit code 0");
  EXPECT_TRUE(ledger.open().empty());
  EXPECT_EQ(ledger.resolved().front()->resolution, "build ok in 4.4s; exit code 0");
  EXPECT_EQ(describe_resolved_problem(*ledger.resolved().front()),
            "- `npm run build`: Error: ENOSPC: no space left on device, write '/tmp/build/ledger.js' -> now build ok in 4.4s; exit code 0 "
            "[id c31]");
}

TEST(ProblemLedger, AReadOfAnotherPathDoesNotResolveAMissingFile) {
  ProblemLedger ledger;
  ledger.observe({"c4", "read_file", R"({"path":"src/util/date.ts"})"}, "ENOENT: no such file or directory, open 'src/util/date.ts'");
  ledger.observe({"c5", "read_file", R"({"path":"src/util/locale.ts"})"}, "export const zone = 'UTC';");
  EXPECT_EQ(ledger.open().size(), 1u);
  ledger.observe({"c6", "read_file", R"({"path":"src/util/date.ts"})"}, "export function parse() {}");
  EXPECT_TRUE(ledger.open().empty());
}

TEST(ProblemLedger, ALaterFailureOfTheSameCheckReplacesItsLinesAndReopensIt) {
  ProblemLedger ledger;
  ledger.observe({"a", "run_command", R"({"command":"tsc"})"}, "src/a.ts(1,2): error TS2304: Cannot find name 'x'");
  ledger.observe({"b", "run_command", R"({"command":"tsc"})"}, "exit code 0");
  EXPECT_TRUE(ledger.open().empty());
  ledger.observe({"c", "run_command", R"({"command":"tsc"})"}, "src/a.ts(9,9): error TS2339: Property 'y' does not exist\nexit code 2");
  ASSERT_EQ(ledger.open().size(), 1u);
  EXPECT_EQ(ledger.open().front()->id, "c");
  EXPECT_EQ(ledger.open().front()->lines.front(), "src/a.ts(9,9): error TS2339: Property 'y' does not exist");
  EXPECT_TRUE(ledger.resolved().empty());
}

TEST(ProblemLedger, ARunThatOnlyMarksATestFailingKeepsTheReasonGivenBefore) {
  ProblemLedger ledger;
  ledger.observe({"c1", "run_tests", R"({"filter":"billing"})"}, kFailingRun);
  ledger.observe({"c2", "run_command", R"({"command":"git stash && npx vitest run"})"},
                 " × test/billing.test.ts > ledger > rejects a duplicate charge\n      Tests  1 failed | 48 passed (49)");
  ASSERT_EQ(ledger.open().size(), 1u);
  const Problem* test = ledger.open()[0];
  EXPECT_EQ(test->test, "rejects a duplicate charge");
  EXPECT_EQ(test->id, "c2");  // seen last there
  EXPECT_NE(describe_open_problem(*test).find("Error: duplicate charge detected for ch_17_5"), std::string::npos)
      << describe_open_problem(*test);
}

TEST(ProblemLedger, AResolvedProblemIsDescribedByItsErrorNotItsStackFrames) {
  ProblemLedger ledger;
  ledger.observe({"p1", "run_python", R"j({"code":"df.x.astype(float)"})j"},
                 "Traceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\n"
                 "ValueError: could not convert string to float: 'n/a'");
  ledger.observe({"p2", "run_python", R"j({"code":"pd.to_numeric(df.x)"})j"}, "214");
  ASSERT_EQ(ledger.resolved().size(), 1u);
  const std::string line = describe_resolved_problem(*ledger.resolved()[0]);
  EXPECT_NE(line.find(": ValueError: could not convert string to float: 'n/a' -> now 214"), std::string::npos) << line;
  EXPECT_TRUE(is_frame("  File \"<stdin>\", line 1, in <module>"));
  EXPECT_TRUE(is_frame("    at Ledger.charge (src/billing/ledger.ts:88:11)"));
  EXPECT_FALSE(is_frame("ValueError: could not convert string to float: 'n/a'"));
}

TEST(ProblemLedger, NewestFirstAndBounded) {
  ProblemLedger ledger({.max_open = 3, .max_resolved = 1});
  for (int i = 0; i < 5; ++i) {
    const std::string n = std::to_string(i);
    std::string id("c");
    id.append(n);
    std::string args(R"({"path":"f)");
    args.append(n).append(R"("})");
    ledger.observe({id, "read_file", args}, "ENOENT: missing");
  }
  EXPECT_EQ(open_checks(ledger), (std::vector<std::string>{"read_file\nf4", "read_file\nf3", "read_file\nf2"}));
  ledger.observe({"r3", "read_file", R"({"path":"f3"})"}, "ok");
  ledger.observe({"r4", "read_file", R"({"path":"f4"})"}, "ok");
  ASSERT_EQ(ledger.resolved().size(), 1u);
  EXPECT_EQ(ledger.resolved().front()->check, "read_file\nf4");
}

TEST(ProblemLedger, TheOpenProblemsALongListLeavesOutAreNamedByTheirIds) {
  // A summary lists the newest open problems; the older ones stay one recall away, by id.
  ProblemLedger ledger({.max_open = 20});
  for (int i = 0; i < 12; ++i) {
    const std::string n = std::to_string(i);
    ledger.observe({"call_" + n, "bash", R"({"command":"tool)" + n + R"( --check"})"},
                   "bash: tool" + n + ": command not found\nexit code 127");
  }
  const std::string text = describe_problems(ledger, 3, 0);
  EXPECT_NE(text.find("[id call_11]"), std::string::npos) << text;
  EXPECT_NE(text.find("[id call_9]"), std::string::npos) << text;
  // Nine left out, the newest eight named (kMaxOlderIds), newest first.
  EXPECT_NE(text.find("\n- and 9 older open problems (recall by id: call_8, call_7, call_6, call_5, call_4, call_3, call_2, call_1)"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("call_0"), std::string::npos) << text;
  // Problems without an id (a record written by hand) are counted, not named.
  Problem a;
  a.check = "bash\nx";
  a.lines = {"Error: x"};
  const Problem* older[] = {&a};
  EXPECT_EQ(describe_older_open_problems(older), "- and 1 older open problems");
}

TEST(ProblemLedger, ACommandKilledForTakingTooLongIsOpenWithItsNotice) {
  ProblemLedger ledger;
  ledger.observe({"call_76", "bash", R"({"command":"python -u debug_poly_2.py"})"},
                 "The last command <command>python -u debug_poly_2.py</command> timed out and has been killed.\nThe output of "
                 "the command was:\n<output>\nstep 1\n</output>");
  const std::string text = describe_problems(ledger);
  EXPECT_NE(text.find("The last command <command>python -u debug_poly_2.py</command> timed out and has been killed. [id call_76]"),
            std::string::npos)
      << text;
  ledger.observe({"call_80", "bash", R"({"command":"python -u debug_poly_2.py"})"},
                 "<returncode>0</returncode>\n<output>\ndone\n</output>");
  EXPECT_TRUE(ledger.open().empty());
}

TEST(ProblemLedger, ACleredResultKeepsItsErrorsButShowsNothingPassing) {
  ProblemLedger ledger;
  ledger.observe({"c1", "run_command", R"({"command":"make"})"}, "Error: boom\nexit code 1");
  // A placeholder without error lines: no news.
  ledger.observe({"c2", "run_command", R"({"command":"make"})"}, cleared_tool_result("all good", "c2"));
  EXPECT_EQ(ledger.open().size(), 1u);
  // A placeholder with error lines: the failure, read again (a fresh ledger over a compacted history).
  ProblemLedger fresh;
  fresh.observe({"c1", "run_command", R"({"command":"make"})"}, cleared_tool_result("lots of output\nError: boom\nexit code 1", "c1"));
  ASSERT_EQ(fresh.open().size(), 1u);
  EXPECT_EQ(fresh.open().front()->lines.front(), "Error: boom");
}

TEST(ProblemLedger, AnErrorTheToolReportedWhateverItsWords) {
  ProblemLedger ledger;
  ledger.observe({"x", "deploy", "{}"}, "permission denied", true);
  ASSERT_EQ(ledger.open().size(), 1u);
  EXPECT_EQ(ledger.open().front()->lines, (std::vector<std::string>{"permission denied"}));
}

TEST(ProblemLedger, TheRecordRoundTripsAndBadRecordsAreRefused) {
  ProblemLedger ledger;
  ledger.observe({"call_17", "run_tests", R"({"filter":"billing"})"}, kFailingRun);
  ledger.observe({"c29", "run_command", R"({"command":"npm run build"})"}, "Error: ENOSPC: no space left on device\nexit code 1");
  ledger.observe({"c31", "run_command", R"({"command":"npm run build"})"}, "build ok\nexit code 0");
  const std::string json = ledger.to_json();
  const ProblemLedger back = ProblemLedger::from_json(json);
  EXPECT_EQ(back.to_json(), json);
  EXPECT_EQ(back.observed_through(), "c31");
  // Later observations continue the order.
  ProblemLedger more = ProblemLedger::from_json(json);
  more.observe({"c40", "run_command", R"({"command":"npm run build"})"}, "Error: ENOSPC again\nexit code 1");
  EXPECT_EQ(more.open().front()->id, "c40");
  for (const char* bad : {"", "[]", R"({"problems":3})", R"({"problems":[{"lines":[]}]})", R"({"problems":[{"check":"x","lines":[1]}]})"}) {
    try {
      ProblemLedger::from_json(bad);
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Type) << bad;
    }
  }
}

TEST(ObserveToolResults, EventsInOrderAndDescribed) {
  const std::vector<std::string_view> events = {
      R"({"type":"tool_result","toolCallId":"call_17","toolName":"run_tests","args":{"filter":"billing"},"result":"FAIL test/b.test.ts > rejects a duplicate charge\nError: duplicate charge detected for ch_17_5\nexit code 1"})",
      R"({"type":"message","role":"user","content":"ignored"})",
      "not json",
      R"({"type":"tool_result","toolCallId":"e","toolName":"deploy","args":{},"error":"permission denied"})",
  };
  const std::string record = observe_tool_results("", events);
  const std::string described = describe_problems(ProblemLedger::from_json(record));
  EXPECT_EQ(described,
            "Open problems, newest first:\n"
            "- deploy: permission denied [id e]\n"
            "- test \"rejects a duplicate charge\" (run_tests {\"filter\":\"billing\"}): Error: duplicate charge detected for ch_17_5 "
            "(last output: exit code 1) [id call_17]");
  EXPECT_EQ(describe_problems(ProblemLedger()), "");
}

// What a shell agent's session looks like to the ledger (mini-swe-agent's bash tool, its
// <returncode> and <output> tags): reads never open a problem, the script that failed is resolved
// when it runs clean, whatever `cd` or edit comes before it on the line.
TEST(ProblemLedger, AShellAgentsSession) {
  ProblemLedger ledger;
  ledger.observe({"c1", "bash", R"({"command":"grep -rn \"except KeyError\" django/db/ | head -5"})"},
                 "<returncode>0</returncode>\n<output>\ndjango/db/models/query.py:890:        except KeyError:\ndjango/db/utils.py:204:    "
                 "        raise ImproperlyConfigured(\"Error: %s\" % e)\n</output>");
  ledger.observe({"c2", "bash", R"({"command":"sed -n '885,895p' django/db/models/query.py"})"},
                 "<returncode>0</returncode>\n<output>\n        try:\n            return self._cache[key]\n        except KeyError:\n      "
                 "      raise FieldError(\"Error: unknown field\")\n</output>");
  ledger.observe({"c3", "bash", R"({"command":"cat /tmp/old_run.log"})"},
                 "Traceback (most recent call last):\n  File \"x.py\", line 1\nValueError: from an old run");
  ledger.observe({"c4", "bash", R"({"command":"grep -c missing_symbol setup.py"})"}, "<returncode>1</returncode>\n<output>\n0\n</output>");
  EXPECT_TRUE(ledger.empty());
  ledger.observe({"c5", "bash", R"({"command":"cd /testbed && python reproduce.py"})"},
                 "<returncode>1</returncode>\n<output>\nTraceback (most recent call last):\n  File \"/testbed/reproduce.py\", line 7, in "
                 "<module>\n    qs.get(name='x')\n"
                 "KeyError: 'name'\n</output>");
  ASSERT_EQ(ledger.open().size(), 1u);
  EXPECT_EQ(ledger.open().front()->label, "`cd /testbed && python reproduce.py`");
  EXPECT_EQ(ledger.open().front()->lines,
            (std::vector<std::string>{"File \"/testbed/reproduce.py\", line 7, in <module>", "KeyError: 'name'", "exit code 1"}));
  EXPECT_EQ(ledger.open().front()->outcome, "exit code 1");
  // An edit, then the same script on a line of its own: resolved.
  ledger.observe({"c6", "bash", R"({"command":"sed -i 's/_cache\\[key\\]/_cache.get(key)/' django/db/models/query.py"})"},
                 "<returncode>0</returncode>\n<output>\n</output>");
  EXPECT_EQ(ledger.open().size(), 1u);
  ledger.observe({"c7", "bash", R"({"command":"python reproduce.py 2>&1"})"},
                 "<returncode>0</returncode>\n<output>\nAll lookups work\n</output>");
  EXPECT_TRUE(ledger.open().empty());
  ASSERT_EQ(ledger.resolved().size(), 1u);
  EXPECT_EQ(ledger.resolved().front()->resolution, "All lookups work; exit code 0");
}

TEST(ProblemLedger, UnittestFailuresAreTestsNotTheirVerdicts) {
  ProblemLedger ledger;
  ledger.observe(
      {"t1", "bash", R"({"command":"python tests/runtests.py auth_tests.test_validators"})"},
      "<returncode>1</returncode>\n<output>\nE.\n======================================================================\n"
      "ERROR: test_unicode_validator "
      "(auth_tests.test_validators.UsernameValidatorsTests)\n----------------------------------------------------------------------\n"
      "Traceback (most recent call last):\n  File \"/testbed/django/contrib/auth/validators.py\", line 20, in __call__\nTypeError: bad "
      "pattern\n\n"
      "----------------------------------------------------------------------\nRan 2 tests in 0.002s\n\nFAILED (errors=1)\n</output>");
  ASSERT_EQ(ledger.open().size(), 1u);
  const Problem& p = *ledger.open().front();
  EXPECT_EQ(p.test, "test_unicode_validator (auth_tests.test_validators.UsernameValidatorsTests)");
  EXPECT_EQ(p.check, "test\nUsernameValidatorsTests::test_unicode_validator");
  EXPECT_EQ(describe_open_problem(p).find("(errors=1)\""), std::string::npos) << describe_open_problem(p);
  // The module's run passing as a whole resolves it, though -v was not given and no test is named.
  ledger.observe({"t2", "bash", R"({"command":"python tests/runtests.py auth_tests 2>&1 | tail -3"})"}, "Ran 48 tests in 0.211s\n\nOK");
  EXPECT_TRUE(ledger.open().empty());
  EXPECT_EQ(ledger.resolved().front()->resolution, "Ran 48 tests in 0.211s; OK");
}

TEST(ProblemLedger, PytestSpellingsOfOneTest) {
  ProblemLedger ledger;
  ledger.observe({"p1", "bash", R"({"command":"python -m pytest astropy/io/fits/tests/test_card.py -x -q"})"},
                 "F\n=================================== FAILURES ===================================\n"
                 "_____________________________ TestCard.test_float _____________________________\n"
                 "E       AssertionError: assert '1.0E-10' == '1e-10'\n"
                 "=========================== short test summary info ============================\n"
                 "FAILED astropy/io/fits/tests/test_card.py::TestCard::test_float - AssertionError\n1 failed in 0.30s\n");
  ASSERT_EQ(ledger.open().size(), 1u);
  EXPECT_EQ(ledger.open().front()->lines,
            (std::vector<std::string>{"FAILED astropy/io/fits/tests/test_card.py::TestCard::test_float - AssertionError",
                                      "E       AssertionError: assert '1.0E-10' == '1e-10'"}));
  // -v names it passing, by its node id.
  ledger.observe({"p2", "bash", R"({"command":"python -m pytest astropy/io/fits/tests/test_card.py -k float -v"})"},
                 "astropy/io/fits/tests/test_card.py::TestCard::test_float PASSED [100%]\n1 passed, 40 deselected in 0.2s");
  EXPECT_TRUE(ledger.open().empty());
  // A later failure reopens it; the whole file passing quietly resolves it again.
  ledger.observe({"p3", "bash", R"({"command":"python -m pytest astropy/io/fits/tests/test_card.py::TestCard::test_float"})"},
                 "FAILED astropy/io/fits/tests/test_card.py::TestCard::test_float - AssertionError\n1 failed in 0.1s");
  EXPECT_EQ(ledger.open().size(), 1u);
  ledger.observe({"p4", "bash", R"({"command":"python -m pytest astropy/io/fits/tests/ -q"})"}, "........\n314 passed in 9.1s");
  EXPECT_TRUE(ledger.open().empty());
  // Another file's pass resolves nothing.
  ledger.observe({"p5", "bash", R"({"command":"python -m pytest astropy/io/fits/tests/test_card.py -q"})"},
                 "FAILED astropy/io/fits/tests/test_card.py::test_other - x\n1 failed");
  ledger.observe({"p6", "bash", R"({"command":"python -m pytest astropy/units/tests/test_units.py -q"})"}, "90 passed in 2.0s");
  EXPECT_EQ(ledger.open().size(), 1u);
}

// An edit tool's view shows a file; a failed edit is the edit's problem until that edit succeeds.
TEST(ProblemLedger, EditorToolsViewAndEdit) {
  ProblemLedger ledger;
  ledger.observe({"e1", "str_replace_editor", R"({"command":"view","path":"/testbed/src/app.py"})"},
                 "Here's the result of running `cat -n` on /testbed/src/app.py:\n    12\t    except ValueError:\n    13\t        raise "
                 "RuntimeError(\"Error: bad\")");
  EXPECT_TRUE(ledger.empty());
  ledger.observe({"e2", "str_replace_editor", R"({"command":"str_replace","path":"/testbed/src/app.py","old_str":"x","new_str":"y"})"},
                 "Error: no replacement was performed, old_str `x` did not appear verbatim in /testbed/src/app.py.");
  ASSERT_EQ(ledger.open().size(), 1u);
  EXPECT_EQ(ledger.open().front()->label, "str_replace_editor str_replace /testbed/src/app.py");
  // Another file's edit does not resolve it; the same file's does.
  ledger.observe({"e3", "str_replace_editor", R"({"command":"str_replace","path":"/testbed/src/other.py","old_str":"a","new_str":"b"})"},
                 "The file /testbed/src/other.py has been edited.");
  EXPECT_EQ(ledger.open().size(), 1u);
  ledger.observe({"e4", "str_replace_editor", R"({"command":"str_replace","path":"/testbed/src/app.py","old_str":"z","new_str":"y"})"},
                 "The file /testbed/src/app.py has been edited.");
  EXPECT_TRUE(ledger.open().empty());
}

}  // namespace
}  // namespace ctxwin
