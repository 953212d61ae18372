// The Claude marked stream, read in bounded memory (normalization piece by piece, runs a few at a
// time), against the builder that held the whole text per character (reference_marked_stream.hpp):
// the same bytes and the same trailing newlines on generated text crossing every kind of piece
// boundary (runs of one character, whitespace runs, long words, multi-byte characters, text NFC
// changes, controls between the halves of Thai SARA AM, mixed scripts), at and around the piece
// size, with pieces from one byte up. Then the counts through the public counter on long inputs.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "ctxwin/tokenizer/claude/claude_tokenizer.hpp"
#include "ctxwin/tokenizer/utf8.hpp"
#include "reference_marked_stream.hpp"
#include "tokenizer/claude/marked_stream.hpp"
#include "tokenizer/claude/text_normalization.hpp"
#include "tokenizer/claude/vocabulary.hpp"

namespace ctxwin::claude {
namespace {

// The three families' options (v3 folds quotes and has ⟨caps⟩ from three capitals; v5 has a free
// tail and no frame ⟨bow⟩), and one more ⟨caps⟩ threshold.
const std::vector<StreamOptions>& all_options() {
  static const std::vector<StreamOptions> options = {
      {true, 3, true, false}, {false, 0, true, false}, {false, 0, false, true}, {true, 1, false, false}};
  return options;
}

// Characters of every class the stream's rules and the normalization tell apart, as UTF-8.
const std::vector<std::string>& atoms() {
  static const std::vector<std::string> list = [] {
    std::vector<std::string> out;
    for (const char* s : {"a", "z", "A", "Q", "s", "t", "d",  "m",  "l",  "r",  "e",    "v",    "0",    "7",
                          "'", "!", ".", "-", "(", " ", "  ", "\t", "\n", "\r", "\r\n", "\x01", "\x1f", "\x7f"}) {
      out.emplace_back(s);
    }
    out.emplace_back(std::string("\0", 1));
    for (const char32_t c : std::vector<char32_t>{
             0x00A0,  0x2009,  0x3000,  0x0085,  0x2018,  0x2019,  0x201C, 0x201D,  // spaces, C1 control, curly quotes
             0x00E9,  0x00C9,  0x0301,  0x0345,  0x0327,  0x0308,  0x0130, 0x1E9E,  // accents, İ, ẞ
             0x03A9,  0x03C9,  0x0416,  0x0436,  0x0E01,  0x0E4D,  0x0E32, 0x0E33,  // Greek, Cyrillic, Thai
             0x0E48,  0x0915,  0x094D,  0x093C,  0x0B47,  0x0B3E,  0x1100, 0x1161,  // Devanagari, Oriya pair, jamo
             0x11A8,  0xAC00,  0x4E2D,  0x6587,  0x3001,  0x3002,  0xFF08, 0xFF09,  // Hangul, CJK
             0x0627,  0x0661,  0x06F5,  0x00B2,  0x2460,  0x2014,  0x2026, 0x20AC,  // Arabic, other digits, symbols
             0xFE0F,  0x200D,  0xE000,  0xF8FF,  0x2160,  0x24B6,  0x212B, 0x0340,  // selectors, ZWJ, private use, singletons
             0x1F600, 0x1F468, 0x1F1FA, 0x1D400, 0x20000, 0x10FFFD}) {              // astral
      std::string s;
      append_utf8(s, c);
      out.push_back(s);
    }
    return out;
  }();
  return list;
}

void expect_same_stream(const std::string& text, std::size_t chunk, const std::string& label) {
  for (const StreamOptions& options : all_options()) {
    const MarkedStream expected = reference::build_marked_stream(text, options);
    const MarkedStream got = build_marked_stream(text, options, chunk);
    ASSERT_EQ(got.bytes, expected.bytes) << label << " (" << text.size() << " bytes, pieces of " << chunk << ")";
    ASSERT_EQ(got.tail_newlines, expected.tail_newlines) << label;
  }
}

std::string random_text(std::mt19937& rng, std::size_t atoms_wanted) {
  const auto& list = atoms();
  std::uniform_int_distribution<std::size_t> pick(0, list.size() - 1);
  std::uniform_int_distribution<int> repeat(1, 6);
  std::string text;
  for (std::size_t i = 0; i < atoms_wanted; ++i) {
    const std::string& atom = list[pick(rng)];
    for (int r = repeat(rng); r > 0; --r) text += atom;
  }
  return text;
}

TEST(ClaudeMarkedStreamBounds, RandomMixedTextAtEveryPieceSize) {
  std::mt19937 rng(24);
  for (int i = 0; i < 3000; ++i) {
    const std::string text = random_text(rng, 1 + i % 40);
    for (const std::size_t chunk :
         {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{5}, std::size_t{16}, kNormalizationChunkBytes}) {
      expect_same_stream(text, chunk, "random mixed text #" + std::to_string(i));
    }
  }
}

// Each atom repeated, alone and between a head and a tail that change the normalization path.
TEST(ClaudeMarkedStreamBounds, RunsOfOneCharacter) {
  for (const std::string& atom : atoms()) {
    for (const std::size_t count : {1, 2, 3, 7, 64}) {
      std::string run;
      for (std::size_t k = 0; k < count; ++k) run += atom;
      for (const std::string& head : {std::string(), std::string(" "), std::string("\r"), std::string("e"), std::string("\xe0\xb9\x8d")}) {
        for (const std::size_t chunk : {std::size_t{1}, std::size_t{2}, std::size_t{4}, std::size_t{9}}) {
          expect_same_stream(head + run + "\n\n", chunk, "a run of one character");
          expect_same_stream(head + run + " A", chunk, "a run of one character");
        }
      }
    }
  }
}

// Long inputs at and around the default piece size: the character that NFC joins to the one
// before it, a multi-byte character straddling the piece's end, a control between the halves of
// SARA AM, whitespace runs and words as long as the piece.
TEST(ClaudeMarkedStreamBounds, AroundTheDefaultPieceSize) {
  const std::size_t size = kNormalizationChunkBytes;
  const std::vector<std::string> fillers = {"a", "A", " ", "\n", "\xe4\xb8\xad" /* 中 */, "\xc3\xa9" /* é */, "ab ", "Hello, world! "};
  const std::vector<std::string> joints = {"\xcc\x81" /* U+0301 */,
                                           "\xe0\xb9\x8d\x01\xe0\xb8\xb2" /* SARA AM, \x01, U+0E32 */,
                                           "\xe1\x85\xa1" /* jamo V */,
                                           "\xef\xbb\xbf",
                                           "\r",
                                           "\xf0\x9f\x98\x80",
                                           "'s",
                                           "'"};
  for (const std::string& filler : fillers) {
    for (const std::string& joint : joints) {
      for (const std::size_t shift : {0, 1, 2, 3, 4}) {
        // A changed character first, so that the rest goes through the pieces.
        std::string text = "\r";
        while (text.size() + filler.size() <= size - shift) text += filler;
        text += joint;
        while (text.size() < size + 64) text += filler;
        expect_same_stream(text, size, "filler around the piece size");
        expect_same_stream(text.substr(1), size, "filler around the piece size, unchanged head");
      }
    }
  }
}

// The counts through the public counter (whose stream comes from the bounded builder) against the
// reference stream tiled over the same vocabulary, on long inputs of every kind.
TEST(ClaudeMarkedStreamBounds, LongInputsCountAsTheReference) {
  const auto vocabulary = Vocabulary::load(std::string(CTXWIN_CLAUDE_DATA_DIR) + "/v4_7.bin");
  const ClaudeTokenizer& counter = ClaudeTokenizer::get("v4.7", CTXWIN_CLAUDE_DATA_DIR);
  const StreamOptions options{vocabulary->fold_quotes(), vocabulary->allcaps_min(), true, false};
  std::mt19937 rng(7);
  std::vector<std::string> inputs = {std::string(300000, 'a'), std::string(300000, ' '), std::string(300000, '\n'),
                                     std::string(300000, 'Z'), random_text(rng, 60000)};
  std::string word, mixed;
  while (word.size() < 300000)
    word +=
        "\xd0\x96\xd0\xb6"
        "abc\xe4\xb8\xad";  // a long word across scripts
  while (mixed.size() < 300000) mixed += "e\xcc\x81 \xe0\xb9\x8d\xe0\xb8\xb2\r\n\xe2\x80\x99s\t";
  inputs.push_back(word);
  inputs.push_back(mixed);
  for (const std::string& text : inputs) {
    const MarkedStream expected = reference::build_marked_stream(text, options);
    const std::size_t want = vocabulary->tile(expected.bytes) + vocabulary->newline_tail(expected.tail_newlines);
    EXPECT_EQ(counter.count(text), want) << text.size() << " bytes starting " << text.substr(0, 12);
  }
}

}  // namespace
}  // namespace ctxwin::claude
