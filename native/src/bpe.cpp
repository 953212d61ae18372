#include "ctxwin/bpe.hpp"

#include <array>
#include <cstring>
#include <queue>

namespace ctxwin {

namespace {

constexpr std::uint32_t kNone = RankTable::kNoRank;
// Up to this many bytes the quadratic scan beats the heap.
constexpr std::size_t kShortPiece = 128;

// Merges a short piece in place over token ids: tiktoken's loop (lowest rank first, leftmost on
// ties), with each pair's rank read from the pair table. Returns the number of tokens left in `ids`.
std::size_t merge_short(std::string_view piece, const RankTable& ranks, std::array<std::uint32_t, kShortPiece>& ids) {
  std::size_t count = piece.size();
  std::array<std::uint32_t, kShortPiece> rank;  // rank[k]: merging ids[k] with ids[k + 1]
  for (std::size_t k = 0; k < count; ++k) ids[k] = ranks.byte_token(static_cast<unsigned char>(piece[k]));
  for (std::size_t k = 0; k + 1 < count; ++k) {
    rank[k] = ranks.byte_pair_rank(static_cast<unsigned char>(piece[k]), static_cast<unsigned char>(piece[k + 1]));
  }
  while (count > 1) {
    // (rank << 32 | position): the minimum is the lowest rank, the leftmost on ties, and the
    // comparison compiles to a conditional move instead of a hard-to-predict branch.
    std::uint64_t best = ~std::uint64_t{0};
    for (std::size_t k = 0; k + 1 < count; ++k) {
      const std::uint64_t candidate = (std::uint64_t{rank[k]} << 32) | k;
      best = candidate < best ? candidate : best;
    }
    if ((best >> 32) == kNone) break;
    const std::size_t at = static_cast<std::size_t>(best & 0xFFFFFFFFu);
    ids[at] = static_cast<std::uint32_t>(best >> 32);  // a merged token's id is its rank
    const std::size_t tail = count - at - 2;
    std::memmove(&ids[at + 1], &ids[at + 2], tail * sizeof(std::uint32_t));
    std::memmove(&rank[at + 1], &rank[at + 2], tail * sizeof(std::uint32_t));
    --count;
    if (at + 1 < count) rank[at] = ranks.merge_rank(ids[at], ids[at + 1]);
    if (at > 0) rank[at - 1] = ranks.merge_rank(ids[at - 1], ids[at]);
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
    std::array<std::uint32_t, kShortPiece> ids;
    return merge_short(piece, ranks, ids);
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
    std::array<std::uint32_t, kShortPiece> ids;
    const std::size_t count = merge_short(piece, ranks, ids);
    out.insert(out.end(), ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(count));
    return;
  }
  const std::vector<std::uint32_t> ids = merge_long(piece, ranks);
  out.insert(out.end(), ids.begin(), ids.end());
}

}  // namespace ctxwin
