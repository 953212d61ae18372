#include "ctxwin/summary/task_digest.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ctxwin {
namespace {

std::string digest(const std::vector<std::string>& lines, bool complete = false) {
  std::vector<std::string_view> views(lines.begin(), lines.end());
  TaskDigestOptions options;
  options.complete = complete;
  return summarize_task(views, options);
}

bool contains(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

const std::vector<std::string> kSession = {
    R"({"type":"message","role":"user","content":"Due dates are one day early west of UTC. Fix it; do not touch the PDF writer."})",
    R"({"type":"message","role":"assistant","content":"Read the date utility."})",
    R"({"type":"tool_call","toolName":"read_file","toolCallId":"c1","args":{"path":"src/util/dates.ts"}})",
    R"({"type":"tool_result","toolCallId":"c1","result":"export function parseIsoDate(value) { return new Date(value); }"})",
    R"j({"type":"tool_call","toolName":"edit_file","toolCallId":"c2","args":{"path":"src/util/dates.ts","find":"new Date(value)","replace":"parseInZone(value, zone)"}})j",
    R"({"type":"tool_result","toolCallId":"c2","result":"{\"replaced\":1}"})",
    R"({"type":"tool_call","toolName":"run_tests","toolCallId":"c3","args":{"filter":"export"}})",
    R"j({"type":"tool_result","toolCallId":"c3","result":"TypeScript error TS2304: Cannot find name 'parseInZone' (src/util/dates.ts:41:12)"})j",
    R"({"type":"tool_call","toolName":"read_file","toolCallId":"c4","args":{"path":"src/util/date.ts"}})",
    R"({"type":"tool_result","toolCallId":"c4","result":"ENOENT: no such file or directory, open 'src/util/date.ts'"})",
    R"({"type":"tool_call","toolName":"read_file","toolCallId":"c5","args":{"path":"src/util/locale.ts"}})",
    R"({"type":"tool_result","toolCallId":"c5","result":"export const zone = 'UTC';"})",
    R"({"type":"tool_call","toolName":"run_command","toolCallId":"c6","args":{"command":"npx eslint src/util/dates.ts"}})",
    R"({"type":"tool_result","toolCallId":"c6","result":"0 problems"})",
    R"({"type":"message","role":"assistant","content":"Add the missing parseInZone helper next."})",
};

TEST(SummarizeTask, WritesTheSectionsAnAgentNeedsToContinue) {
  const std::string d = digest(kSession);
  EXPECT_TRUE(d.starts_with("Goal (the user's words): \"Due dates are one day early west of UTC. Fix it; do not "
                            "touch the PDF writer.\"\nFiles changed"))
      << d;
  EXPECT_TRUE(contains(d, "\nFiles changed: src/util/dates.ts.\n")) << d;
  // The test failure is still open; the ENOENT of read_file was followed by a good read_file.
  EXPECT_TRUE(contains(d, "Errors still open: \"TypeScript error TS2304: Cannot find name 'parseInZone' "
                          "(src/util/dates.ts:41:12)\" (run_tests)"))
      << d;
  EXPECT_TRUE(contains(d, "Commands run, newest first: `npx eslint src/util/dates.ts` -> \"0 problems\"; "
                          "run_tests {\"filter\":\"export\"} -> \"failed: TypeScript error TS2304"))
      << d;
  EXPECT_TRUE(contains(d, "Next step (last stated): \"Add the missing parseInZone helper next\"")) << d;
  EXPECT_TRUE(contains(d, "Files read: src/util/date.ts and src/util/locale.ts")) << d;
  EXPECT_TRUE(contains(d, "Errors since resolved: \"ENOENT: no such file or directory, open 'src/util/date.ts'\"")) << d;
  EXPECT_TRUE(contains(d, "src/util/dates.ts:41")) << d;
}

TEST(SummarizeTask, TheMostNeededSectionsComeFirst) {
  const std::string d = digest(kSession);
  const auto at = [&](std::string_view s) { return d.find(s); };
  EXPECT_LT(at("Goal"), at("Files changed"));
  EXPECT_LT(at("Files changed"), at("Errors still open"));
  EXPECT_LT(at("Errors still open"), at("Commands run"));
  EXPECT_LT(at("Commands run"), at("Files read"));
}

TEST(SummarizeTask, ASuccessOfTheSameToolClosesItsError) {
  std::vector<std::string> lines(kSession.begin(), kSession.end());
  lines.push_back(R"({"type":"tool_call","toolName":"run_tests","toolCallId":"c7","args":{"filter":""}})");
  lines.push_back(R"j({"type":"tool_result","toolCallId":"c7","result":"Tests  0 failed | 212 passed (212)"})j");
  const std::string d = digest(lines);
  EXPECT_FALSE(contains(d, "Errors still open")) << d;
  EXPECT_TRUE(contains(d, "run_tests {\"filter\":\"\"} -> \"Tests 0 failed | 212 passed (212)\"")) << d;
  EXPECT_TRUE(contains(d, "212 passed")) << d;
}

TEST(SummarizeTask, ErrorEventsAndHostileInput) {
  const std::string d = digest({R"({"type":"tool_call","toolName":"deploy","toolCallId":"x","args":{}})",
                                R"({"type":"error","toolCallId":"x","error":"permission denied"})", "{not json",
                                std::string("\0\xff", 2)});
  EXPECT_TRUE(contains(d, "Errors still open: \"permission denied\" (deploy)")) << d;
  EXPECT_EQ(digest({}), "Nothing to carry over: no messages or tool calls.");
}

TEST(SummarizeTask, BoundedListsUnlessComplete) {
  std::vector<std::string> lines;
  for (int i = 0; i < 20; ++i) {
    const std::string id = std::to_string(i);
    lines.push_back(R"({"type":"tool_call","toolName":"read_file","toolCallId":")" + id +
                    R"(","args":{"path":"src/f)" + id + R"(.ts"}})");
    lines.push_back(R"({"type":"tool_result","toolCallId":")" + id + R"(","result":"ok"})");
  }
  EXPECT_TRUE(contains(digest(lines), "and 12 more")) << digest(lines);
  const std::string all = digest(lines, true);
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(contains(all, "src/f" + std::to_string(i) + ".ts")) << all;
}

}  // namespace
}  // namespace ctxwin
