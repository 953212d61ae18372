// The pretokenizer's ASCII quick paths (eight bytes at a time) against its general matcher and
// against PCRE2 running OpenAI's patterns, on generated text built to break them: words, numbers,
// punctuation and whitespace runs that end at every offset of an eight-byte word, a non-ASCII byte
// at every offset of one, contractions right after a word's end, and text that ends mid-run.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "ctxwin/tokenizer/bpe/pretokenizer.hpp"
#include "ctxwin/tokenizer/hf/regex.hpp"
#include "../openai_patterns.hpp"

namespace ctxwin {
namespace {

using openai_patterns::kPatterns;

std::vector<std::string> pieces_of(Pattern pattern, std::string_view text, Matching matching) {
  std::vector<std::string> out;
  Pretokenizer pieces(pattern, text, matching);
  for (std::string_view piece; pieces.next(piece);) out.emplace_back(piece);
  return out;
}

std::vector<std::string> regex_pieces(const Regex& re, std::string_view text) {
  std::vector<std::string> out;
  re.for_each_match(text, [&](std::size_t start, std::size_t end) { out.emplace_back(text.substr(start, end - start)); });
  return out;
}

// OpenAI's patterns, compiled once per test.
std::vector<Regex> compile_patterns() {
  std::vector<Regex> out;
  for (const auto& pattern : kPatterns) out.emplace_back(pattern.second);
  return out;
}

// Every pattern cuts `text` the same three ways.
void expect_same_pieces(const std::vector<Regex>& regexes, std::string_view text) {
  for (std::size_t p = 0; p < std::size(kPatterns); ++p) {
    const Pattern pattern = kPatterns[p].first;
    const auto quick = pieces_of(pattern, text, Matching::WithAsciiQuickPaths);
    ASSERT_EQ(quick, pieces_of(pattern, text, Matching::GeneralOnly))
        << "pattern " << static_cast<int>(pattern) << " on \"" << text << "\"";
    ASSERT_EQ(quick, regex_pieces(regexes[p], text)) << "pattern " << static_cast<int>(pattern) << " on \"" << text << "\"";
  }
}

// What can follow a run: every class the patterns tell apart, ASCII and not.
const std::vector<std::string> kFollowers = {"",
                                             " ",
                                             "  ",
                                             "\n",
                                             "\r\n",
                                             "\t",
                                             "'s",
                                             "'LL",
                                             "'ve",
                                             "'",
                                             "\xC5\xBF" /* long s, folds to s */,
                                             "\xC3\xA9" /* é */,
                                             "\xC3\x89" /* É */,
                                             "e\xCC\x81" /* e + combining acute */,
                                             "\xCC\x81" /* combining acute alone */,
                                             "1",
                                             "123",
                                             "\xD9\xA1" /* Arabic-Indic 1 */,
                                             "\xC2\xB2" /* superscript 2 */,
                                             ".",
                                             "...",
                                             "/",
                                             "-",
                                             "_",
                                             "\xE2\x80\x94" /* em dash */,
                                             "\xC2\xA0" /* no-break space */,
                                             "\xE3\x80\x80" /* ideographic space */,
                                             "\xE4\xB8\xAD" /* CJK */,
                                             "\xF0\x9F\x98\x80" /* emoji */,
                                             "A",
                                             "z",
                                             "Zz",
                                             "aZ"};

TEST(PretokenizerQuickPaths, RunsEndingAtEveryOffsetOfAWord) {
  // Runs of each kind, of lengths 0 to 17 (so ending at every offset of one to three 8-byte words),
  // starting at several offsets of a word, then every follower, at the end of the text or not.
  const std::vector<Regex> regexes = compile_patterns();
  const std::vector<std::string> runs = {"a", "Z", "1", ".", " ", "\n", "'"};
  const std::vector<std::string> prefixes = {"", " ", ".", "\t", "\xC3\xA9"};
  for (const auto& run : runs) {
    for (std::size_t length = 0; length < 18; ++length) {
      for (const auto& prefix : prefixes) {
        for (const std::size_t pad : {0, 1, 3, 5, 7}) {
          for (const auto& follower : kFollowers) {
            std::string text = std::string(pad, 'q') + prefix;
            for (std::size_t k = 0; k < length; ++k) text += run;
            text += follower;
            expect_same_pieces(regexes, text);
            if (pad == 0) expect_same_pieces(regexes, text + " tail");
          }
        }
      }
    }
  }
}

TEST(PretokenizerQuickPaths, NonAsciiAtEveryOffsetOfAWord) {
  const std::vector<Regex> regexes = compile_patterns();
  const std::vector<std::string> inserts = {"\xC3\xA9",     "\xC3\x89", "\xCC\x81",     "\xC5\xBF",         "\xD9\xA1",
                                            "\xE2\x80\x94", "\xC2\xA0", "\xE4\xB8\xAD", "\xF0\x9F\x98\x80", "\xC2\xB2"};
  const std::vector<std::string> words = {"abcdefghijklmnopqrstuvwx", "ABCDEFGHIJKLMNOPQRSTUVWX", "HelloWorldHelloWorldHi",
                                          "1234567890123456",         "..,,;;::!!??%%&&**",       "                    "};
  for (const auto& word : words) {
    for (const auto& insert : inserts) {
      for (std::size_t at = 0; at <= word.size(); ++at) {
        for (const char* before : {"", " ", "'", "x"}) {
          std::string text = before + word;
          text.insert(std::string(before).size() + at, insert);
          expect_same_pieces(regexes, text);
        }
      }
    }
  }
}

TEST(PretokenizerQuickPaths, GeneratedText) {
  const std::vector<Regex> regexes = compile_patterns();
  // Fragments drawn at random: long ASCII words and digit runs next to everything else.
  std::vector<std::string> alphabet = kFollowers;
  for (const char* fragment :
       {"lowercaseword", "CAPITALS", "MixedCaseWord", "digits1234567", "a",    "I",  "don", "t", "ll", "re", "S", "D", "\r",
        "\n\n",          "   ",      "\t\t",          "(\"quoted\")",  "x=1;", "//", "'re"}) {
    alphabet.emplace_back(fragment);
  }
  std::mt19937 random(2024);
  for (int round = 0; round < 20000; ++round) {
    std::string text;
    const int length = static_cast<int>(random() % 16);
    for (int k = 0; k < length; ++k) text += alphabet[random() % alphabet.size()];
    expect_same_pieces(regexes, text);
  }
}

}  // namespace
}  // namespace ctxwin
