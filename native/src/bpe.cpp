#include "ctxwin/bpe.hpp"

#include <array>
#include <queue>

namespace ctxwin {

namespace {

constexpr std::uint32_t kNone = RankTable::kNoRank;
// Up to this many bytes the quadratic scan beats the heap.
constexpr std::size_t kShortPiece = 128;

// Boundaries of the merged parts of a short piece: part k is [bounds[k], bounds[k + 1]).
// Returns the number of boundaries (parts + 1).
std::size_t merge_short(std::string_view piece, const RankTable& ranks,
                        std::array<std::uint32_t, kShortPiece + 1>& bounds) {
  const std::size_t n = piece.size();
  std::array<std::uint32_t, kShortPiece + 1> rank{};  // rank[k]: merging part k with part k + 1
  std::size_t count = n + 1;
  for (std::size_t k = 0; k <= n; ++k) bounds[k] = static_cast<std::uint32_t>(k);
  auto pair_rank = [&](std::size_t k) -> std::uint32_t {
    if (k + 2 >= count) return kNone;
    return ranks.rank_of(piece.substr(bounds[k], bounds[k + 2] - bounds[k]));
  };
  for (std::size_t k = 0; k + 1 < count; ++k) rank[k] = pair_rank(k);
  while (count > 2) {
    std::uint32_t best = kNone;
    std::size_t at = 0;
    for (std::size_t k = 0; k + 2 < count; ++k) {
      if (rank[k] < best) {
        best = rank[k];
        at = k;
      }
    }
    if (best == kNone) break;
    // Remove boundary at + 1: parts at and at + 1 become one.
    for (std::size_t k = at + 1; k + 1 < count; ++k) {
      bounds[k] = bounds[k + 1];
      rank[k] = rank[k + 1];
    }
    --count;
    rank[at] = pair_rank(at);
    if (at > 0) rank[at - 1] = pair_rank(at - 1);
  }
  return count;
}

// The long-piece merge: parts in a doubly linked list, candidate merges in a min-heap ordered by
// (rank, start), stale entries skipped by a per-part version.
struct Part {
  std::uint32_t start;
  std::int32_t prev;
  std::int32_t next;
  std::uint32_t version;
};
struct Candidate {
  std::uint32_t rank;
  std::uint32_t start;  // also the index of the left part
  std::uint32_t version;
  bool operator>(const Candidate& other) const noexcept {
    return rank != other.rank ? rank > other.rank : start > other.start;
  }
};

std::vector<Part> merge_long(std::string_view piece, const RankTable& ranks) {
  const auto n = static_cast<std::int32_t>(piece.size());
  std::vector<Part> parts(piece.size());
  for (std::int32_t k = 0; k < n; ++k) parts[k] = Part{static_cast<std::uint32_t>(k), k - 1, k + 1 < n ? k + 1 : -1, 0};
  auto end_of = [&](std::int32_t k) -> std::uint32_t {
    return parts[k].next < 0 ? static_cast<std::uint32_t>(n) : parts[parts[k].next].start;
  };
  auto rank_with_next = [&](std::int32_t k) -> std::uint32_t {
    const std::int32_t next = parts[k].next;
    if (next < 0) return kNone;
    const std::uint32_t begin = parts[k].start;
    return ranks.rank_of(piece.substr(begin, end_of(next) - begin));
  };
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> heap;
  auto push = [&](std::int32_t k) {
    const std::uint32_t r = rank_with_next(k);
    if (r != kNone) heap.push(Candidate{r, static_cast<std::uint32_t>(k), parts[k].version});
  };
  for (std::int32_t k = 0; k + 1 < n; ++k) push(k);
  std::vector<bool> alive(piece.size(), true);
  while (!heap.empty()) {
    const Candidate c = heap.top();
    heap.pop();
    const auto k = static_cast<std::int32_t>(c.start);
    if (!alive[k] || parts[k].version != c.version || parts[k].next < 0) continue;
    const std::int32_t right = parts[k].next;
    // Merge `right` into k.
    alive[right] = false;
    parts[k].next = parts[right].next;
    if (parts[k].next >= 0) parts[parts[k].next].prev = k;
    ++parts[k].version;
    push(k);
    if (parts[k].prev >= 0) {
      ++parts[parts[k].prev].version;
      push(parts[k].prev);
    }
  }
  std::vector<Part> result;
  for (std::int32_t k = 0; k >= 0 && k < n; k = parts[k].next) result.push_back(parts[k]);
  return result;
}

}  // namespace

std::size_t bpe_count(std::string_view piece, const RankTable& ranks) {
  if (piece.size() <= 1 || ranks.rank_of(piece) != kNone) return piece.empty() ? 0 : 1;
  if (piece.size() <= kShortPiece) {
    std::array<std::uint32_t, kShortPiece + 1> bounds;
    return merge_short(piece, ranks, bounds) - 1;
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
    std::array<std::uint32_t, kShortPiece + 1> bounds;
    const std::size_t count = merge_short(piece, ranks, bounds);
    for (std::size_t k = 0; k + 1 < count; ++k) {
      out.push_back(ranks.rank_of(piece.substr(bounds[k], bounds[k + 1] - bounds[k])));
    }
    return;
  }
  const std::vector<Part> parts = merge_long(piece, ranks);
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const std::uint32_t end = k + 1 < parts.size() ? parts[k + 1].start : static_cast<std::uint32_t>(piece.size());
    out.push_back(ranks.rank_of(piece.substr(parts[k].start, end - parts[k].start)));
  }
}

}  // namespace ctxwin
