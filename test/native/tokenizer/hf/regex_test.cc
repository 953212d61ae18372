// Regex (PCRE2) and its agreement with the hand-written pretokenizer on the patterns both run.
#include "ctxwin/tokenizer/hf/regex.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "ctxwin/error.hpp"
#include "ctxwin/tokenizer/bpe/pretokenizer.hpp"
#include "../openai_patterns.hpp"

namespace ctxwin {
namespace {

std::vector<std::string> matches(const Regex& re, std::string_view text) {
  std::vector<std::string> out;
  re.for_each_match(text, [&](std::size_t start, std::size_t end) { out.emplace_back(text.substr(start, end - start)); });
  return out;
}

TEST(Regex, WhitespaceIsOnigurumas) {
  const Regex space("\\s");
  EXPECT_EQ(matches(space,
                    "a\xC2\x85"
                    "b")
                .size(),
            1u);  // U+0085 NEXT LINE is \s
  EXPECT_EQ(matches(space,
                    "a\xEF\xBB\xBF"
                    "b")
                .size(),
            0u);                                         // U+FEFF is not
  EXPECT_EQ(matches(space, "\xE3\x80\x80").size(), 1u);  // U+3000
}

TEST(Regex, EmptyMatchesStepForward) { EXPECT_EQ(matches(Regex("x*"), "ab\xC3\xA9xx"), (std::vector<std::string>{"xx"})); }

TEST(Regex, BadPatternIsNamed) {
  try {
    Regex bad("(unclosed");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::UnsupportedTokenizer);
    EXPECT_NE(std::string(e.what()).find("(unclosed"), std::string::npos);
  }
}

ErrorCode budget_error(const Regex& re, std::string_view text, std::string& message) {
  try {
    matches(re, text);
  } catch (const Error& e) {
    message = e.what();
    return e.code();
  }
  return ErrorCode::Unknown;
}

// `(?:(?:a|a){1,21}b)|.` tries 2^21 ways at each `a` before it falls back to `.`: without a bound,
// 20 ms a character. Each attempt's step limit stops it at the first one.
TEST(Regex, ExponentialBacktrackingIsRefusedNamingThePattern) {
  const Regex re("(?:(?:a|a){1,21}b)|.");
  std::string message;
  EXPECT_EQ(budget_error(re, std::string(3000, 'a'), message), ErrorCode::RegexBudget);
  EXPECT_NE(message.find("(?:(?:a|a){1,21}b)|."), std::string::npos) << message;
  EXPECT_NE(message.find("backtracking steps"), std::string::npos) << message;
  // The same pattern on text it matches at once is fine.
  EXPECT_EQ(matches(re, "xyz"), (std::vector<std::string>{"x", "y", "z"}));
}

// `a*b|.` reads the rest of a run of `a` at each position, a few steps a byte each time: within
// each attempt's limit, quadratic in all. The CPU-time budget of the count stops it.
TEST(Regex, QuadraticBacktrackingIsStoppedByTheTimeBudget) {
  const Regex re("a*b|.");
  std::string message;
  EXPECT_EQ(budget_error(re, std::string(100'000, 'a'), message), ErrorCode::RegexBudget);
  EXPECT_NE(message.find("CPU time"), std::string::npos) << message;
}

// One budget spent by many searches: a count's stages share it, so cutting a text into many small
// parts does not buy more time.
TEST(Regex, ABudgetIsSharedByTheSearchesOfOneCount) {
  const Regex re("a*b|.");
  const std::string part(3'000, 'a');  // milliseconds each: far inside a budget of its own
  EXPECT_NO_THROW(matches(re, part));
  RegexBudget budget(part.size());
  try {
    for (int k = 0; k < 1000; ++k) re.for_each_match(part, budget, [](std::size_t, std::size_t) {});
    ADD_FAILURE() << "1000 searches fit the budget of one";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::RegexBudget);
  }
}

// The patterns of real tokenizers on long runs stay inside the budget.
TEST(Regex, TokenizerPatternsOnLongRunsStayInsideTheBudget) {
  const Regex cl100k(
      R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)");
  for (const std::string& text : {std::string(1 << 20, ' ') + "x", std::string(1 << 20, 'a'), std::string(1 << 20, '!'),
                                  std::string(1 << 19, '\n') + std::string(1 << 19, ' ') + "x"}) {
    std::size_t covered = 0;
    cl100k.for_each_match(text, [&](std::size_t start, std::size_t end) {
      EXPECT_EQ(start, covered);
      covered = end;
    });
    EXPECT_EQ(covered, text.size());
  }
}

// The hand-written pretokenizer and PCRE2 cut the same pieces from pseudo-random text made of the
// characters these patterns treat differently.
TEST(Regex, AgreesWithTheHandWrittenPretokenizer) {
  const auto& patterns = openai_patterns::kPatterns;

  const std::vector<std::string> alphabet = {" ",
                                             "  ",
                                             "\n",
                                             "\r",
                                             "\t",
                                             "\xC2\x85",
                                             "\xEF\xBB\xBF",
                                             "\xC2\xA0",
                                             "\xE3\x80\x80",
                                             "a",
                                             "Z",
                                             "\xC3\xA9",
                                             "e\xCC\x81",
                                             "\xC5\xBF" /* long s */,
                                             "'",
                                             "s",
                                             "S",
                                             "ll",
                                             "LL",
                                             "re",
                                             "1",
                                             "\xD9\xA1" /* Arabic-Indic 1 */,
                                             "\xC2\xBD",
                                             "/",
                                             ".",
                                             "\xE4\xB8\xAD",
                                             "\xF0\x9F\x98\x80",
                                             "\xC7\x85" /* Dz titlecase */,
                                             "\xCA\xB0" /* Lm */,
                                             "_",
                                             "-"};
  std::mt19937 random(12345);
  for (const auto& [pattern, source] : patterns) {
    const Regex re(source);
    for (int round = 0; round < 3000; ++round) {
      std::string text;
      const int length = static_cast<int>(random() % 24);
      for (int k = 0; k < length; ++k) text += alphabet[random() % alphabet.size()];
      std::vector<std::string> hand;
      Pretokenizer pieces(pattern, text);
      for (std::string_view piece; pieces.next(piece);) hand.emplace_back(piece);
      ASSERT_EQ(hand, matches(re, text)) << "pattern " << static_cast<int>(pattern) << " on \"" << text << "\"";
    }
  }
}

}  // namespace
}  // namespace ctxwin
