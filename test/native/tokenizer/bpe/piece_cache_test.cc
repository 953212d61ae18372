#include "ctxwin/tokenizer/bpe/piece_cache.hpp"

#include <gtest/gtest.h>

#include <string>

#include "ctxwin/tokenizer/bpe/encoding.hpp"
#include "ctxwin/tokenizer/bpe/rank_table.hpp"

namespace ctxwin {
namespace {

TEST(PieceCache, RemembersAndForgets) {
  PieceCache cache(4, 1 << 10);
  EXPECT_EQ(cache.find("piece"), PieceCache::kMissing);
  cache.insert("piece", 3);
  EXPECT_EQ(cache.find("piece"), 3u);
  EXPECT_EQ(cache.find("piec"), PieceCache::kMissing);
  for (const char* key : {"p0", "p1", "p2", "p3"}) cache.insert(key, 1);
  // Full at 4 entries: the fifth insert started over.
  EXPECT_LE(cache.size(), 4u);
  cache.clear();
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.find("piece"), PieceCache::kMissing);
}

// The long-piece table grows as it fills (it starts at 1,024 slots): every piece kept is found
// again with its count after many doublings, by either lookup, and it still starts over when full.
TEST(PieceCache, LongPiecesAreFoundAgainAsTheTableGrows) {
  PieceCache cache(20000, 1 << 22);
  const auto piece = [](int i) { return "a long piece of text number " + std::to_string(i); };
  for (int i = 0; i < 20000; ++i) cache.insert(piece(i), static_cast<std::uint32_t>(i % 1000));
  EXPECT_EQ(cache.size(), 20000u);
  for (int i = 0; i < 20000; ++i) {
    const std::string p = piece(i);
    ASSERT_EQ(cache.find(p), static_cast<std::uint32_t>(i % 1000)) << p;
    ASSERT_EQ(cache.find(p, hash_bytes(p)), static_cast<std::uint32_t>(i % 1000)) << p;
  }
  EXPECT_EQ(cache.find(piece(20000)), PieceCache::kMissing);
  cache.insert(piece(20000), 7);  // full: starts over
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(cache.find(piece(20000)), 7u);
  EXPECT_EQ(cache.find(piece(0)), PieceCache::kMissing);
}

TEST(PieceCache, CountsAreTheSameWithAndWithoutIt) {
  const Encoding& enc = Encoding::get("cl100k_base", CTXWIN_RANK_DATA_DIR);
  PieceCache cache(8, 1 << 12);  // small: exercises the reset path
  std::string text;
  for (int i = 0; i < 200; ++i) {
    text += "Supercalifragilistic antidisestablishment ";
    text += std::to_string(i * 7919);
    text += " 日本語のテキスト ";
  }
  EXPECT_EQ(enc.count(text, &cache), enc.count(text));
  EXPECT_EQ(enc.count(text, &cache), enc.count(text));
}

// A token's pairs merge into it at one split only, its last merge (rank_table_merges_test.cc).
TEST(RankTable, PairTableAgreesWithByteLookups) {
  const RankTable& ranks = Encoding::get("o200k_base", CTXWIN_RANK_DATA_DIR).ranks();
  for (const char* word : {"hello", " world", "tokenization", "日本"}) {
    const std::string w = word;
    std::size_t merging = 0;
    for (std::size_t k = 1; k < w.size(); ++k) {
      const auto left = ranks.rank_of(w.substr(0, k));
      const auto right = ranks.rank_of(w.substr(k));
      if (left == RankTable::kNoRank || right == RankTable::kNoRank) continue;
      const auto merged = ranks.merge_rank(left, right);
      if (merged == RankTable::kNoRank) continue;
      EXPECT_EQ(merged, ranks.rank_of(w)) << w << " split at " << k;
      ++merging;
    }
    EXPECT_EQ(merging, ranks.rank_of(w) == RankTable::kNoRank ? 0u : 1u) << w;
  }
  EXPECT_EQ(ranks.byte_pair_rank('h', 'e'), ranks.rank_of("he"));
}

TEST(RankTable, EveryTokenIsFoundIncludingTheLongestPerFirstByte) {
  // rank_of answers "no" without probing for bytes longer than every token with their first
  // byte; the longest tokens themselves must still be found.
  for (const char* name : {"cl100k_base", "o200k_base"}) {
    const RankTable& ranks = Encoding::get(name, CTXWIN_RANK_DATA_DIR).ranks();
    std::size_t found = 0;
    for (std::uint32_t rank = 0; rank <= ranks.max_rank(); ++rank) {
      const std::string_view bytes = ranks.bytes_of(rank);
      if (bytes.empty()) continue;
      ASSERT_EQ(ranks.rank_of(bytes), rank) << name;
      ++found;
    }
    EXPECT_EQ(found, ranks.size()) << name;
    EXPECT_EQ(ranks.rank_of(std::string(300, ' ')), RankTable::kNoRank);
    EXPECT_EQ(ranks.rank_of(""), RankTable::kNoRank);
  }
}

}  // namespace
}  // namespace ctxwin

namespace ctxwin {
namespace {

TEST(PieceCache, ShortTableKeysOnBytesAndLength) {
  PieceCache cache;
  EXPECT_EQ(cache.find_short("ab"), PieceCache::kMissing);
  cache.insert_short("ab", 1);
  cache.insert_short(std::string_view("ab\0", 3), 2);  // same bytes plus a NUL: a different piece
  cache.insert_short("fifteen-bytes!!", 4);
  EXPECT_EQ(cache.find_short("ab"), 1u);
  EXPECT_EQ(cache.find_short(std::string_view("ab\0", 3)), 2u);
  EXPECT_EQ(cache.find_short("fifteen-bytes!!"), 4u);
  cache.clear();
  EXPECT_EQ(cache.find_short("ab"), PieceCache::kMissing);
}

}  // namespace
}  // namespace ctxwin
