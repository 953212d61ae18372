#include "ctxwin/tokenizer/bpe/bpe.hpp"

#include <algorithm>
#include <array>
#include <climits>
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

namespace {

// One piece's merge loop in bpe_count_batch: merge_loop.hpp's short path (keys rank << 7 |
// position, the step's merge the least key, symbols linked in place), split where it waits on
// memory: step() merges and asks for its new pairs' slots, settle() reads them. Up to `Width`
// bytes; the narrow lane's least key is a fixed loop the compiler unrolls, a wide one's stops at
// the piece's length rounded up to 8.
template <std::size_t Width>
class BatchLane {
 public:
  static_assert(Width % 8 == 0 && Width <= bpe::kShortSymbols);
  static constexpr std::int32_t kNone = INT32_MAX;
  static constexpr bool kFixed = Width <= kBatchPieceBytes;

  void start(std::string_view piece, const RankTable& ranks) noexcept {
    const std::size_t n = piece.size();
    if constexpr (kFixed) {
      clear(Width);
    } else {
      padded_ = (n + 7) & ~std::size_t{7};
      clear(padded_);
    }
    for (std::size_t k = 0; k < n; ++k) symbol_[k] = ranks.byte_token(static_cast<unsigned char>(piece[k]));
    for (std::size_t k = 0; k + 1 < n; ++k) {
      set_key(k, ranks.byte_pair_rank(static_cast<unsigned char>(piece[k]), static_cast<unsigned char>(piece[k + 1])));
    }
    size_ = n;
    count_ = static_cast<std::uint32_t>(n);
    pending_ = 0;
  }

  // Makes the next merge and asks for the slots of the pairs it creates; false when none is left.
  bool step(const RankTable& ranks) noexcept {
    std::int32_t best = kNone;
    if constexpr (kFixed) {
      for (std::size_t k = 0; k < Width; ++k) best = key_[k] < best ? key_[k] : best;
    } else {
      for (std::size_t k = 0; k < padded_; ++k) best = key_[k] < best ? key_[k] : best;
    }
    if (best == kNone) return false;
    const std::size_t at = static_cast<std::size_t>(best) & 0x7F;
    const std::size_t right = next_[at];
    const std::size_t after = next_[right];
    symbol_[at] = static_cast<std::uint32_t>(best) >> 7;
    key_[right] = kNone;
    key_[at] = kNone;
    next_[at] = static_cast<std::uint8_t>(after);
    --count_;
    if (after < size_) {
      prev_[after] = static_cast<std::uint8_t>(at);
      ask(at, after, ranks);
    }
    if (at > 0) ask(prev_[at], at, ranks);  // the first live symbol is always 0: merges kill the right one
    return true;
  }

  // Sets the keys of the pairs step() created.
  void settle(const RankTable& ranks) noexcept {
    for (std::size_t i = 0; i < pending_; ++i) {
      const std::size_t left = pending_left_[i];
      set_key(left, ranks.merge_rank(symbol_[left], symbol_[next_[left]]));
    }
    pending_ = 0;
  }

  std::uint32_t count() const noexcept { return count_; }

 private:
  void clear(std::size_t width) noexcept {
    for (std::size_t k = 0; k < width; ++k) {
      key_[k] = kNone;
      next_[k] = static_cast<std::uint8_t>(k + 1);
      prev_[k] = static_cast<std::uint8_t>(k - 1);
    }
  }
  void set_key(std::size_t k, std::uint32_t rank) noexcept {
    key_[k] = rank == RankTable::kNoRank ? kNone : static_cast<std::int32_t>((rank << 7) | k);
  }
  void ask(std::size_t left, std::size_t right, const RankTable& ranks) noexcept {
    ranks.prefetch_merge(symbol_[left], symbol_[right]);
    pending_left_[pending_++] = static_cast<std::uint8_t>(left);
  }

  alignas(16) std::array<std::int32_t, Width> key_;
  std::array<std::uint32_t, Width> symbol_;
  std::array<std::uint8_t, Width> next_;  // next live symbol; size_ past the last
  std::array<std::uint8_t, Width> prev_;
  std::array<std::uint8_t, 2> pending_left_;
  std::size_t pending_ = 0;
  std::size_t size_ = 0;
  std::size_t padded_ = Width;
  std::uint32_t count_ = 0;
};

// Merges pieces[queue[0, waiting)] in `Lanes` lanes of `Width` bytes: each lane merges one piece,
// and a finished lane takes the next waiting piece.
template <std::size_t Width, std::size_t Lanes>
void merge_in_lanes(std::span<const std::string_view> pieces, const std::uint32_t* queue, std::size_t waiting, const RankTable& ranks,
                    std::uint32_t* counts) {
  std::array<BatchLane<Width>, Lanes> lanes;
  std::array<std::uint32_t, Lanes> piece_of;
  std::size_t active = 0;
  std::size_t taken = 0;
  for (; active < Lanes && taken < waiting; ++active, ++taken) {
    piece_of[active] = queue[taken];
    lanes[active].start(pieces[queue[taken]], ranks);
  }
  while (active > 0) {
    for (std::size_t l = 0; l < active;) {
      if (lanes[l].step(ranks)) {
        ++l;
        continue;
      }
      counts[piece_of[l]] = lanes[l].count();
      if (taken < waiting) {
        piece_of[l] = queue[taken];
        lanes[l].start(pieces[queue[taken++]], ranks);
      } else {
        --active;
        lanes[l] = lanes[active];
        piece_of[l] = piece_of[active];
      }
    }
    for (std::size_t l = 0; l < active; ++l) lanes[l].settle(ranks);
  }
}

// Indices of the pieces that lanes of one width merge: on the stack for the usual batch.
class LaneQueue {
 public:
  explicit LaneQueue(std::size_t capacity) {
    if (capacity > storage_.size()) heap_.resize(capacity);
    items_ = heap_.empty() ? storage_.data() : heap_.data();
  }
  LaneQueue(const LaneQueue&) = delete;
  LaneQueue& operator=(const LaneQueue&) = delete;

  void push(std::size_t piece) noexcept { items_[size_++] = static_cast<std::uint32_t>(piece); }
  const std::uint32_t* data() const noexcept { return items_; }
  std::size_t size() const noexcept { return size_; }

 private:
  std::array<std::uint32_t, 64> storage_;
  std::vector<std::uint32_t> heap_;
  std::uint32_t* items_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace

void bpe_count_batch(std::span<const std::string_view> pieces, const RankTable& ranks, std::uint32_t* counts) {
  // Whole tokens first, their probes asked for together (each piece hashed once). What is left
  // waits for the lanes of the narrowest width that holds it: the least key of a step is a scan
  // of the lane's width, and a word of up to 8 bytes (most first-seen words) needs only 8 keys.
  std::array<std::uint64_t, 64> hash_storage;
  std::vector<std::uint64_t> hash_heap;
  std::uint64_t* hashes = hash_storage.data();
  if (pieces.size() > hash_storage.size()) {
    hash_heap.resize(pieces.size());
    hashes = hash_heap.data();
  }
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    hashes[i] = hash_bytes(pieces[i]);
    if (pieces[i].size() > 1) ranks.prefetch_rank_of_hash(hashes[i]);
  }
  LaneQueue up_to_8(pieces.size());
  LaneQueue up_to_16(pieces.size());
  LaneQueue up_to_64(pieces.size());
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    const std::string_view piece = pieces[i];
    if (piece.size() <= 1 || ranks.rank_of_hashed(piece, hashes[i]) != RankTable::kNoRank) {
      counts[i] = piece.empty() ? 0 : 1;
    } else if (piece.size() <= kBatchShortestLane) {
      up_to_8.push(i);
    } else if (piece.size() <= kBatchPieceBytes) {
      up_to_16.push(i);
    } else if (piece.size() <= kBatchLongPieceBytes) {
      up_to_64.push(i);
    } else {  // longer than a lane holds: merged alone
      counts[i] = static_cast<std::uint32_t>(bpe_merge_count(piece, ranks));
    }
  }
  merge_in_lanes<kBatchShortestLane, kBatchLanes>(pieces, up_to_8.data(), up_to_8.size(), ranks, counts);
  merge_in_lanes<kBatchPieceBytes, kBatchLanes>(pieces, up_to_16.data(), up_to_16.size(), ranks, counts);
  merge_in_lanes<kBatchLongPieceBytes, kBatchLongLanes>(pieces, up_to_64.data(), up_to_64.size(), ranks, counts);
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
