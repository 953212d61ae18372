#include "ctxwin/summary/text_facts.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ctxwin {
namespace {

struct Found {
  std::vector<std::string> paths;
  std::vector<std::string> numbers;
};

Found scan(std::string_view text) {
  OrderedSet paths;
  OrderedSet numbers;
  collect_paths_and_numbers(text, paths, numbers);
  return {paths.items(), numbers.items()};
}

TEST(CollectPathsAndNumbers, FindsPathsOfManyShapes) {
  auto found = scan(
      "Read src/index.ts and ./lib/util.js, then /etc/hosts, ~/notes/todo and README.md. "
      "See https://example.com/a/b too.");
  EXPECT_EQ(found.paths, (std::vector<std::string>{"src/index.ts", "./lib/util.js", "/etc/hosts", "~/notes/todo", "README.md",
                                                   "https://example.com/a/b"}));
}

TEST(CollectPathsAndNumbers, IgnoresWordsThatOnlyLookLikePaths) {
  auto found = scan("and/or input/output e.g. v1.2 3.5 N/A");
  EXPECT_TRUE(found.paths.empty());
  EXPECT_EQ(found.numbers, (std::vector<std::string>{"3.5"}));
}

TEST(CollectPathsAndNumbers, SplitsLineNumbersOffPaths) {
  auto found = scan("error at src/app.ts:42:7");
  EXPECT_EQ(found.paths, (std::vector<std::string>{"src/app.ts"}));
  EXPECT_EQ(found.numbers, (std::vector<std::string>{"42", "7"}));
}

TEST(CollectPathsAndNumbers, NumbersWithUnitsSignsAndSeparators) {
  auto found = scan("took 120ms, 42 passed, 3 failed (-5 delta), 12,345 rows, 99.5% cover, 4KB");
  EXPECT_EQ(found.numbers, (std::vector<std::string>{"120ms", "42", "3", "-5", "12,345", "99.5%", "4KB"}));
}

TEST(CollectPathsAndNumbers, DigitsInsideIdentifiersAreNotNumbers) {
  auto found = scan("utf8 call_123 v2 3rd sha256 x86_64");
  EXPECT_TRUE(found.numbers.empty());
}

TEST(CollectPathsAndNumbers, DeduplicatesInFirstSeenOrder) {
  auto found = scan("2 1 2 a.md a.md 1");
  EXPECT_EQ(found.numbers, (std::vector<std::string>{"2", "1"}));
  EXPECT_EQ(found.paths, (std::vector<std::string>{"a.md"}));
}

TEST(CollectPathsAndNumbers, ToleratesInvalidUtf8) {
  std::string text = "bad \xff\xfe bytes in caf\xc3 7 files";
  auto found = scan(text);
  EXPECT_EQ(found.numbers, (std::vector<std::string>{"7"}));
}

TEST(Excerpt, FirstSentenceWithWhitespaceCollapsed) {
  EXPECT_EQ(excerpt("  Fixed   the\tbug. Then more.", 100), "Fixed the bug");
  EXPECT_EQ(excerpt("first line\nsecond line", 100), "first line");
  EXPECT_EQ(excerpt("", 100), "");
  EXPECT_EQ(excerpt("version 1.2.3 shipped", 100), "version 1.2.3 shipped");
}

TEST(Excerpt, CutsLongTextAtAGraphemeBoundary) {
  EXPECT_EQ(excerpt("abcdefghij", 4), "abcd...");
  // A family emoji is one grapheme of several code points: it is never split.
  const std::string family = "\xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9";  // man ZWJ woman
  EXPECT_EQ(excerpt("ab" + family + "cd", 3), "ab...");
  // Multi-byte characters are cut on code-point boundaries.
  EXPECT_EQ(excerpt("\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9", 2), "\xC3\xA9\xC3\xA9...");
}

TEST(JoinList, CommasAndAndMore) {
  EXPECT_EQ(join_list({}, 3), "");
  EXPECT_EQ(join_list({"a"}, 3), "a");
  EXPECT_EQ(join_list({"a", "b"}, 3), "a and b");
  EXPECT_EQ(join_list({"a", "b", "c"}, 3), "a, b and c");
  EXPECT_EQ(join_list({"a", "b", "c", "d", "e"}, 3), "a, b, c and 2 more");
}

}  // namespace
}  // namespace ctxwin

namespace ctxwin {
namespace {

std::vector<std::string> figures(std::string_view text) {
  OrderedSet paths;
  OrderedSet found;
  collect_paths_and_figures(text, paths, found);
  return found.items();
}

TEST(CollectPathsAndFigures, ANumberComesWithWhatItCounts) {
  EXPECT_EQ(figures("All 212 tests pass"), (std::vector<std::string>{"212 tests"}));
  EXPECT_EQ(figures("Tests  3 failed | 209 passed (212)\nDuration  3.10s"),
            (std::vector<std::string>{"3 failed", "209 passed", "Duration 3.10s"}));
  EXPECT_EQ(figures("Deployed version 2.4 to staging"), (std::vector<std::string>{"version 2.4"}));
  EXPECT_EQ(figures("retries=3 timeout: 30"), (std::vector<std::string>{"retries 3", "timeout 30"}));
}

TEST(CollectPathsAndFigures, APathKeepsItsLine) {
  OrderedSet paths;
  OrderedSet found;
  collect_paths_and_figures("TS2304 at src/util/dates.ts:41:12", paths, found);
  EXPECT_EQ(paths.items(), (std::vector<std::string>{"src/util/dates.ts"}));
  EXPECT_EQ(found.items(), (std::vector<std::string>{"src/util/dates.ts:41"}));
}

TEST(CollectPathsAndFigures, BareNumbersAreLeftOut) {
  EXPECT_TRUE(figures("100, 945, 3, 0, 618").empty());
  EXPECT_TRUE(figures("(212)").empty());
  // Numbers that say what they are by themselves stay.
  EXPECT_EQ(figures("120ms, 99.5%, 2024-03-31, 3.6.0"), (std::vector<std::string>{"120ms", "99.5%", "2024-03-31", "3.6.0"}));
}

TEST(CollectPathsAndNumbers, DatesAndVersionsAreOneFigure) {
  auto found = scan("expected '2024-03-31' to be 2024-04-01T08:15:00Z; bump 3.6.0 and 1,2,3");
  EXPECT_EQ(found.numbers, (std::vector<std::string>{"2024-03-31", "2024-04-01T08:15:00Z", "3.6.0", "1", "2", "3"}));
}

}  // namespace
}  // namespace ctxwin
