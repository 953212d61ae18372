// The shared byte-pair merge loop against the definition it implements, written the slow way:
// merge the adjacent pair of lowest rank, the leftmost on ties, until none merges. Random symbols
// over random merge tables, short and long, with tokens that are ranks (OpenAI's files) and tokens
// that are not (tokenizer.json's merges).
#include "tokenizer/bpe/merge_loop.hpp"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <utility>
#include <vector>

namespace ctxwin::bpe {
namespace {

using Table = std::map<std::pair<std::uint32_t, std::uint32_t>, PairMerge>;

std::vector<std::uint32_t> reference(std::vector<std::uint32_t> symbols, const Table& table) {
  for (;;) {
    std::size_t best = symbols.size();
    PairMerge chosen;
    for (std::size_t k = 0; k + 1 < symbols.size(); ++k) {
      const auto it = table.find({symbols[k], symbols[k + 1]});
      if (it != table.end() && it->second.rank < chosen.rank) {
        chosen = it->second;
        best = k;
      }
    }
    if (best == symbols.size()) return symbols;
    symbols[best] = chosen.token;
    symbols.erase(symbols.begin() + static_cast<std::ptrdiff_t>(best) + 1);
  }
}

template <bool kTokenIsRank>
struct TableMerges {
  const Table& table;
  std::uint32_t limit;
  static constexpr bool token_is_rank() { return kTokenIsRank; }
  std::uint32_t rank_limit() const { return limit; }
  PairMerge merge(std::uint32_t left, std::uint32_t right) const {
    const auto it = table.find({left, right});
    return it == table.end() ? PairMerge{} : it->second;
  }
  PairMerge first(std::size_t, std::uint32_t left, std::uint32_t right) const { return merge(left, right); }
};

// A merge table over a small alphabet (12 symbols), so that merges chain: each merge makes a new
// token. With kTokenIsRank, a merge's token is its rank, as in tiktoken.
Table random_table(std::mt19937& random, bool token_is_rank) {
  Table table;
  std::uint32_t next_token = 1000;
  std::vector<std::uint32_t> known;
  for (std::uint32_t s = 0; s < 12; ++s) known.push_back(s);
  std::uniform_int_distribution<std::uint32_t> rank_gap(1, 3);
  std::uint32_t rank = 100;
  for (int m = 0; m < 120; ++m) {
    // Half of the merges join two of the first symbols, the rest anything made so far.
    std::uniform_int_distribution<std::size_t> pick(0, m < 60 ? 11 : known.size() - 1);
    const std::pair<std::uint32_t, std::uint32_t> pair{known[pick(random)], known[pick(random)]};
    if (table.count(pair) != 0) continue;
    rank += rank_gap(random);
    const std::uint32_t token = token_is_rank ? rank : next_token++;
    table[pair] = PairMerge{rank, token};
    known.push_back(token);
  }
  return table;
}

template <bool kTokenIsRank>
void check_random_sequences(unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<std::uint32_t> symbol(0, 11);
  std::uniform_int_distribution<std::size_t> length(0, 300);
  std::size_t merged = 0;
  for (int round = 0; round < 400; ++round) {
    const Table table = random_table(random, kTokenIsRank);
    std::vector<std::uint32_t> symbols(length(random));
    for (auto& s : symbols) s = symbol(random);
    const std::vector<std::uint32_t> want = reference(symbols, table);
    merged += symbols.size() - want.size();
    // The path the sizes pick, and the long path for every size (a rank limit past the short keys).
    for (const std::uint32_t limit : {std::uint32_t{1} << 20, std::uint32_t{1} << 30}) {
      std::vector<std::uint32_t> got = symbols;
      const std::size_t n = merge_symbols(got.data(), got.size(), TableMerges<kTokenIsRank>{table, limit});
      got.resize(n);
      ASSERT_EQ(got, want) << "round " << round << ", " << symbols.size() << " symbols, rank limit " << limit;
    }
  }
  EXPECT_GT(merged, 10000u);  // the tables do merge: about a quarter of 60,000 symbols go
}

TEST(MergeLoop, MergesAsTheDefinitionSaysWhenTokensAreRanks) { check_random_sequences<true>(1); }
TEST(MergeLoop, MergesAsTheDefinitionSaysWhenTokensAreNotRanks) { check_random_sequences<false>(2); }

TEST(MergeLoop, LeftmostWinsATieAndNothingMergesPastTheEnd) {
  const Table table = {{{1, 1}, PairMerge{5, 7}}};
  std::vector<std::uint32_t> symbols = {1, 1, 1};
  symbols.resize(merge_symbols(symbols.data(), symbols.size(), TableMerges<false>{table, 100}));
  EXPECT_EQ(symbols, (std::vector<std::uint32_t>{7, 1}));
  std::vector<std::uint32_t> one = {1};
  EXPECT_EQ(merge_symbols(one.data(), one.size(), TableMerges<false>{table, 100}), 1u);
  EXPECT_EQ(merge_symbols(one.data(), 0, TableMerges<false>{table, 100}), 0u);
}

}  // namespace
}  // namespace ctxwin::bpe
