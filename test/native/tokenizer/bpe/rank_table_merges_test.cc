// The pair table (merge_rank) holds one merge per token: the last merge of its bytes, the pair BPE
// joins to make it (rank_table.cpp, build_merges: found by github/rust-gems' pair check, in rank
// order). Checked against merging every token's bytes the slow way (rank_of of joined bytes,
// the lowest rank first, the leftmost on ties): each token's last merge is there with its rank,
// and no other pair merges, neither the token's other splits into two tokens nor random pairs.
// That the merge loop still makes tiktoken's tokens with no more than these is the batch's test
// (batch_count_test.cc) and the differential tests against tiktoken.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "ctxwin/tokenizer/bpe/encoding.hpp"
#include "ctxwin/tokenizer/bpe/rank_table.hpp"

namespace ctxwin {
namespace {

// The two tokens BPE joins last when it merges `bytes` into one token; nullopt when the bytes do
// not merge into one token.
std::optional<std::pair<std::uint32_t, std::uint32_t>> last_merge(std::string_view bytes, const RankTable& ranks) {
  std::vector<std::string> parts;
  for (const char c : bytes) parts.emplace_back(1, c);
  std::optional<std::pair<std::uint32_t, std::uint32_t>> last;
  while (parts.size() > 1) {
    std::size_t best = parts.size();
    std::uint32_t best_rank = RankTable::kNoRank;
    for (std::size_t k = 0; k + 1 < parts.size(); ++k) {
      const std::uint32_t rank = ranks.rank_of(parts[k] + parts[k + 1]);
      if (rank < best_rank) {
        best_rank = rank;
        best = k;
      }
    }
    if (best == parts.size()) return std::nullopt;
    last.emplace(ranks.rank_of(parts[best]), ranks.rank_of(parts[best + 1]));
    parts[best] += parts[best + 1];
    parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(best) + 1);
  }
  return last;
}

class RankTableMerges : public testing::TestWithParam<const char*> {};

TEST_P(RankTableMerges, HoldEachTokensLastMergeAndNoOtherSplit) {
  const RankTable& ranks = Encoding::get(GetParam(), CTXWIN_RANK_DATA_DIR).ranks();
  std::size_t tokens = 0;
  std::size_t other_splits = 0;
  for (std::uint32_t rank = 0; rank <= ranks.max_rank(); ++rank) {
    const std::string_view bytes = ranks.bytes_of(rank);
    if (bytes.size() < 2) continue;
    const auto last = last_merge(bytes, ranks);
    ASSERT_TRUE(last.has_value()) << GetParam() << " rank " << rank << " does not merge back into itself";
    ASSERT_EQ(ranks.merge_rank(last->first, last->second), rank) << GetParam() << " rank " << rank;
    ++tokens;
    for (std::size_t k = 1; k < bytes.size(); ++k) {
      const std::uint32_t left = ranks.rank_of(bytes.substr(0, k));
      const std::uint32_t right = ranks.rank_of(bytes.substr(k));
      if (left == RankTable::kNoRank || right == RankTable::kNoRank || (left == last->first && right == last->second)) continue;
      ASSERT_EQ(ranks.merge_rank(left, right), RankTable::kNoRank) << GetParam() << " rank " << rank << " split at " << k;
      ++other_splits;
    }
  }
  EXPECT_GT(tokens, ranks.size() * 9 / 10);
  EXPECT_GT(other_splits, ranks.size() / 2);  // most tokens have more than one split
}

TEST_P(RankTableMerges, MergeNoPairButATokensLastMerge) {
  const RankTable& ranks = Encoding::get(GetParam(), CTXWIN_RANK_DATA_DIR).ranks();
  std::mt19937 random(40);
  std::uniform_int_distribution<std::uint32_t> any_rank(0, ranks.max_rank());
  // Random pairs (nearly all spell no token) and pairs of short tokens (many do).
  std::uniform_int_distribution<std::uint32_t> low_rank(0, 2000);
  std::size_t merging = 0;
  for (int i = 0; i < 200000; ++i) {
    const std::uint32_t left = i % 2 == 0 ? any_rank(random) : low_rank(random);
    const std::uint32_t right = i % 2 == 0 ? any_rank(random) : low_rank(random);
    if (ranks.bytes_of(left).empty() || ranks.bytes_of(right).empty()) continue;
    const std::string joined = std::string(ranks.bytes_of(left)) + std::string(ranks.bytes_of(right));
    const std::uint32_t merged = ranks.merge_rank(left, right);
    if (merged == RankTable::kNoRank) continue;
    ASSERT_EQ(merged, ranks.rank_of(joined)) << GetParam() << " " << left << " + " << right;
    ASSERT_EQ(last_merge(joined, ranks), std::make_pair(left, right)) << GetParam() << " " << left << " + " << right;
    ++merging;
  }
  EXPECT_GT(merging, 300u);
}

INSTANTIATE_TEST_SUITE_P(Encodings, RankTableMerges, testing::Values("r50k_base", "p50k_base", "cl100k_base", "o200k_base"));

}  // namespace
}  // namespace ctxwin
