#include "ctxwin/tokenizer/bpe/bpe.hpp"

#include <array>
#include <climits>
#include <queue>

namespace ctxwin {

namespace {

constexpr std::uint32_t kNone = RankTable::kNoRank;
// Up to this many bytes the quadratic scan beats the heap.
constexpr std::size_t kShortPiece = 128;

// Merges a short piece over token ids with tiktoken's choice at every step: the lowest rank first,
// the leftmost on ties. Parts keep their byte position (merging kills the right one and links
// around it), so nothing moves; each live part's pending merge is one int32 key,
// (rank << 7 | position), which orders by rank and then position, so the step's choice is the
// plain minimum of the keys: a loop the compiler vectorizes.
// Returns the number of parts left; `ids[k]` for k along `next` from 0 are the tokens.
constexpr std::int32_t kNoMerge = INT32_MAX;
static_assert(kShortPiece <= 128, "positions are 7 bits of a merge key");

struct ShortMerge {
  alignas(16) std::array<std::int32_t, kShortPiece> key;  // kNoMerge: dead, last, or no merge
  std::array<std::uint32_t, kShortPiece> ids;
  std::array<std::uint8_t, kShortPiece> next;  // next live part; count of bytes at the end
  std::array<std::uint8_t, kShortPiece> prev;  // previous live part; 0xFF before the first
};

inline std::int32_t merge_key(std::uint32_t rank, std::size_t position) noexcept {
  return rank == kNone ? kNoMerge : static_cast<std::int32_t>((rank << 7) | position);
}

std::size_t merge_short(std::string_view piece, const RankTable& ranks, ShortMerge& m) {
  const std::size_t n = piece.size();
  const std::size_t padded = (n + 7) & ~std::size_t{7};
  for (std::size_t k = 0; k < n; ++k) {
    m.ids[k] = ranks.byte_token(static_cast<unsigned char>(piece[k]));
    m.next[k] = static_cast<std::uint8_t>(k + 1);
    m.prev[k] = static_cast<std::uint8_t>(k - 1);
  }
  for (std::size_t k = 0; k + 1 < n; ++k) {
    m.key[k] = merge_key(ranks.byte_pair_rank(static_cast<unsigned char>(piece[k]), static_cast<unsigned char>(piece[k + 1])), k);
  }
  for (std::size_t k = n - 1; k < padded; ++k) m.key[k] = kNoMerge;
  std::size_t count = n;
  while (count > 1) {
    std::int32_t best = kNoMerge;
    for (std::size_t k = 0; k < padded; ++k) best = m.key[k] < best ? m.key[k] : best;
    if (best == kNoMerge) break;
    const std::size_t at = static_cast<std::size_t>(best) & 0x7F;
    const std::size_t right = m.next[at];
    const std::size_t after = m.next[right];
    m.ids[at] = static_cast<std::uint32_t>(best) >> 7;  // a merged token's id is its rank
    m.key[right] = kNoMerge;
    m.next[at] = static_cast<std::uint8_t>(after);
    --count;
    if (after < n) {
      m.prev[after] = static_cast<std::uint8_t>(at);
      m.key[at] = merge_key(ranks.merge_rank(m.ids[at], m.ids[after]), at);
    } else {
      m.key[at] = kNoMerge;
    }
    if (at > 0) {
      const std::size_t before = m.prev[at];
      m.key[before] = merge_key(ranks.merge_rank(m.ids[before], m.ids[at]), before);
    }
  }
  return count;
}

// The long-piece merge: parts in a doubly linked list, candidate merges in a min-heap ordered by
// (rank, position), stale entries skipped by a per-part version.
struct Part {
  std::uint32_t id;
  std::int32_t prev;
  std::int32_t next;
  std::uint32_t version;
  bool alive;
};
struct Candidate {
  std::uint32_t rank;
  std::uint32_t position;  // index of the left part: leftmost wins on equal ranks
  std::uint32_t version;
  bool operator>(const Candidate& other) const noexcept {
    return rank != other.rank ? rank > other.rank : position > other.position;
  }
};

std::vector<std::uint32_t> merge_long(std::string_view piece, const RankTable& ranks) {
  const auto n = static_cast<std::int32_t>(piece.size());
  std::vector<Part> parts(piece.size());
  for (std::int32_t k = 0; k < n; ++k) {
    parts[k] = Part{ranks.byte_token(static_cast<unsigned char>(piece[k])), k - 1, k + 1 < n ? k + 1 : -1, 0, true};
  }
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> heap;
  auto push = [&](std::int32_t k) {
    if (parts[k].next < 0) return;
    const std::uint32_t r = ranks.merge_rank(parts[k].id, parts[parts[k].next].id);
    if (r != kNone) heap.push(Candidate{r, static_cast<std::uint32_t>(k), parts[k].version});
  };
  for (std::int32_t k = 0; k + 1 < n; ++k) push(k);
  while (!heap.empty()) {
    const Candidate c = heap.top();
    heap.pop();
    const auto k = static_cast<std::int32_t>(c.position);
    Part& left = parts[k];
    if (!left.alive || left.version != c.version || left.next < 0) continue;
    Part& right = parts[left.next];
    right.alive = false;
    left.id = c.rank;
    left.next = right.next;
    if (left.next >= 0) parts[left.next].prev = k;
    ++left.version;
    push(k);
    if (left.prev >= 0) {
      ++parts[left.prev].version;
      push(left.prev);
    }
  }
  std::vector<std::uint32_t> ids;
  for (std::int32_t k = 0; k >= 0 && k < n; k = parts[k].next) ids.push_back(parts[k].id);
  return ids;
}

}  // namespace

std::size_t bpe_count(std::string_view piece, const RankTable& ranks) {
  if (piece.size() <= 1 || ranks.rank_of(piece) != kNone) return piece.empty() ? 0 : 1;
  return bpe_merge_count(piece, ranks);
}

std::size_t bpe_merge_count(std::string_view piece, const RankTable& ranks) {
  if (piece.size() <= kShortPiece) {
    ShortMerge scratch;
    return merge_short(piece, ranks, scratch);
  }
  return merge_long(piece, ranks).size();
}

void bpe_encode(std::string_view piece, const RankTable& ranks, std::vector<std::uint32_t>& out) {
  if (piece.empty()) return;
  if (const std::uint32_t whole = ranks.rank_of(piece); whole != kNone) {
    out.push_back(whole);
    return;
  }
  if (piece.size() <= kShortPiece) {
    ShortMerge scratch;
    merge_short(piece, ranks, scratch);
    for (std::size_t k = 0; k < piece.size(); k = scratch.next[k]) out.push_back(scratch.ids[k]);
    return;
  }
  const std::vector<std::uint32_t> ids = merge_long(piece, ranks);
  out.insert(out.end(), ids.begin(), ids.end());
}

}  // namespace ctxwin
