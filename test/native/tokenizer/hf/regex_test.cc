// Regex (PCRE2) and its agreement with the hand-written pretokenizer on the patterns both run.
#include "ctxwin/tokenizer/hf/regex.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "ctxwin/error.hpp"
#include "ctxwin/tokenizer/bpe/pretokenizer.hpp"

namespace ctxwin {
namespace {

std::vector<std::string> matches(const Regex& re, std::string_view text) {
  std::vector<std::string> out;
  re.for_each_match(text, [&](std::size_t start, std::size_t end) { out.emplace_back(text.substr(start, end - start)); });
  return out;
}

TEST(Regex, WhitespaceIsOnigurumas) {
  const Regex space("\\s");
  EXPECT_EQ(matches(space, "a\xC2\x85" "b").size(), 1u);      // U+0085 NEXT LINE is \s
  EXPECT_EQ(matches(space, "a\xEF\xBB\xBF" "b").size(), 0u);  // U+FEFF is not
  EXPECT_EQ(matches(space, "\xE3\x80\x80").size(), 1u);       // U+3000
}

TEST(Regex, EmptyMatchesStepForward) {
  EXPECT_EQ(matches(Regex("x*"), "ab\xC3\xA9xx"), (std::vector<std::string>{"xx"}));
}

TEST(Regex, BadPatternIsNamed) {
  try {
    Regex bad("(unclosed");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::UnsupportedTokenizer);
    EXPECT_NE(std::string(e.what()).find("(unclosed"), std::string::npos);
  }
}

// The hand-written pretokenizer and PCRE2 cut the same pieces from pseudo-random text made of the
// characters these patterns treat differently.
TEST(Regex, AgreesWithTheHandWrittenPretokenizer) {
  const std::pair<Pattern, const char*> patterns[] = {
      {Pattern::Cl100k,
       R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)"},
      {Pattern::Cl100kSingleDigit,
       R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)"},
      {Pattern::O200k,
       R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)"},
      {Pattern::R50k, R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)"},
  };
  const std::vector<std::string> alphabet = {
      " ", "  ", "\n", "\r", "\t", "\xC2\x85", "\xEF\xBB\xBF", "\xC2\xA0", "\xE3\x80\x80", "a", "Z", "\xC3\xA9", "e\xCC\x81",
      "\xC5\xBF" /* long s */, "'", "s", "S", "ll", "LL", "re", "1", "\xD9\xA1" /* Arabic-Indic 1 */, "\xC2\xBD", "/", ".",
      "\xE4\xB8\xAD", "\xF0\x9F\x98\x80", "\xC7\x85" /* Dz titlecase */, "\xCA\xB0" /* Lm */, "_", "-"};
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
