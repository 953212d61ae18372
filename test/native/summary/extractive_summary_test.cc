#include "ctxwin/summary/extractive_summary.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ctxwin {
namespace {

std::string summarize(const std::vector<std::string>& lines) {
  std::vector<std::string_view> views(lines.begin(), lines.end());
  return summarize_extractive(views);
}

bool contains(const std::string& haystack, std::string_view needle) { return haystack.find(needle) != std::string::npos; }

const std::vector<std::string> kIteration = {
    R"({"type":"tool_call","timestamp":1700000000000,"iteration":4,"toolName":"read_file","toolCallId":"call_17","args":{"path":"src/parser.ts"}})",
    R"({"type":"tool_result","timestamp":1700000000100,"iteration":4,"toolCallId":"call_17","result":"export function parse() { /* 214 lines */ }"})",
    R"({"type":"tool_call","timestamp":1700000000200,"iteration":4,"toolName":"run_tests","toolCallId":"call_18","args":{"filter":"parser","timeoutMs":30000}})",
    R"({"type":"error","timestamp":1700000000300,"iteration":4,"toolCallId":"call_18","error":"3 tests failed in test/parser.test.ts","recoverable":true})",
};

TEST(SummarizeExtractive, KeepsToolsPathsNumbersAndErrors) {
  const std::string summary = summarize(kIteration);
  EXPECT_EQ(summary,
            "Called read_file (1x) and run_tests (1x) and received 1 result. Referenced "
            "src/parser.ts and test/parser.test.ts, with 214 lines, timeoutMs 30000 and 3 tests. Error: \"3 "
            "tests failed in test/parser.test.ts\".");
}

TEST(SummarizeExtractive, NeverListsBareNumbers) {
  // A tool result full of numbers that say nothing alone (ids, coordinates, a list).
  const std::string summary = summarize({
      R"({"type":"tool_call","toolName":"run_tests","toolCallId":"c1","args":{"filter":"dates"}})",
      R"({"type":"tool_result","toolCallId":"c1","result":"values 100, 945, 3, 0, 618\nTests  3 failed | 209 passed (212)\n  at src/util/dates.ts:41:18"})",
  });
  EXPECT_TRUE(contains(summary, "3 failed")) << summary;
  EXPECT_TRUE(contains(summary, "209 passed")) << summary;
  EXPECT_TRUE(contains(summary, "src/util/dates.ts")) << summary;
  EXPECT_FALSE(contains(summary, "945")) << summary;
  EXPECT_FALSE(contains(summary, "618")) << summary;
  EXPECT_FALSE(contains(summary, "the figures")) << summary;
}

TEST(SummarizeExtractive, IsDeterministic) { EXPECT_EQ(summarize(kIteration), summarize(kIteration)); }

TEST(SummarizeExtractive, IgnoresIdsAndClocks) {
  const std::string summary = summarize(kIteration);
  EXPECT_FALSE(contains(summary, "1700000000"));
  EXPECT_FALSE(contains(summary, "call_17"));
}

TEST(SummarizeExtractive, MessagesQuestionsAndCompletion) {
  const std::string summary = summarize({
      R"({"type":"message","timestamp":1,"iteration":1,"role":"user","content":"Please fix the login bug. It started yesterday."})",
      R"({"type":"human_input_requested","timestamp":2,"iteration":1,"question":"Which branch?"})",
      R"({"type":"human_input_received","timestamp":3,"iteration":1,"response":"main"})",
      R"({"type":"completion","timestamp":4,"iteration":1,"result":"Fixed the login bug in auth/session.ts.","verified":true})",
  });
  EXPECT_EQ(summary,
            "User said \"Please fix the login bug\"; asked the human \"Which branch?\"; the "
            "human answered \"main\". Referenced auth/session.ts. Completed (verified): \"Fixed "
            "the login bug in auth/session.ts\".");
}

TEST(SummarizeExtractive, AlwaysTwoOrThreeSentences) {
  EXPECT_EQ(summarize({}), "Recorded 0 events. No errors were reported.");
  EXPECT_EQ(summarize({R"({"type":"tool_result","iteration":1,"timestamp":1,"toolCallId":"x","result":null})"}),
            "Received 1 tool result. No errors were reported.");
}

TEST(SummarizeExtractive, PlainTextIsExcerpted) {
  EXPECT_EQ(summarize({"Deployed version 2.4 to staging. Nothing else happened."}),
            "Deployed version 2.4 to staging. Mentioned version 2.4. No errors were reported.");
}

TEST(SummarizeExtractive, ErrorsAreDeduplicatedAndBounded) {
  std::vector<std::string> lines;
  for (int i = 0; i < 8; ++i) {
    lines.push_back(R"({"type":"error","iteration":1,"timestamp":1,"error":"E)" + std::to_string(i % 7) + R"(","recoverable":false})");
  }
  const std::string summary = summarize(lines);
  EXPECT_TRUE(contains(summary, "Errors: \"E0\"; \"E1\"; \"E2\"; \"E3\"; \"E4\" and 2 more."));
}

TEST(SummarizeExtractive, SurvivesHostileInput) {
  std::string deep(10000, '[');
  deep += std::string(10000, ']');
  std::string nested = R"({"type":"tool_result","result":)" + deep + "}";
  EXPECT_FALSE(summarize({nested, "{not json", std::string("\0\xff", 2), ""}).empty());
}

// What a read printed (a file's `except` and `raise ...("Error: ...")`) is content, not an error;
// what a run printed is its outcome.
TEST(SummarizeExtractive, ErrorsComeFromRunsNotFromWhatAReadPrinted) {
  const std::string summary = summarize({
      R"({"type":"tool_call","toolName":"bash","toolCallId":"r1","args":{"command":"sed -n '1,40p' src/cache.py"}})",
      R"({"type":"tool_result","toolCallId":"r1","result":"    except KeyError:\n        raise LookupError(\"Error: missing key\")\nKeyError: 'from a docstring'"})",
      R"({"type":"tool_call","toolName":"bash","toolCallId":"r2","args":{"command":"python reproduce.py"}})",
      R"({"type":"tool_result","toolCallId":"r2","result":"Traceback (most recent call last):\nKeyError: 'name'"})",
  });
  EXPECT_TRUE(contains(summary, "Errors: \"Traceback (most recent call last)\"; \"KeyError: 'name'\".")) << summary;
  EXPECT_FALSE(contains(summary, "docstring")) << summary;
}

TEST(SummarizePrompt, ReadsOnlyTheJsonLinesWhenThereAreAny) {
  std::string prompt =
      "Summarize the following agent iteration events in 2-3 sentences. Focus on what tools "
      "were called, what was accomplished, and any errors:\n\n";
  for (const auto& line : kIteration) prompt += line + "\n";
  EXPECT_EQ(summarize_prompt(prompt), summarize(kIteration));
}

TEST(SummarizePrompt, PlainPromptIsReadAsText) {
  EXPECT_EQ(summarize_prompt("Moved 12 files into lib/. Done."), "Moved 12 files into lib/. Mentioned 12 files. No errors were reported.");
}

TEST(FailureDigest, AppendsTheReason) {
  std::vector<std::string_view> views(kIteration.begin(), kIteration.end());
  const std::string digest = failure_digest(views, "rate limited");
  EXPECT_TRUE(digest.starts_with(summarize(kIteration)));
  EXPECT_TRUE(digest.ends_with(" (summarization failed: rate limited)"));
}

}  // namespace
}  // namespace ctxwin
