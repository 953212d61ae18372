#include "ctxwin/compaction/run_verdict.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ctxwin {
namespace {

// A shell call as the agents' shell tools send it, and its result.
RunVerdict judge(const std::string& command, const std::string& output, bool reported_error = false) {
  std::string args = R"({"command":)";
  args += '"';
  for (char c : command) {
    if (c == '"' || c == '\\') args += '\\';
    if (c == '\n') {
      args += "\\n";
      continue;
    }
    args += c;
  }
  args += "\"}";
  const ToolCallReading call = read_tool_call("bash", args);
  return judge_run(call, read_tool_outcome(output), output, reported_error);
}

struct Case {
  const char* what;
  const char* command;
  const char* output;
  bool failed;
};

// Outputs in the forms agents' tools return them: mini-swe-agent's <returncode> and <output>
// tags, OpenHands' "[Command finished with exit code N]", Codex's "Exit code: N", and bare output.
TEST(JudgeRun, ReadsAreContentRunsHaveOutcomes) {
  const std::vector<Case> cases = {
      {"a file's code through sed -n", "sed -n '890,910p' django/db/backends/base/schema.py",
       "<returncode>0</returncode>\n<output>\n            try:\n                return self.connection.ops.quote_name(name)\n            "
       "except KeyError:\n                raise ValueError('bad')\n</output>",
       false},
      {"grep finding error handling", "grep -rn \"Error:\" django/core/management/base.py",
       "<returncode>0</returncode>\n<output>\n412:            self.stderr.write('%s: %s' % (e.__class__.__name__, e))\n530:        raise "
       "CommandError(\"Error: %s\" % msg)\n</output>",
       false},
      {"grep finding nothing", "grep -n 'xyz' setup.py", "<returncode>1</returncode>\n<output>\n</output>", false},
      {"cat of a log with a traceback", "cat /tmp/run.log", "Traceback (most recent call last):\n  File \"x.py\", line 1\nValueError: boom",
       false},
      {"python -c printing a file", "python -c \"print(open('sympy/core/expr.py').read()[:500])\"",
       "<returncode>0</returncode>\n<output>\nclass Expr(Basic):\n    def __eq__(self, other):\n        except SympifyError:\n</output>",
       false},
      {"a script that raises", "cd /testbed && python reproduce_issue.py",
       "<returncode>1</returncode>\n<output>\nTraceback (most recent call last):\n  File \"/testbed/reproduce_issue.py\", line 4, in "
       "<module>\n    v('user\\n')\nAssertionError: accepted a trailing newline\n</output>",
       true},
      {"a script that exits 1 without an error line", "python reproduce.py",
       "<returncode>1</returncode>\n<output>\nBug present: True\n</output>", true},
      {"a script printing an expected error and exiting 0", "python reproduce.py",
       "<returncode>0</returncode>\n<output>\nError: ValidationError raised as expected\nAll good\n</output>", false},
      // The issue's rule: a traceback that is the command's own outcome fails it, whatever its exit status.
      {"a script ending in a traceback it printed, exiting 0", "python3 reproduce_issue/reproduce.py",
       "<returncode>0</returncode>\n<output>\nTraceback (most recent call last):\n  File \"reproduce.py\", line 30, in <module>\n    "
       "call_command('makemigrations')\nCommandError: App 'DJ_RegLogin' does not have migrations.\n</output>",
       true},
      {"a command mini-swe-agent's shell killed for taking too long", "python -u debug_poly_2.py",
       "The last command <command>python -u debug_poly_2.py</command> timed out and has been killed.\nThe output of the command "
       "was:\n<output>\nstep 1\nstep 2\n</output>\nPlease try another command and make sure to avoid those requiring interactive "
       "input.",
       true},
      {"a script whose traceback is followed by its own later output, exiting 0", "python reproduce.py",
       "<returncode>0</returncode>\n<output>\nTraceback (most recent call last):\n  File \"r.py\", line 3, in <module>\n    f()\n"
       "KeyError: 'x'\nretrying with defaults\nstep 1 ok\nstep 2 ok\nstep 3 ok\nstep 4 ok\nall 5 steps done\n</output>",
       false},
      {"failing tests piped into tail", "python -m pytest tests/test_card.py -q 2>&1 | tail -5",
       "<returncode>0</returncode>\n<output>\nFAILED tests/test_card.py::test_long_strings - AssertionError\n1 failed, 40 passed in "
       "1.20s\n</output>",
       true},
      {"a traceback piped into head", "python reproduce.py 2>&1 | head -20",
       "<returncode>0</returncode>\n<output>\nTraceback (most recent call last):\n  File \"reproduce.py\", line 3, in "
       "<module>\nImportError: cannot import name 'x'\n</output>",
       true},
      {"passing tests", "python -m pytest tests/test_card.py -q", "<returncode>0</returncode>\n<output>\n41 passed in 1.10s\n</output>",
       false},
      {"Django's runner failing", "python tests/runtests.py auth_tests.test_validators",
       "Testing against Django installed in "
       "'/testbed/django'\nF.\n======================================================================\nFAIL: test_unicode_validator "
       "(auth_tests.test_validators.UsernameValidatorsTests)\n"
       "----------------------------------------------------------------------\nTraceback (most recent call last):\n  File "
       "\"/testbed/tests/auth_tests/test_validators.py\", line 240, in test_unicode_validator\n"
       "    v(invalid)\nAssertionError: ValidationError not raised\n\nRan 2 tests in 0.003s\n\nFAILED (failures=1)",
       true},
      {"an OpenHands build failing", "npm run build",
       "src/a.ts(3,1): error TS2304: Cannot find name 'x'.\n[Command finished with exit code 2]", true},
      {"a Codex build passing with warnings", "cargo build",
       "warning: unused variable: `x`\nFinished dev [unoptimized] target(s)\nExit code: 0", false},
      {"an edit with no output", "sed -i 's/a/b/' x.py", "<returncode>0</returncode>\n<output>\n</output>", false},
      {"an edit of a missing file", "sed -i 's/a/b/' nope.py", "sed: can't read nope.py: No such file or directory\nexit code 2", true},
      {"a compiler error without a status", "gcc -c a.c", "a.c:3:5: error: expected ';' before 'return'", true},
  };
  for (const auto& c : cases) {
    const RunVerdict v = judge(c.command, c.output);
    EXPECT_EQ(v.failed, c.failed) << c.what;
    EXPECT_EQ(v.lines.empty(), !c.failed) << c.what;
  }
}

TEST(JudgeRun, WhyItFailed) {
  EXPECT_EQ(judge("python reproduce.py", "<returncode>1</returncode>\n<output>\nBug present: True\n</output>").lines,
            (std::vector<std::string>{"Bug present: True", "exit code 1"}));
  EXPECT_EQ(judge("python -m pytest -q | tail -3", "2 failed, 10 passed in 0.5s").lines,
            (std::vector<std::string>{"2 failed, 10 passed in 0.5s"}));
  EXPECT_EQ(judge("deploy.sh", "permission denied for user ci", true).lines, (std::vector<std::string>{"permission denied for user ci"}));
  EXPECT_EQ(judge("make", "<returncode>2</returncode>\n<output>\n</output>").lines, (std::vector<std::string>{"exit code 2"}));
}

TEST(JudgeRun, APassingTestRun) {
  EXPECT_TRUE(judge("python -m pytest tests/test_card.py -q", "41 passed in 1.10s\nexit code 0").tests_passed);
  EXPECT_TRUE(judge("python tests/runtests.py auth_tests", "Ran 22 tests in 0.1s\n\nOK").tests_passed);
  EXPECT_FALSE(judge("python reproduce.py", "ok\nexit code 0").tests_passed);
  // A shell read is neither a failure nor a success: it resolves nothing.
  const RunVerdict read = judge("cat tests/test_card.py", "def test_x():\n    assert 1 == 2");
  EXPECT_FALSE(read.failed);
  EXPECT_FALSE(read.succeeded);
}

TEST(JudgeRun, ReadTools) {
  const ToolCallReading view = read_tool_call("str_replace_editor", R"({"command":"view","path":"/testbed/django/db/models/query.py"})");
  const std::string content = "   890\t        except KeyError:\n   891\t            raise FieldError('x')";
  EXPECT_FALSE(judge_run(view, read_tool_outcome(content), content).failed);
  const std::string missing = "The path /testbed/nope.py does not exist. Please provide a valid path.";
  EXPECT_FALSE(judge_run(view, read_tool_outcome(missing), missing).failed);
  EXPECT_TRUE(judge_run(view, read_tool_outcome(missing), missing, true).failed);
  const ToolCallReading read = read_tool_call("read_file", R"({"path":"src/util/date.ts"})");
  const std::string enoent = "ENOENT: no such file or directory, open 'src/util/date.ts'";
  EXPECT_TRUE(judge_run(read, read_tool_outcome(enoent), enoent).failed);
}

}  // namespace
}  // namespace ctxwin
