#include "ctxwin/compaction/cleared_result.hpp"

#include <gtest/gtest.h>

#include <string>

namespace ctxwin {
namespace {

TEST(ClearedToolResult, SizeIdAndTheErrorLines) {
  std::string log(5000, 'x');
  log +=
      "\nFAIL test/billing.test.ts > ledger > rejects a duplicate charge\nError: duplicate charge detected for ch_17_5\n"
      "    at Ledger.charge (src/billing/ledger.ts:88:11)\n\n      Tests  1 failed | 48 passed (49)\nexit code 1";
  EXPECT_EQ(cleared_tool_result(log, "call_17"),
            "[tool result cleared: 5.1 KB, id call_17]\nError lines kept:\n"
            "FAIL test/billing.test.ts > ledger > rejects a duplicate charge\nError: duplicate charge detected for ch_17_5\n"
            "    at Ledger.charge (src/billing/ledger.ts:88:11)\nexit code 1\nTests  1 failed | 48 passed (49)");
  EXPECT_EQ(cleared_tool_result("all fine", "c1"), "[tool result cleared: 8 B, id c1]");
  EXPECT_EQ(cleared_tool_result("all fine", ""), "[tool result cleared: 8 B]");
}

TEST(ClearedToolResult, RecognisedAndReadBack) {
  const std::string cleared = cleared_tool_result("Error: boom", "c9");
  EXPECT_TRUE(is_cleared_tool_result(cleared));
  EXPECT_FALSE(is_cleared_tool_result("Error: boom"));
  EXPECT_EQ(kept_error_text(cleared), "Error: boom");
  EXPECT_EQ(kept_error_text(cleared_tool_result("ok", "c1")), "");
  EXPECT_EQ(kept_error_text("plain"), "plain");
  // Clearing a placeholder again keeps its lines and names the placeholder's own size.
  EXPECT_EQ(kept_error_text(cleared_tool_result(cleared, "c9")), "Error: boom");
}

// The first line of the placeholder of `text`.
std::string head(const std::string& text, const std::string& id) {
  return "[tool result cleared: " + describe_size(text.size()) + ", id " + id + "]";
}

// After the fix, the prompt shows the success too: a passing run keeps its outcome line.
TEST(ClearedToolResult, APassingRunKeepsItsOutcomeLine) {
  const std::string vitest =
      std::string(2800, '.') + "\n Test Files  12 passed (12)\n      Tests  212 passed (212)\n   Duration  3.41s\nexit code 0";
  EXPECT_EQ(cleared_tool_result(vitest, "call_21", "run_command", R"({"command":"npx vitest run"})"),
            head(vitest, "call_21") + "\nOutcome kept: Tests  212 passed (212)");
  // Without the call, the tally alone.
  EXPECT_EQ(cleared_tool_result(vitest, "call_21"), head(vitest, "call_21") + "\nOutcome kept: Tests  212 passed (212)");
  const std::string django = "<returncode>0</returncode>\n<output>\n....\n----------\nRan 48 tests in 0.211s\n\nOK\n</output>";
  EXPECT_EQ(cleared_tool_result(django, "c2", "bash", R"({"command":"python tests/runtests.py auth_tests"})"),
            head(django, "c2") + "\nOutcome kept: Ran 48 tests in 0.211s; OK");
  // A command's last line, given the call; an edit's none.
  const std::string script = "<returncode>0</returncode>\n<output>\nASCII: rejected\nUnicode: rejected\n</output>";
  EXPECT_EQ(cleared_tool_result(script, "c3", "bash", R"({"command":"python reproduce.py"})"),
            head(script, "c3") + "\nOutcome kept: Unicode: rejected");
  const std::string edit = "<returncode>0</returncode>\n<output>\n</output>";
  EXPECT_EQ(cleared_tool_result(edit, "c4", "bash", R"({"command":"sed -i 's/a/b/' x.py"})"), head(edit, "c4"));
  // Cleared again, it keeps its outcome.
  const std::string once = cleared_tool_result(vitest, "call_21");
  EXPECT_EQ(cleared_tool_result(once, "call_21"), head(once, "call_21") + "\nOutcome kept: Tests  212 passed (212)");
}

// What a read printed is content: its placeholder keeps no lines.
TEST(ClearedToolResult, AReadKeepsNothing) {
  const std::string code =
      "<returncode>0</returncode>\n<output>\n    try:\n        return cache[key]\n    except KeyError:\n        raise ValueError(\"Error: "
      "no key\")\n</output>";
  EXPECT_EQ(cleared_tool_result(code, "c5", "bash", R"({"command":"sed -n '890,910p' django/db/backends/base/schema.py"})"),
            head(code, "c5"));
  const std::string view =
      "Here's the result of running `cat -n` on /testbed/a.py:\n     1\tdef f():\n     2\t    raise KeyError('x')\n     3\texcept "
      "KeyError:";
  EXPECT_EQ(cleared_tool_result(view, "c6", "str_replace_editor", R"({"command":"view","path":"/testbed/a.py"})"), head(view, "c6"));
  // A run that failed keeps why, the line it ended with when no line says.
  const std::string failed = "<returncode>1</returncode>\n<output>\nBug present: True\n</output>";
  EXPECT_EQ(cleared_tool_result(failed, "c7", "bash", R"({"command":"python reproduce.py"})"),
            head(failed, "c7") + "\nError lines kept:\nBug present: True\nexit code 1");
}

TEST(DescribeSize, BytesKilobytesMegabytes) {
  EXPECT_EQ(describe_size(640), "640 B");
  EXPECT_EQ(describe_size(5300), "5.2 KB");
  EXPECT_EQ(describe_size(48 * 1024), "48 KB");
  EXPECT_EQ(describe_size(3 * 1024 * 1024 / 2), "1.5 MB");
}

}  // namespace
}  // namespace ctxwin
