#include "ctxwin/compaction/cleared_result.hpp"

#include <gtest/gtest.h>

#include <string>

namespace ctxwin {
namespace {

TEST(ClearedToolResult, SizeIdAndTheErrorLines) {
  std::string log(5000, 'x');
  log += "\nFAIL test/billing.test.ts > ledger > rejects a duplicate charge\nError: duplicate charge detected for ch_17_5\n"
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

TEST(DescribeSize, BytesKilobytesMegabytes) {
  EXPECT_EQ(describe_size(640), "640 B");
  EXPECT_EQ(describe_size(5300), "5.2 KB");
  EXPECT_EQ(describe_size(48 * 1024), "48 KB");
  EXPECT_EQ(describe_size(3 * 1024 * 1024 / 2), "1.5 MB");
}

}  // namespace
}  // namespace ctxwin
