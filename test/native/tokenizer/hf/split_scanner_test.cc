// The hand-written Split scanners against PCRE2 running the same regexes (the path they replace):
// every code point in several contexts, and generated text drawn from every Unicode general
// category next to the ASCII characters the patterns single out.
#include "tokenizer/hf/split_scanner.hpp"

#include <gtest/gtest.h>
#include <utf8proc.h>

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "ctxwin/tokenizer/hf/regex.hpp"
#include "ctxwin/tokenizer/utf8.hpp"
#include "../unicode_text.hpp"

namespace ctxwin::hf {
namespace {

using Matches = std::vector<std::pair<std::size_t, std::size_t>>;

// DeepSeek V3's three Split regexes as its tokenizer.json spells them (JSON string literals),
// decoded as the loader decodes them.
const std::array<std::string, 3>& deepseek_patterns() {
  static const std::array<std::string, 3> patterns = [] {
    const auto decode = [](const char* literal) { return nlohmann::json::parse(literal).get<std::string>(); };
    return std::array<std::string, 3>{
        decode(R"("\\p{N}{1,3}")"),
        decode(R"("[一-龥\u3040-ゟ゠-ヿ]+")"),
        decode(
            R"("[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+")"),
    };
  }();
  return patterns;
}

constexpr std::array<SplitScanner, 3> kScanners = {SplitScanner::DigitsUpTo3, SplitScanner::KanaAndCjk, SplitScanner::DeepSeekWords};

Matches scanned(SplitScanner scanner, std::string_view text) {
  Matches out;
  for_each_scanned_match(scanner, text, [&](std::size_t start, std::size_t end) { out.emplace_back(start, end); });
  return out;
}

Matches regex_matches(const Regex& re, std::string_view text) {
  Matches out;
  re.for_each_match(text, [&](std::size_t start, std::size_t end) { out.emplace_back(start, end); });
  return out;
}

std::vector<Regex> compile() {
  std::vector<Regex> out;
  for (const std::string& pattern : deepseek_patterns()) out.emplace_back(pattern);
  return out;
}

// The first match where the two differ, for a readable failure.
std::string first_difference(std::string_view text, const Matches& ours, const Matches& theirs) {
  std::size_t k = 0;
  while (k < ours.size() && k < theirs.size() && ours[k] == theirs[k]) ++k;
  const auto show = [&](const Matches& m) {
    std::string out;
    if (k >= m.size()) return out.append("(none)");
    out.append("[").append(std::to_string(m[k].first)).append(", ").append(std::to_string(m[k].second)).append(") \"");
    return out.append(text.substr(m[k].first, m[k].second - m[k].first)).append("\"");
  };
  const std::size_t at = k < theirs.size() ? theirs[k].first : (k < ours.size() ? ours[k].first : 0);
  const std::size_t from = at < 16 ? 0 : at - 16;
  std::string hex;
  for (std::size_t b = from; b < text.size() && b < from + 12; ++b) {
    static constexpr char kDigits[] = "0123456789ABCDEF";
    const auto byte = static_cast<unsigned char>(text[b]);
    hex.append(1, kDigits[byte >> 4]).append(1, kDigits[byte & 15]).append(" ");
  }
  return "match " + std::to_string(k) + ": scanner " + show(ours) + ", PCRE2 " + show(theirs) + " near \"" +
         std::string(text.substr(from, 48)) + "\" (bytes " + hex + ")";
}

void expect_same(const std::vector<Regex>& regexes, std::string_view text) {
  for (std::size_t p = 0; p < kScanners.size(); ++p) {
    const Matches ours = scanned(kScanners[p], text);
    const Matches theirs = regex_matches(regexes[p], text);
    ASSERT_EQ(ours, theirs) << "pattern " << p << ": " << first_difference(text, ours, theirs);
  }
}

using unicode_text::by_category;
using unicode_text::comparable;
using unicode_text::every_code_point;
using unicode_text::newer_than_pcre2;

TEST(SplitScanner, UnicodeVersionsDifferOnlyInAFewNewCodePoints) {
  // A bound, so that leaving them out cannot hide a real difference: Unicode 15.0 added 4,489.
  const auto& newer = newer_than_pcre2();
  EXPECT_LT(std::count(newer.begin(), newer.end(), true), 6'000);
}

TEST(SplitScanner, RecognizesDeepSeeksPatternsOnly) {
  for (std::size_t p = 0; p < kScanners.size(); ++p) EXPECT_EQ(recognized_split_scanner(deepseek_patterns()[p]), kScanners[p]);
  EXPECT_EQ(recognized_split_scanner("\\p{N}{1,2}"), std::nullopt);
  EXPECT_EQ(recognized_split_scanner(deepseek_patterns()[2] + "|x"), std::nullopt);
  EXPECT_EQ(recognized_split_scanner(""), std::nullopt);
}

TEST(SplitScanner, EveryCodePointInContext) {
  const std::vector<Regex> regexes = compile();
  // Each code point alone between others, after a space, after ASCII punctuation, before a letter,
  // a mark, a digit, a CR, doubled: the contexts every alternative tests.
  const std::vector<std::pair<std::string, std::string>> contexts = {
      {"", ""}, {" ", "a"}, {"!", "b"}, {"x", "\xCC\x81"}, {"\t", "7"}, {" ", "\r\n"}, {"\xE4\xB8\xAD", " "}, {"", "."}};
  for (const auto& [before, after] : contexts) expect_same(regexes, every_code_point(before, after));
  // Every code point once, in order: runs of one category next to the next.
  std::string all;
  for (char32_t cp = 1; cp <= 0x10FFFF; ++cp)
    if (comparable(cp)) append_utf8(all, cp);
  expect_same(regexes, all);
}

TEST(SplitScanner, GeneratedTextOfEveryCategory) {
  const std::vector<Regex> regexes = compile();
  // What the patterns single out: ASCII punctuation before letters, spaces before symbols, CR/LF
  // after symbols, whitespace runs of each kind, digits in runs, kana and CJK at the ranges' edges.
  const std::vector<std::string> fragments = {" ",
                                              "  ",
                                              "\n",
                                              "\r\n",
                                              "\r",
                                              "\t",
                                              "\xC2\x85",
                                              "\xC2\xA0",
                                              "\xE3\x80\x80",
                                              "'",
                                              "'s",
                                              "!",
                                              "...",
                                              ".a",
                                              "-",
                                              "_x",
                                              "`",
                                              "~~",
                                              "abc",
                                              "Z",
                                              "aB",
                                              "1",
                                              "12",
                                              "1234",
                                              "$5",
                                              "\xD9\xA1" /* Arabic-Indic 1 */,
                                              "\xE4\xB8\x80" /* U+4E00 */,
                                              "\xE9\xBE\xA5" /* U+9FA5 */,
                                              "\xE9\xBE\xA6" /* U+9FA6 */,
                                              "\xE3\x81\x80" /* U+3040 */,
                                              "\xE3\x83\xBF" /* U+30FF */,
                                              "\xE3\x84\x80" /* U+3100 */,
                                              "\xE3\x81\x8B\xE3\x81\xAA" /* kana */,
                                              "e\xCC\x81",
                                              "\xCC\x81",
                                              "\xF0\x9F\x98\x80"};
  std::mt19937 random(40);
  for (int round = 0; round < 100'000; ++round) {
    std::string text;
    const int length = static_cast<int>(random() % 20);
    for (int k = 0; k < length; ++k) {
      if (random() % 2 == 0) {
        text += fragments[random() % fragments.size()];
        continue;
      }
      const auto& pool = by_category()[random() % by_category().size()];
      if (!pool.empty()) append_utf8(text, pool[random() % pool.size()]);
    }
    expect_same(regexes, text);
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace ctxwin::hf
