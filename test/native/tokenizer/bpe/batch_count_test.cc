// bpe_count_batch (several pieces' merge loops interleaved, their pair lookups prefetched) and the
// pair table under RankTable::merge_rank, against the definition written the slow way: merge the
// adjacent pair whose joined bytes have the lowest rank (rank_of of the bytes, not the pair
// table), the leftmost on ties. Many random and first-seen pieces of OpenAI's four encodings.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "ctxwin/tokenizer/bpe/bpe.hpp"
#include "ctxwin/tokenizer/bpe/encoding.hpp"
#include "ctxwin/tokenizer/utf8.hpp"

namespace ctxwin {
namespace {

constexpr const char* kNames[] = {"r50k_base", "p50k_base", "cl100k_base", "o200k_base"};

// The number of tokens `piece` merges into, by bytes alone.
std::size_t reference_count(std::string_view piece, const RankTable& ranks) {
  std::vector<std::string> parts;
  for (const char c : piece) parts.emplace_back(1, c);
  for (;;) {
    std::size_t best = parts.size();
    std::uint32_t best_rank = RankTable::kNoRank;
    for (std::size_t k = 0; k + 1 < parts.size(); ++k) {
      std::string joined = parts[k];
      joined.append(parts[k + 1]);
      const std::uint32_t rank = ranks.rank_of(joined);
      if (rank < best_rank) {
        best_rank = rank;
        best = k;
      }
    }
    if (best == parts.size()) return parts.size();
    parts[best] += parts[best + 1];
    parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(best) + 1);
  }
}

// Pieces of 1 to `longest` bytes of several kinds: dictionary-like words that are seldom tokens,
// random ASCII, random bytes, UTF-8 letters, whole tokens, and tokens with a byte added or removed.
std::vector<std::string> random_pieces(std::mt19937& random, const RankTable& ranks, std::size_t how_many,
                                       std::size_t longest = kBatchPieceBytes) {
  static constexpr std::string_view kSyllables[] = {"qu", "an", "tion", "ing", "er", "st", "ph",  "o",  "a",  "e",  "i",
                                                    "u",  "th", "ck",   "zz",  "x",  "ly", "ous", "'s", "re", "un", "ab"};
  static constexpr std::string_view kLetters[] = {"é", "ß", "ü", "ж", "д", "ش", "中", "文", "語", "ñ", "ø", "α", "🙂"};
  std::vector<std::string> pieces;
  std::uniform_int_distribution<int> kind(0, 5);
  std::uniform_int_distribution<std::size_t> length(1, longest);
  std::uniform_int_distribution<std::uint32_t> rank(0, ranks.max_rank());
  while (pieces.size() < how_many) {
    std::string piece;
    const std::size_t target = length(random);
    switch (kind(random)) {
      case 0:
        if (random() % 2) piece.push_back(' ');
        while (piece.size() < target) piece.append(kSyllables[random() % std::size(kSyllables)]);
        break;
      case 1:
        while (piece.size() < target) piece += static_cast<char>(' ' + random() % 95);
        break;
      case 2:
        while (piece.size() < target) piece += static_cast<char>(random() % 256);
        break;
      case 3:
        while (piece.size() < target) piece.append(kLetters[random() % std::size(kLetters)]);
        break;
      case 4:
        piece = std::string(ranks.bytes_of(rank(random)));
        break;
      default:
        piece = std::string(ranks.bytes_of(rank(random)));
        if (random() % 2 || piece.size() < 2)
          piece += static_cast<char>('a' + random() % 26);
        else
          piece.pop_back();
        break;
    }
    if (piece.empty()) continue;
    if (piece.size() > longest) piece.resize(longest);
    pieces.push_back(std::move(piece));
  }
  return pieces;
}

TEST(BpeCountBatch, CountsAsTheMergeLoopAndTheDefinitionOnRandomPieces) {
  std::mt19937 random(40);
  for (const char* name : kNames) {
    const RankTable& ranks = Encoding::get(name, CTXWIN_RANK_DATA_DIR).ranks();
    // Pieces for the narrow lanes, and a third of them for the wide lanes or past them.
    std::vector<std::string> pieces = random_pieces(random, ranks, 4000);
    for (std::string& piece : random_pieces(random, ranks, 2000, kBatchLongPieceBytes + 8)) pieces.push_back(std::move(piece));
    std::shuffle(pieces.begin(), pieces.end(), random);
    // Batches of every size from 1 to past the 64 the batch keeps on its stack, and one of all.
    std::vector<std::string_view> views(pieces.begin(), pieces.end());
    std::size_t checked = 0;
    for (std::size_t size = 1; checked < views.size(); size = size % 97 + 1) {
      const std::size_t take = std::min(size, views.size() - checked);
      const std::span<const std::string_view> batch(views.data() + checked, take);
      std::vector<std::uint32_t> counts(take, 12345);
      bpe_count_batch(batch, ranks, counts.data());
      for (std::size_t i = 0; i < take; ++i) {
        const std::size_t expected = reference_count(batch[i], ranks);
        ASSERT_EQ(counts[i], expected) << name << ": piece \"" << batch[i] << "\" in a batch of " << take;
        ASSERT_EQ(bpe_count(batch[i], ranks), expected) << name << ": piece \"" << batch[i] << "\"";
      }
      checked += take;
    }
    std::vector<std::uint32_t> all(views.size());
    bpe_count_batch(views, ranks, all.data());
    for (std::size_t i = 0; i < views.size(); ++i) ASSERT_EQ(all[i], bpe_count(views[i], ranks)) << name << ": \"" << views[i] << "\"";
  }
}

// Empty pieces count 0, and pieces longer than a lane holds are still counted.
TEST(BpeCountBatch, EmptyBatchEmptyPiecesAndLongPieces) {
  const RankTable& ranks = Encoding::get("cl100k_base", CTXWIN_RANK_DATA_DIR).ranks();
  bpe_count_batch({}, ranks, nullptr);
  const std::vector<std::string_view> pieces = {"", "a", "", " unrecognizably", " antidisestablishmentarianism's"};
  std::vector<std::uint32_t> counts(pieces.size());
  bpe_count_batch(pieces, ranks, counts.data());
  EXPECT_EQ(counts, (std::vector<std::uint32_t>{0, 1, 0, static_cast<std::uint32_t>(bpe_count(" unrecognizably", ranks)),
                                                static_cast<std::uint32_t>(reference_count(" antidisestablishmentarianism's", ranks))}));
}

// The pair table: a token's splits into two tokens merge into it at exactly one of them (its last
// merge: rank_table_merges_test.cc says which), and other pairs (random ones, nearly all not
// merges) merge into nothing, or into the token their bytes spell.
TEST(RankTableMerges, PairTableAgreesWithTheTokensBytes) {
  std::mt19937 random(41);
  for (const char* name : kNames) {
    const RankTable& ranks = Encoding::get(name, CTXWIN_RANK_DATA_DIR).ranks();
    std::uniform_int_distribution<std::uint32_t> pick(0, ranks.max_rank());
    std::size_t tokens = 0;
    for (std::uint32_t rank = 0; rank <= ranks.max_rank(); rank += 7) {
      const std::string_view bytes = ranks.bytes_of(rank);
      if (bytes.size() < 2) continue;
      std::size_t merging = 0;
      for (std::size_t k = 1; k < bytes.size(); ++k) {
        const std::uint32_t left = ranks.rank_of(bytes.substr(0, k));
        const std::uint32_t right = ranks.rank_of(bytes.substr(k));
        if (left == RankTable::kNoRank || right == RankTable::kNoRank) continue;
        const std::uint32_t merged = ranks.merge_rank(left, right);
        if (merged == RankTable::kNoRank) continue;
        ASSERT_EQ(merged, rank) << name << ": " << left << " + " << right;
        ++merging;
      }
      ASSERT_EQ(merging, 1u) << name << ": rank " << rank;
      ++tokens;
    }
    EXPECT_GT(tokens, ranks.size() / 10) << name;
    for (int i = 0; i < 200000; ++i) {
      const std::uint32_t left = pick(random);
      const std::uint32_t right = i % 2 ? pick(random) : ranks.byte_token(static_cast<unsigned char>(random()));
      const std::string_view a = ranks.bytes_of(left);
      const std::string_view b = ranks.bytes_of(right);
      if (a.empty() || b.empty()) continue;
      std::string joined(a);
      joined.append(b);
      const std::uint32_t merged = ranks.merge_rank(left, right);
      if (merged != RankTable::kNoRank) {
        ASSERT_EQ(merged, ranks.rank_of(joined)) << name << ": " << left << " + " << right;
      }
    }
    // Token 0 twice: a merge in every one of these files ("!!", two bytes: its only split), beside
    // the empty slots' word 0.
    EXPECT_EQ(ranks.merge_rank(0, 0), ranks.rank_of(std::string(2, ranks.bytes_of(0)[0]))) << name;
    EXPECT_EQ(ranks.merge_rank(RankTable::kMaxRanks, 0), RankTable::kNoRank) << name;
  }
}

// `text` counts as many tokens as `encoding` encodes it to: with a cache, with it warm, without one.
void expect_counts_as_encoded(const Encoding& encoding, std::string_view text, const char* name) {
  const std::size_t expected = encoding.encode(text).size();
  const auto cache = encoding.new_cache();
  EXPECT_EQ(encoding.count_valid(text, cache.get()), expected) << name;
  EXPECT_EQ(encoding.count_valid(text, cache.get()), expected) << name << " (cache warm)";
  EXPECT_EQ(encoding.count_valid(text, nullptr), expected) << name << " (no cache)";
}

// Through Encoding: a text of first-seen words counts the same with a cache, without one, and as
// its tokens, so the waiting pieces are all counted and each once.
TEST(BpeCountBatch, EncodingCountsFirstSeenWordsAsItEncodesThem) {
  std::mt19937 random(42);
  for (const char* name : {"cl100k_base", "o200k_base"}) {
    const Encoding& encoding = Encoding::get(name, CTXWIN_RANK_DATA_DIR);
    const std::vector<std::string> words = random_pieces(random, encoding.ranks(), 3000);
    std::string text;
    for (std::size_t i = 0; i < words.size(); ++i) {
      text.push_back(i % 13 == 0 ? '\n' : ' ');
      text.append(words[i]);
    }
    if (!is_valid_utf8(text)) text = repair_utf8(text);
    expect_counts_as_encoded(encoding, text, name);
  }
}

// Long pieces (over 15 bytes) count their parts through the batch too, a piece's count gathered
// over batches when its parts fill several: identifiers of 16 to 90 letters (one piece each with
// cl100k_base, cut at case changes by o200k_base), CJK runs of up to 60 characters, and runs of
// many long pieces in a row (more than a batch's worth waiting at once), with a cache, with it
// warm and without one, against the length of the encoding.
TEST(BpeCountBatch, EncodingCountsLongPiecesAsItEncodesThem) {
  static constexpr std::string_view kSyllables[] = {"Qu", "an", "tion", "ing", "er", "St", "ph", "o",
                                                    "a",  "Zz", "ly",   "ous", "un", "Ab", "x"};
  static constexpr std::string_view kCjk[] = {"中", "文", "語", "の", "は", "日", "本", "人", "す", "る", "한", "국", "어", "鬱", "龘"};
  std::mt19937 random(43);
  std::string text;
  for (int i = 0; i < 4000; ++i) {
    text.push_back(i % 17 == 0 ? '\n' : ' ');
    const std::size_t target = 16 + random() % 75;
    std::string piece;
    if (random() % 3 == 0) {
      while (piece.size() < target) piece.append(kCjk[random() % std::size(kCjk)]);
    } else {
      while (piece.size() < target) piece.append(kSyllables[random() % std::size(kSyllables)]);
    }
    text.append(piece);
    if (i % 100 == 0) text.append(" short words between them");
  }
  for (const char* name : {"cl100k_base", "o200k_base"}) {
    const Encoding& encoding = Encoding::get(name, CTXWIN_RANK_DATA_DIR);
    expect_counts_as_encoded(encoding, text, name);
  }
}

}  // namespace
}  // namespace ctxwin
