#include "ctxwin/tokenizer/bpe/encoding.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "ctxwin/tokenizer/bpe/bpe.hpp"
#include "ctxwin/error.hpp"
#include "ctxwin/tokenizer/bpe/pretokenizer.hpp"

namespace ctxwin {
namespace {

const Encoding& cl100k() { return Encoding::get("cl100k_base", CTXWIN_RANK_DATA_DIR); }
const Encoding& o200k() { return Encoding::get("o200k_base", CTXWIN_RANK_DATA_DIR); }

std::vector<std::string> pieces(Pattern pattern, std::string_view text) {
  std::vector<std::string> out;
  Pretokenizer p(pattern, text);
  for (std::string_view piece; p.next(piece);) out.emplace_back(piece);
  return out;
}

// Reference values from OpenAI's tiktoken.
TEST(Encoding, KnownTokens) {
  EXPECT_EQ(cl100k().encode("hello world"), (std::vector<std::uint32_t>{15339, 1917}));
  EXPECT_EQ(o200k().encode("hello world"), (std::vector<std::uint32_t>{24912, 2375}));
  EXPECT_EQ(cl100k().count(""), 0u);
  EXPECT_EQ(cl100k().count("Hello, world!"), 4u);
}

TEST(Encoding, RoundTrips) {
  for (const Encoding* enc : {&cl100k(), &o200k()}) {
    for (std::string text : {"", "a", "Hello, world!", "  leading\n\n\ttabs  ", "caf\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E",
                             "\xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9", "<|endoftext|> is text"}) {
      EXPECT_EQ(enc->decode(enc->encode(text)), text) << enc->name() << ": " << text;
      EXPECT_EQ(enc->count(text), enc->encode(text).size());
    }
  }
}

TEST(Encoding, SpecialTokensAreTextUnlessAllowed) {
  EXPECT_GT(cl100k().count("<|endoftext|>"), 1u);
  EXPECT_EQ(cl100k().encode("<|endoftext|>", SpecialTokens::AsTokens), (std::vector<std::uint32_t>{100257}));
  EXPECT_EQ(o200k().encode("a<|endoftext|>b", SpecialTokens::AsTokens).size(), 3u);
  EXPECT_EQ(o200k().decode(std::vector<std::uint32_t>{199999}), "<|endoftext|>");
}

TEST(Encoding, InvalidUtf8IsRepairedAsReplacementCharacters) {
  EXPECT_EQ(cl100k().encode("a\xFF"
                            "b"),
            cl100k().encode("a\xEF\xBF\xBD"
                            "b"));
}

TEST(Encoding, UnknownNamesAndTokensAreErrors) {
  try {
    Encoding::get("gpt2_base", CTXWIN_RANK_DATA_DIR);
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::Range);
    EXPECT_EQ(error.js_code(), "ERR_CTXWIN_UNKNOWN_ENCODING");
    EXPECT_NE(std::string(error.what()).find("cl100k_base"), std::string::npos);
  }
  EXPECT_THROW(cl100k().decode(std::vector<std::uint32_t>{999999}), Error);
}

// A megabyte of one letter is a single piece: it goes through the heap merge (O(n log n); the
// benchmark times it against tiktoken). Here: that it is exact and round-trips.
TEST(Encoding, LongSingleCharacterRunsMergeExactly) {
  const std::string run(1 << 20, 'a');
  const std::vector<std::uint32_t> tokens = cl100k().encode(run);
  EXPECT_EQ(cl100k().count(run), tokens.size());
  EXPECT_GT(tokens.size(), 1000u);
  EXPECT_EQ(cl100k().decode(tokens), run);
  // The short (quadratic-scan) and long (heap) merges agree at the boundary between them.
  for (std::size_t n : {127u, 128u, 129u, 300u}) {
    const std::string piece(n, 'z');
    EXPECT_EQ(cl100k().decode(cl100k().encode(piece)), piece);
  }
}

// The backtracking search gives the merge loop's tokens, on the inputs where they part ways most:
// runs of one character or of a few, random pieces over small alphabets (many overlapping
// tokens), random bytes, and every piece size from 1 byte, in every encoding.
TEST(Encoding, BacktrackingFindsTheMergeLoopsTokens) {
  std::mt19937 random(20261125);
  const std::vector<std::string> units = {"a",  "ab",  "aab", " ", "=", "-", "0", "\xC3\xA9", "\xE6\x97\xA5", "\xF0\x9F\x98\x80",
                                          "\n", "\t ", "x",   "_"};
  for (const char* name : {"r50k_base", "p50k_base", "cl100k_base", "o200k_base"}) {
    const RankTable& ranks = Encoding::get(name, CTXWIN_RANK_DATA_DIR).ranks();
    std::vector<std::string> pieces;
    for (const std::string& unit : units) {
      for (std::size_t n : {1u, 2u, 3u, 7u, 64u, 129u, 700u, 5000u}) {
        std::string run;
        for (std::size_t k = 0; k < n; ++k) run += unit;
        pieces.push_back(run);
      }
    }
    for (int round = 0; round < 300; ++round) {
      std::string piece;
      const std::size_t length = 1 + random() % 2000;
      const int kind = round % 3;
      const std::string alphabet = kind == 0 ? "ab" : kind == 1 ? "abcde =" : "";
      for (std::size_t k = 0; k < length; ++k) {
        piece += kind == 2 ? static_cast<char>(random() % 256) : alphabet[random() % alphabet.size()];
      }
      pieces.push_back(piece);
    }
    for (const std::string& piece : pieces) {
      std::vector<std::uint32_t> merged;
      bpe_encode(piece, ranks, merged);
      std::vector<std::uint32_t> searched;
      bpe_backtrack_encode(piece, ranks, searched);
      ASSERT_EQ(searched, merged) << name << ": a piece of " << piece.size() << " bytes";
      ASSERT_EQ(bpe_backtrack_count(piece, ranks), merged.size());
    }
  }
}

// Counting a long piece part by part (for_each_independent_part) looks each part up as a whole
// token first; that equals merging it only because every token merges back into itself.
TEST(Encoding, EveryTokenMergesBackIntoItself) {
  for (const char* name : {"r50k_base", "p50k_base", "cl100k_base", "o200k_base"}) {
    const RankTable& ranks = Encoding::get(name, CTXWIN_RANK_DATA_DIR).ranks();
    std::size_t checked = 0;
    for (std::uint32_t rank = 0; rank <= ranks.max_rank(); ++rank) {
      const std::string_view bytes = ranks.bytes_of(rank);
      if (bytes.size() < 2) continue;
      ASSERT_EQ(bpe_merge_count(bytes, ranks), 1u) << name << " token " << rank;
      ++checked;
    }
    EXPECT_GT(checked, 49000u) << name;
  }
}

TEST(Encoding, CutsPiecesOnlyWhenEveryTokenMergesBackIntoItself) {
  for (const char* name : {"r50k_base", "p50k_base", "cl100k_base", "o200k_base"}) {
    EXPECT_TRUE(Encoding::get(name, CTXWIN_RANK_DATA_DIR).splits_long_pieces()) << name << ": OpenAI's file not recognized";
  }
  // Rank data of another origin with a token no merge can reach: "abc" without "ab" or "bc".
  // tiktoken counts a piece "abc" as one token (a whole-piece match) but merges nothing inside
  // "abcabc...": cutting that piece into "abc" parts would count 6 instead of 18.
  const auto base64 = [](std::string_view bytes) {
    static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    for (std::size_t i = 0; i < bytes.size(); i += 3) {
      std::uint32_t chunk = static_cast<unsigned char>(bytes[i]) << 16;
      if (i + 1 < bytes.size()) chunk |= static_cast<unsigned char>(bytes[i + 1]) << 8;
      if (i + 2 < bytes.size()) chunk |= static_cast<unsigned char>(bytes[i + 2]);
      for (std::size_t k = 0; k < 4; ++k) out += i + k <= bytes.size() ? kAlphabet[(chunk >> (18 - 6 * k)) & 63] : '=';
    }
    return out;
  };
  std::string contents;
  for (int b = 0; b < 256; ++b) contents += base64(std::string(1, static_cast<char>(b))) + " " + std::to_string(b) + "\n";
  contents += base64("abc") + " 256\n";
  const Encoding custom("custom", Pattern::Cl100k, RankTable::parse(contents, "custom.tiktoken"), {});
  EXPECT_FALSE(custom.splits_long_pieces());
  EXPECT_EQ(custom.count("abc"), 1u);
  EXPECT_EQ(custom.count("abcabcabcabcabcabc"), 18u);
  EXPECT_EQ(custom.encode("abcabcabcabcabcabc").size(), 18u);
}

// Parts cut where no token can join across merge into exactly the piece's tokens.
TEST(Encoding, IndependentPartsMergeAsTheWholePiece) {
  const std::vector<std::string> texts = {"日本語のテキストはひとつの長いピースになり、言葉ごとに分かれます",
                                          "中文文本通常是一个很长的片段，没有空格分隔",
                                          "한국어텍스트도마찬가지로긴조각이됩니다",
                                          "Кириллицабезпробеловтожедлинная",
                                          "supercalifragilisticexpialidocious_identifier_name",
                                          "==============================",
                                          "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                                          "😀😀😀👨‍👩‍👧🇫🇷🇫🇷👍🏽👍🏽"};
  for (const Encoding* encoding : {&cl100k(), &o200k()}) {
    const RankTable& ranks = encoding->ranks();
    for (const std::string& text : texts) {
      std::vector<std::uint32_t> whole;
      bpe_encode(text, ranks, whole);
      std::vector<std::uint32_t> by_parts;
      std::size_t parts = 0;
      for_each_independent_part(text, ranks, [&](std::string_view part) {
        bpe_encode(part, ranks, by_parts);
        ++parts;
      });
      EXPECT_EQ(by_parts, whole) << encoding->name() << ": " << text;
      EXPECT_GE(parts, 1u);
    }
  }
  // The CJK sentences do fall apart (the point of cutting them).
  std::size_t parts = 0;
  for_each_independent_part(texts[1], o200k().ranks(), [&](std::string_view) { ++parts; });
  EXPECT_GT(parts, 3u);
}

TEST(Pretokenizer, Cl100kWhitespaceRules) {
  EXPECT_EQ(pieces(Pattern::Cl100k, "\n\n  x"), (std::vector<std::string>{"\n\n", " ", " x"}));
  EXPECT_EQ(pieces(Pattern::Cl100k, "a  \n b"), (std::vector<std::string>{"a", "  \n", " b"}));
  EXPECT_EQ(pieces(Pattern::Cl100k, "x   "), (std::vector<std::string>{"x", "   "}));
  EXPECT_EQ(pieces(Pattern::Cl100k, "12345 $9"), (std::vector<std::string>{"123", "45", " $", "9"}));
}

TEST(Pretokenizer, ContractionsFoldCase) {
  EXPECT_EQ(pieces(Pattern::Cl100k, "IT'S we'Ll"), (std::vector<std::string>{"IT", "'S", " we", "'Ll"}));
  // U+017F LATIN SMALL LETTER LONG S is an 's' under case-insensitive matching.
  EXPECT_EQ(pieces(Pattern::Cl100k, "it'\xC5\xBF"), (std::vector<std::string>{"it", "'\xC5\xBF"}));
  // r50k's contractions are case-sensitive.
  EXPECT_EQ(pieces(Pattern::R50k, "IT'S"), (std::vector<std::string>{"IT", "'", "S"}));
}

TEST(Pretokenizer, O200kCasedWords) {
  EXPECT_EQ(pieces(Pattern::O200k, "HelloWORLDFoo bar's"), (std::vector<std::string>{"Hello", "WORLDFoo", " bar's"}));
  EXPECT_EQ(pieces(Pattern::O200k, "a/b\n/c"), (std::vector<std::string>{"a", "/b", "\n", "/c"}));
}

TEST(Pretokenizer, PiecesCoverTheText) {
  const std::string text = "Mixed: caf\xC3\xA9, \xE6\x97\xA5\xE6\x9C\xAC 123456 \t\r\n end!!";
  for (Pattern pattern : {Pattern::R50k, Pattern::Cl100k, Pattern::O200k}) {
    std::string joined;
    for (const auto& piece : pieces(pattern, text)) {
      EXPECT_FALSE(piece.empty());
      joined += piece;
    }
    EXPECT_EQ(joined, text);
  }
}

}  // namespace
}  // namespace ctxwin
