#include "ctxwin/tokenizer/bpe/bpe.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

#include "tokenizer/bpe/backtracker.hpp"
#include "tokenizer/bpe/merge_loop.hpp"

namespace ctxwin {

namespace {

constexpr std::uint32_t kNone = RankTable::kNoRank;

// OpenAI's ranks as the merge loop's parameter: a merged token's id is its rank, and the first
// merges of a piece, between its bytes, come from the rank table's 256 x 256 table.
struct RankMerges {
  const RankTable& ranks;
  std::string_view piece;

  static constexpr bool token_is_rank() { return true; }
  std::uint32_t rank_limit() const noexcept { return RankTable::kMaxRanks; }
  bpe::PairMerge first(std::size_t k, std::uint32_t, std::uint32_t) const noexcept {
    const std::uint32_t rank = ranks.byte_pair_rank(static_cast<unsigned char>(piece[k]), static_cast<unsigned char>(piece[k + 1]));
    return {rank, rank};
  }
  bpe::PairMerge merge(std::uint32_t left, std::uint32_t right) const noexcept {
    const std::uint32_t rank = ranks.merge_rank(left, right);
    return {rank, rank};
  }
};

// Merges `piece` from its bytes into `ids` (which has room for one id per byte); returns how many.
std::size_t merge_bytes(std::string_view piece, const RankTable& ranks, std::uint32_t* ids) {
  for (std::size_t k = 0; k < piece.size(); ++k) ids[k] = ranks.byte_token(static_cast<unsigned char>(piece[k]));
  return bpe::merge_symbols(ids, piece.size(), RankMerges{ranks, piece});
}

}  // namespace

std::size_t bpe_count(std::string_view piece, const RankTable& ranks) {
  if (piece.size() <= 1 || ranks.rank_of(piece) != kNone) return piece.empty() ? 0 : 1;
  return bpe_merge_count(piece, ranks);
}

std::size_t bpe_merge_count(std::string_view piece, const RankTable& ranks) {
  if (piece.size() <= bpe::kShortSymbols) {
    std::array<std::uint32_t, bpe::kShortSymbols> ids;
    return merge_bytes(piece, ranks, ids.data());
  }
  std::vector<std::uint32_t> ids(piece.size());
  return merge_bytes(piece, ranks, ids.data());
}

void bpe_encode(std::string_view piece, const RankTable& ranks, std::vector<std::uint32_t>& out) {
  if (piece.empty()) return;
  if (const std::uint32_t whole = ranks.rank_of(piece); whole != kNone) {
    out.push_back(whole);
    return;
  }
  const std::size_t start = out.size();
  out.resize(start + piece.size());
  out.resize(start + merge_bytes(piece, ranks, out.data() + start));
}

}  // namespace ctxwin

namespace ctxwin {

namespace {

// A rank table as the backtracking search's vocabulary. Every rank merges from its bytes back into
// itself (Encoding checks it before it searches), so every rank is a token the search may take.
class RankVocabulary {
 public:
  explicit RankVocabulary(const RankTable& ranks) : ranks_(ranks) {}

  std::uint32_t byte_token(unsigned char byte) const noexcept { return ranks_.byte_token(byte); }
  std::uint32_t token_of(std::string_view bytes) const noexcept {
    const std::uint32_t rank = ranks_.rank_of(bytes);
    return rank == kNone ? bpe::kNoToken : rank;
  }
  std::size_t length_of(std::uint32_t rank) const noexcept { return ranks_.bytes_of(rank).size(); }
  std::size_t longest_token_from(unsigned char byte) const noexcept { return ranks_.longest_token_from(byte); }
  bool merges_into(std::string_view joined, std::uint32_t left, std::uint32_t right) {
    ids_.resize(joined.size());
    const std::size_t count = merge_bytes(joined, ranks_, ids_.data());
    return count == 2 && ids_[0] == left && ids_[1] == right;
  }

 private:
  const RankTable& ranks_;
  std::vector<std::uint32_t> ids_;
};

}  // namespace

std::size_t bpe_backtrack_count(std::string_view piece, const RankTable& ranks) {
  if (piece.empty()) return 0;
  RankVocabulary vocabulary(ranks);
  return bpe::search_piece(piece, vocabulary, nullptr);
}

void bpe_backtrack_encode(std::string_view piece, const RankTable& ranks, std::vector<std::uint32_t>& out) {
  if (piece.empty()) return;
  RankVocabulary vocabulary(ranks);
  bpe::search_piece(piece, vocabulary, &out);
}

}  // namespace ctxwin
