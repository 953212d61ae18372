// The hand-written pretokenizer (tiktoken's patterns, and so Llama 3's and Qwen 3's tokenizer.json
// Split patterns: cl100k and cl100k with single digits) against PCRE2 running the same regexes on
// text from all of Unicode: every code point in several contexts, and generated text drawn from
// every general category next to the ASCII the patterns single out.
// pretokenizer_quick_paths_test.cc covers the ASCII quick paths' edges.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "ctxwin/tokenizer/bpe/pretokenizer.hpp"
#include "ctxwin/tokenizer/hf/regex.hpp"
#include "ctxwin/tokenizer/utf8.hpp"
#include "../openai_patterns.hpp"
#include "../unicode_text.hpp"

namespace ctxwin {
namespace {

using openai_patterns::kPatterns;
using Matches = std::vector<std::pair<std::size_t, std::size_t>>;

Matches pieces_of(Pattern pattern, std::string_view text) {
  Matches out;
  Pretokenizer pieces(pattern, text);
  for (std::string_view piece; pieces.next(piece);) {
    const auto start = static_cast<std::size_t>(piece.data() - text.data());
    out.emplace_back(start, start + piece.size());
  }
  return out;
}

Matches regex_matches(const Regex& re, std::string_view text) {
  Matches out;
  re.for_each_match(text, [&](std::size_t start, std::size_t end) { out.emplace_back(start, end); });
  return out;
}

std::string near(std::string_view text, const Matches& ours, const Matches& theirs) {
  std::size_t k = 0;
  while (k < ours.size() && k < theirs.size() && ours[k] == theirs[k]) ++k;
  const std::size_t at = k < theirs.size() ? theirs[k].first : (k < ours.size() ? ours[k].first : 0);
  const std::size_t from = at < 16 ? 0 : at - 16;
  std::string out("piece ");
  return out.append(std::to_string(k))
      .append(" at byte ")
      .append(std::to_string(at))
      .append(", near \"")
      .append(text.substr(from, 48))
      .append("\"");
}

void expect_same(const std::vector<Regex>& regexes, std::string_view text) {
  for (std::size_t p = 0; p < std::size(kPatterns); ++p) {
    const Matches ours = pieces_of(kPatterns[p].first, text);
    const Matches theirs = regex_matches(regexes[p], text);
    ASSERT_EQ(ours, theirs) << "pattern " << static_cast<int>(kPatterns[p].first) << ": " << near(text, ours, theirs);
  }
}

std::vector<Regex> compile() {
  std::vector<Regex> out;
  for (const auto& pattern : kPatterns) out.emplace_back(pattern.second);
  return out;
}

TEST(PretokenizerUnicode, EveryCodePointInContext) {
  const std::vector<Regex> regexes = compile();
  // After a space or an apostrophe (contractions), before a letter, a mark, a digit, CR/LF, a
  // slash (o200k's [\r\n/]*); every seventh doubled.
  const std::vector<std::pair<std::string, std::string>> contexts = {{" ", "a"},  {"'", "s"},    {"x", "\xCC\x81"},
                                                                     {"\t", "7"}, {" ", "\r\n"}, {"A", "/"}};
  for (const auto& [before, after] : contexts) expect_same(regexes, unicode_text::every_code_point(before, after));
}

TEST(PretokenizerUnicode, GeneratedTextOfEveryCategory) {
  const std::vector<Regex> regexes = compile();
  const std::vector<std::string> fragments = {
      " ",        "  ",           "\n",       "\r\n",      "\r",       "\t",           "\xC2\x85",
      "\xC2\xA0", "\xE3\x80\x80", "'",        "'s",        "'LL",      "'ve",          "\xC5\xBF" /* long s */,
      "!",        "...",          "/",        "abc",       "Z",        "aB",           "1",
      "12",       "1234",         "\xD9\xA1", "e\xCC\x81", "\xCC\x81", "\xE4\xB8\xAD", "\xF0\x9F\x98\x80"};
  const auto& pools = unicode_text::by_category();
  std::mt19937 random(4040);
  for (int round = 0; round < 50'000; ++round) {
    std::string text;
    const int length = static_cast<int>(random() % 20);
    for (int k = 0; k < length; ++k) {
      if (random() % 2 == 0) {
        text += fragments[random() % fragments.size()];
        continue;
      }
      const auto& pool = pools[random() % pools.size()];
      if (!pool.empty()) append_utf8(text, pool[random() % pool.size()]);
    }
    expect_same(regexes, text);
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace ctxwin
