#include "ctxwin/tokenizer/bpe/bpe.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <stdexcept>
#include <string>

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#elif defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

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
// bytes; the narrow lane's least key is a fixed number of vector minimums, a wide one's stops at
// the piece's length rounded up to 8. Neither half branches on where the merge was (at either
// end or not): those branches followed no pattern, and their mispredictions were a quarter of the
// lanes' time on first-seen words.
template <std::size_t Width>
class BatchLane {
 public:
  static_assert(Width % 8 == 0 && Width <= bpe::kShortSymbols);
  // Above every key (rank << 7 | position < 2^27), and a finite float's bits (least_key).
  static constexpr std::int32_t kNone = 0x7F000000;
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
    symbol_[n] = 0;
    symbol_[Width] = 0;
    for (std::size_t k = 0; k + 1 < n; ++k) {
      set_key(k, ranks.byte_pair_rank(static_cast<unsigned char>(piece[k]), static_cast<unsigned char>(piece[k + 1])));
    }
    size_ = n;
    count_ = static_cast<std::uint32_t>(n);
  }

  // Makes the next merge and asks for the slots of the two pairs it makes; false when none is left.
  // Without a branch on whether they exist: a pair past either end is asked as (0, 0), always the
  // same slot, its answer dropped, and the key of a pair before the first symbol goes to key_[Width],
  // which no least_key reads.
  bool step(const RankTable& ranks) noexcept {
    std::int32_t best = kNone;
    if constexpr (kFixed) {
      best = least_key(Width);
    } else {
      best = least_key(padded_);
    }
    if (best == kNone) return false;
    const std::size_t at = static_cast<std::size_t>(best) & 0x7F;
    const std::size_t right = next_[at];
    const std::size_t after = next_[right];
    const std::uint32_t merged = static_cast<std::uint32_t>(best) >> 7;
    symbol_[at] = merged;
    key_[right] = kNone;
    next_[at] = static_cast<std::uint8_t>(after);
    prev_[after] = static_cast<std::uint8_t>(at);  // after <= size_ <= Width
    --count_;
    const std::size_t before = prev_[at];  // Width when at is 0
    const std::uint32_t has_after = after < size_ ? ~0u : 0u;
    const std::uint32_t has_before = at > 0 ? ~0u : 0u;
    at_ = static_cast<std::uint8_t>(at);
    before_ = static_cast<std::uint8_t>(before);
    has_after_ = has_after;
    keys_[0] = RankTable::pair_key(merged & has_after, symbol_[after] & has_after);
    keys_[1] = RankTable::pair_key(symbol_[before] & has_before, merged & has_before);
    ranks.prefetch_merge_of_key(keys_[0]);
    ranks.prefetch_merge_of_key(keys_[1]);
    return true;
  }

  // Sets the keys of the pairs step() made.
  void settle(const RankTable& ranks) noexcept {
    const std::uint32_t right_rank = ranks.merge_rank_of_key(keys_[0]) | ~has_after_;
    set_key(at_, right_rank);
    set_key(before_, ranks.merge_rank_of_key(keys_[1]));
  }

  std::uint32_t count() const noexcept { return count_; }

 private:
  // The least of key_[0, width), width a multiple of 8.
  std::int32_t least_key(std::size_t width) const noexcept {
#if defined(__SSE2__) || defined(_M_X64)
    // As floats: keys are non-negative and below kNone, a finite float's bits, so they order as
    // floats do, and SSE has a packed float minimum where SSE2 has no packed int32 one (the
    // compiler's loop was scalar: 3 instructions a key, a tenth of the lanes' time on words).
    const auto four = [this](std::size_t k) { return _mm_castsi128_ps(_mm_load_si128(reinterpret_cast<const __m128i*>(key_.data() + k))); };
    __m128 m = _mm_min_ps(four(0), four(4));
    for (std::size_t k = 8; k < width; k += 8) m = _mm_min_ps(m, _mm_min_ps(four(k), four(k + 4)));
    m = _mm_min_ps(m, _mm_movehl_ps(m, m));
    m = _mm_min_ss(m, _mm_shuffle_ps(m, m, 1));
    return _mm_cvtsi128_si32(_mm_castps_si128(m));
#elif defined(__wasm_simd128__)
    v128_t m = wasm_i32x4_min(wasm_v128_load(key_.data()), wasm_v128_load(key_.data() + 4));
    for (std::size_t k = 8; k < width; k += 8) {
      m = wasm_i32x4_min(m, wasm_i32x4_min(wasm_v128_load(key_.data() + k), wasm_v128_load(key_.data() + k + 4)));
    }
    m = wasm_i32x4_min(m, wasm_i32x4_shuffle(m, m, 2, 3, 2, 3));
    m = wasm_i32x4_min(m, wasm_i32x4_shuffle(m, m, 1, 1, 1, 1));
    return wasm_i32x4_extract_lane(m, 0);
#else
    std::int32_t best = kNone;
    for (std::size_t k = 0; k < width; ++k) best = key_[k] < best ? key_[k] : best;
    return best;
#endif
  }

  void clear(std::size_t width) noexcept {
    for (std::size_t k = 0; k < width; ++k) {
      key_[k] = kNone;
      next_[k] = static_cast<std::uint8_t>(k + 1);
      prev_[k] = static_cast<std::uint8_t>(k - 1);
    }
    prev_[0] = static_cast<std::uint8_t>(Width);
  }
  void set_key(std::size_t k, std::uint32_t rank) noexcept {
    key_[k] = rank == RankTable::kNoRank ? kNone : static_cast<std::int32_t>((rank << 7) | k);
  }

  alignas(16) std::array<std::int32_t, Width + 8> key_;  // key_[Width]: the pair before the first symbol's
  std::array<std::uint32_t, Width + 1> symbol_;
  std::array<std::uint8_t, Width + 1> next_;  // next live symbol; size_ past the last
  std::array<std::uint8_t, Width + 1> prev_;  // Width before the first
  std::array<std::uint64_t, 2> keys_;         // the pairs step() made: (at, after), (before, at)
  std::uint32_t has_after_ = 0;
  std::uint8_t at_ = 0;
  std::uint8_t before_ = 0;
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
