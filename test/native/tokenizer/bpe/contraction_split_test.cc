// ContractionSplit: a piece that ends with a contraction is cut only where its two sides merge as
// they do in the whole piece, and o200k_base's counts through Encoding (which cuts them) stay
// those of its tokens.
#include "ctxwin/tokenizer/bpe/contraction_split.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "ctxwin/tokenizer/bpe/bpe.hpp"
#include "ctxwin/tokenizer/bpe/encoding.hpp"

namespace ctxwin {
namespace {

constexpr const char* kNames[] = {"r50k_base", "p50k_base", "cl100k_base", "o200k_base"};

// Word-like strings, among them the ends that tokens continue into a contraction (" world" of
// " world's", "er" of "er's", "n" of "n't") and words that end with them.
std::vector<std::string> words(std::mt19937& random, const RankTable& ranks) {
  static constexpr std::string_view kSyllables[] = {"qu", "an", "tion", "ing", "er", "st", "man", "o",  "a",  "ie", "i",  "y",
                                                    "u",  "th", "ck",   "on",  "x",  "ly", "ous", "Ch", "re", "un", "Ab", "ley"};
  std::vector<std::string> out;
  for (int i = 0; i < 6000; ++i) {
    std::string word = random() % 3 == 0 ? " " : "";
    const std::size_t syllables = 1 + random() % 4;
    for (std::size_t s = 0; s < syllables; ++s) word.append(kSyllables[random() % std::size(kSyllables)]);
    out.push_back(std::move(word));
  }
  for (std::uint32_t rank = 0; rank <= ranks.max_rank(); ++rank) {
    const std::string_view token = ranks.bytes_of(rank);
    const std::size_t at = token.find('\'', 1);
    if (at == std::string_view::npos) continue;
    out.emplace_back(token.substr(0, at));
    std::string after_x(1, 'x');
    after_x.append(token.substr(0, at));
    out.push_back(std::move(after_x));
  }
  return out;
}

TEST(ContractionSplit, CutsOnlyWhereBothSidesMergeApart) {
  std::mt19937 random(40);
  for (const char* name : kNames) {
    const RankTable& ranks = Encoding::get(name, CTXWIN_RANK_DATA_DIR).ranks();
    const ContractionSplit split(ranks);
    std::size_t cut = 0;
    std::size_t whole = 0;
    for (const std::string& word : words(random, ranks)) {
      for (std::size_t form = 0; form < ContractionSplit::kForms; ++form) {
        const std::string piece = word + std::string(ContractionSplit::form_bytes(form));
        const ContractionSplit::Cut found = split.find(piece);
        if (found.length == 0) {
          ++whole;
          continue;
        }
        ++cut;
        ASSERT_EQ(found.length, ContractionSplit::form_bytes(form).size()) << name << ": \"" << piece << "\"";
        ASSERT_EQ(found.count, bpe_count(ContractionSplit::form_bytes(form), ranks)) << name;
        const std::string_view before = std::string_view(piece).substr(0, piece.size() - found.length);
        ASSERT_EQ(bpe_count(before, ranks) + found.count, bpe_count(piece, ranks)) << name << ": \"" << piece << "\"";
      }
    }
    // Most words are cut, and the ends that tokens continue are not.
    EXPECT_GT(cut, whole) << name;
  }
}

TEST(ContractionSplit, LeavesWholeWhatIsNoContractionOrHasNothingBefore) {
  const ContractionSplit split(Encoding::get("o200k_base", CTXWIN_RANK_DATA_DIR).ranks());
  for (const std::string_view piece :
       {"", "'s", "'ll", "s", "ab", "abc", "x'z", "x'sa", "x'ree", "'/", "painting'", " world's", " don't"}) {
    EXPECT_EQ(split.find(piece).length, 0u) << '"' << piece << '"';
  }
  EXPECT_EQ(split.find(" painting's").length, 2u);
  EXPECT_EQ(split.find(" paintingS'LL").length, 3u);
  EXPECT_EQ(split.find("x'd").length, 2u);
}

// o200k_base's pieces that end with contractions, counted by Encoding with a cache (cold and warm)
// and without, as many as it encodes them to (encode merges each piece whole).
TEST(ContractionSplit, EncodingCountsContractionsAsItEncodesThem) {
  std::mt19937 random(41);
  for (const char* name : {"o200k_base", "cl100k_base"}) {
    const Encoding& encoding = Encoding::get(name, CTXWIN_RANK_DATA_DIR);
    const std::vector<std::string> list = words(random, encoding.ranks());
    std::string text;
    for (std::size_t i = 0; i < 40000; ++i) {
      text.push_back(i % 13 == 0 ? '\n' : ' ');
      text.append(list[random() % list.size()]);
      if (random() % 2) text.append(ContractionSplit::form_bytes(random() % ContractionSplit::kForms));
    }
    const std::size_t expected = encoding.encode(text).size();
    const auto cache = encoding.new_cache();
    EXPECT_EQ(encoding.count_valid(text, cache.get()), expected) << name;
    EXPECT_EQ(encoding.count_valid(text, cache.get()), expected) << name << " (cache warm)";
    EXPECT_EQ(encoding.count_valid(text, nullptr), expected) << name << " (no cache)";
  }
}

}  // namespace
}  // namespace ctxwin
