// The byte-pair merge loop, written once for every BPE family: OpenAI's encodings (bpe.cpp, over
// the ranks of a .tiktoken file) and the BPE model of tokenizer.json files (hf/bpe_model.cpp, over
// its "merges"). Both apply, over and over, the merge of lowest rank among adjacent symbols, the
// leftmost on ties, until no pair merges: tiktoken's order and the tokenizers crate's
// (models/bpe/word.rs). Internal to the core.
//
// What differs between the families is the `Merges` parameter, a small class of the caller's:
//
//   struct Merges {
//     // The token the merge of `left` then `right` makes, and its rank (kNoMerge: they do not merge).
//     PairMerge merge(std::uint32_t left, std::uint32_t right) const;
//     // The same for the first pairs, symbols[k] and symbols[k + 1] as they start: a byte-level
//     // encoding answers these from a 256 x 256 table instead of its merge index.
//     PairMerge first(std::size_t k, std::uint32_t left, std::uint32_t right) const;
//     // One past the highest rank there is.
//     std::uint32_t rank_limit() const;
//     // True when a merge's token is its rank (OpenAI's files): the loop keeps no tokens of its own.
//     static constexpr bool token_is_rank();
//   };
//
//   std::size_t n = merge_symbols(symbols.data(), symbols.size(), merges);   // symbols[0, n) are the tokens
//
// Up to 128 symbols (nearly every piece) the loop is tiktoken's quadratic scan over a small array,
// fastest for the usual 2-20 symbols; beyond that, a heap of candidate merges over a linked list,
// O(n log n), which makes the same choices in the same order. A merge algorithm for huge pieces
// (linear time) belongs here, as a third path, so that both families get it.
#pragma once

#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

namespace ctxwin::bpe {

inline constexpr std::uint32_t kNoMerge = 0xFFFFFFFFu;

struct PairMerge {
  std::uint32_t rank = kNoMerge;
  std::uint32_t token = 0;
};

// Symbols up to which the short path runs: positions are 7 bits of its merge keys.
inline constexpr std::size_t kShortSymbols = 128;
// Ranks the short path's keys can hold: rank << 7 | position must fit an int32.
inline constexpr std::uint32_t kShortRankLimit = 1u << 24;

namespace detail {

// Each live symbol's pending merge with its right neighbour is one int32 key, rank << 7 | position,
// which orders by rank and then position: the step's merge is the plain minimum of the keys, a
// loop the compiler vectorizes. Symbols keep their position (a merge kills the right one and links
// around it), so nothing moves.
template <typename Merges>
std::size_t merge_short(std::uint32_t* symbols, std::size_t n, const Merges& merges) {
  constexpr std::int32_t kNone = INT32_MAX;
  alignas(16) std::array<std::int32_t, kShortSymbols> key;
  [[maybe_unused]] std::array<std::uint32_t, Merges::token_is_rank() ? 1 : kShortSymbols> token;  // what each key's merge makes
  std::array<std::uint8_t, kShortSymbols> next;                                                   // next live symbol; n past the last
  std::array<std::uint8_t, kShortSymbols> prev;                                                   // previous live symbol
  const auto set_key = [&](std::size_t k, PairMerge m) {
    if (m.rank == kNoMerge) {
      key[k] = kNone;
      return;
    }
    key[k] = static_cast<std::int32_t>((m.rank << 7) | k);
    if constexpr (!Merges::token_is_rank()) token[k] = m.token;
  };
  const std::size_t padded = (n + 7) & ~std::size_t{7};
  for (std::size_t k = 0; k < n; ++k) {
    next[k] = static_cast<std::uint8_t>(k + 1);
    prev[k] = static_cast<std::uint8_t>(k - 1);
  }
  for (std::size_t k = 0; k + 1 < n; ++k) set_key(k, merges.first(k, symbols[k], symbols[k + 1]));
  for (std::size_t k = n - 1; k < padded; ++k) key[k] = kNone;
  std::size_t count = n;
  while (count > 1) {
    std::int32_t best = kNone;
    for (std::size_t k = 0; k < padded; ++k) best = key[k] < best ? key[k] : best;
    if (best == kNone) break;
    const std::size_t at = static_cast<std::size_t>(best) & 0x7F;
    const std::size_t right = next[at];
    const std::size_t after = next[right];
    if constexpr (Merges::token_is_rank()) {
      symbols[at] = static_cast<std::uint32_t>(best) >> 7;
    } else {
      symbols[at] = token[at];
    }
    key[right] = kNone;
    next[at] = static_cast<std::uint8_t>(after);
    --count;
    if (after < n) {
      prev[after] = static_cast<std::uint8_t>(at);
      set_key(at, merges.merge(symbols[at], symbols[after]));
    } else {
      key[at] = kNone;
    }
    if (at > 0) {  // the first live symbol is always symbol 0: a merge only ever kills the right one
      const std::size_t before = prev[at];
      set_key(before, merges.merge(symbols[before], symbols[at]));
    }
  }
  std::size_t out = 0;
  for (std::size_t k = 0; k < n; k = next[k]) symbols[out++] = symbols[k];
  return count;
}

// The long path: symbols in a doubly linked list, candidate merges in a min-heap ordered by
// (rank, position), stale candidates skipped by a per-symbol version.
template <typename Merges>
std::size_t merge_long(std::uint32_t* symbols, std::size_t n, const Merges& merges) {
  struct Part {
    std::uint32_t id;
    std::int32_t prev;
    std::int32_t next;
    std::uint32_t version;
    bool alive;
  };
  struct Candidate {
    std::uint32_t rank;
    std::uint32_t position;  // of the left symbol: the leftmost wins on equal ranks
    std::uint32_t version;
    std::uint32_t token;
    bool operator>(const Candidate& other) const noexcept { return rank != other.rank ? rank > other.rank : position > other.position; }
  };
  const auto count = static_cast<std::int32_t>(n);
  std::vector<Part> parts(n);
  for (std::int32_t k = 0; k < count; ++k) parts[k] = Part{symbols[k], k - 1, k + 1 < count ? k + 1 : -1, 0, true};
  std::vector<Candidate> storage;
  storage.reserve(n);
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> heap(std::greater<>{}, std::move(storage));
  const auto push = [&](std::int32_t k, PairMerge m) {
    if (m.rank != kNoMerge) heap.push(Candidate{m.rank, static_cast<std::uint32_t>(k), parts[k].version, m.token});
  };
  const auto push_next = [&](std::int32_t k) {
    if (parts[k].next >= 0) push(k, merges.merge(parts[k].id, parts[parts[k].next].id));
  };
  for (std::int32_t k = 0; k + 1 < count; ++k) push(k, merges.first(static_cast<std::size_t>(k), symbols[k], symbols[k + 1]));
  while (!heap.empty()) {
    const Candidate c = heap.top();
    heap.pop();
    const auto k = static_cast<std::int32_t>(c.position);
    Part& left = parts[k];
    if (!left.alive || left.version != c.version || left.next < 0) continue;
    Part& right = parts[left.next];
    right.alive = false;
    left.id = c.token;
    left.next = right.next;
    if (left.next >= 0) parts[left.next].prev = k;
    ++left.version;
    push_next(k);
    if (left.prev >= 0) {
      ++parts[left.prev].version;
      push_next(left.prev);
    }
  }
  std::size_t out = 0;
  for (std::int32_t k = 0; k >= 0 && k < count; k = parts[k].next) symbols[out++] = parts[k].id;
  return out;
}

}  // namespace detail

// Merges `symbols[0, n)` in place; returns how many remain, which are symbols[0, result).
template <typename Merges>
std::size_t merge_symbols(std::uint32_t* symbols, std::size_t n, const Merges& merges) {
  if (n <= 1) return n;
  if (n <= kShortSymbols && merges.rank_limit() <= kShortRankLimit) return detail::merge_short(symbols, n, merges);
  return detail::merge_long(symbols, n, merges);
}

}  // namespace ctxwin::bpe
