// The pair table (merge_rank) is built from prefix and suffix links rather than by probing both
// halves of every split (rank_table.cpp, build_merges): it must still hold every split of every
// token into two tokens, and nothing else.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

#include "ctxwin/tokenizer/bpe/encoding.hpp"
#include "ctxwin/tokenizer/bpe/rank_table.hpp"

namespace ctxwin {
namespace {

class RankTableMerges : public testing::TestWithParam<const char*> {};

TEST_P(RankTableMerges, HoldEverySplitOfEveryTokenIntoTwoTokens) {
  const RankTable& ranks = Encoding::get(GetParam(), CTXWIN_RANK_DATA_DIR).ranks();
  std::size_t splits = 0;
  for (std::uint32_t rank = 0; rank <= ranks.max_rank(); ++rank) {
    const std::string_view bytes = ranks.bytes_of(rank);
    for (std::size_t k = 1; k < bytes.size(); ++k) {
      const std::uint32_t left = ranks.rank_of(bytes.substr(0, k));
      const std::uint32_t right = ranks.rank_of(bytes.substr(k));
      if (left == RankTable::kNoRank || right == RankTable::kNoRank) continue;
      ASSERT_EQ(ranks.merge_rank(left, right), rank) << GetParam() << " rank " << rank << " split at " << k;
      ++splits;
    }
  }
  EXPECT_GT(splits, ranks.size());
}

TEST_P(RankTableMerges, HoldNoPairThatSpellsNoToken) {
  const RankTable& ranks = Encoding::get(GetParam(), CTXWIN_RANK_DATA_DIR).ranks();
  std::mt19937 random(40);
  std::uniform_int_distribution<std::uint32_t> any_rank(0, ranks.max_rank());
  // Random pairs (nearly all spell no token) and pairs of short tokens (many do).
  std::uniform_int_distribution<std::uint32_t> low_rank(0, 2000);
  for (int i = 0; i < 200000; ++i) {
    const std::uint32_t left = i % 2 == 0 ? any_rank(random) : low_rank(random);
    const std::uint32_t right = i % 2 == 0 ? any_rank(random) : low_rank(random);
    const std::string joined = std::string(ranks.bytes_of(left)) + std::string(ranks.bytes_of(right));
    if (ranks.bytes_of(left).empty() || ranks.bytes_of(right).empty()) continue;
    ASSERT_EQ(ranks.merge_rank(left, right), ranks.rank_of(joined)) << GetParam() << " " << left << " + " << right;
  }
}

INSTANTIATE_TEST_SUITE_P(Encodings, RankTableMerges, testing::Values("r50k_base", "p50k_base", "cl100k_base", "o200k_base"));

}  // namespace
}  // namespace ctxwin
