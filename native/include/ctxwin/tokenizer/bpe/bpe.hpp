// Byte-pair merging of one pretokenized piece, with tiktoken's exact merge order: repeatedly merge
// the adjacent pair whose merged bytes have the lowest rank, the leftmost on ties.
//
// The merging itself is the loop tokenizer.json's BPE model shares (native/src/tokenizer/bpe/
// merge_loop.hpp): a quadratic scan over a small array for the usual short pieces, a heap over a
// linked list, O(n log n), for long ones. Pieces of many kilobytes (a megabyte of one character is
// one piece) go to the backtracking search below, linear in time and memory.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "ctxwin/tokenizer/bpe/rank_table.hpp"

namespace ctxwin {

// Number of tokens `piece` merges into. Does not materialize the tokens.
std::size_t bpe_count(std::string_view piece, const RankTable& ranks);

// bpe_count for a piece known not to be a single token (skips the whole-piece lookup).
std::size_t bpe_merge_count(std::string_view piece, const RankTable& ranks);

// bpe_count of each of `pieces` into counts[0, size). Made for pieces of up to kBatchPieceBytes
// (first-seen words), and takes pieces of up to kBatchLongPieceBytes (camelCase identifiers of
// cl100k_base, the parts of CJK sentences); longer ones are merged one at a time, as by
// bpe_count. Each piece runs in a lane of the narrowest width that holds it (up to
// kBatchShortestLane bytes, up to kBatchPieceBytes: kBatchLanes lanes each; up to
// kBatchLongPieceBytes: kBatchLongLanes lanes), one width after the other.
// The same counts, faster on pieces that have not been seen: merging one piece is a chain of pair
// lookups, each waiting for the one before (about 60-100 ns each, cache misses in the rank
// table); this runs the merge loops of up to kBatchLanes pieces in turn, step by step, and asks
// for each step's pair slots before it reads them, so that the lookups of different pieces wait
// together instead of one after the other. The whole-token lookups are overlapped the same way.
inline constexpr std::size_t kBatchPieceBytes = 16;
inline constexpr std::size_t kBatchShortestLane = 8;  // pieces of up to 8 bytes run in lanes of their own
inline constexpr std::size_t kBatchLanes = 16;
inline constexpr std::size_t kBatchLongPieceBytes = 64;
inline constexpr std::size_t kBatchLongLanes = 8;
void bpe_count_batch(std::span<const std::string_view> pieces, const RankTable& ranks, std::uint32_t* counts);
// Appends the tokens of `piece` to `out`.
void bpe_encode(std::string_view piece, const RankTable& ranks, std::vector<std::uint32_t>& out);

// The same tokens as bpe_encode, found in time linear in the piece and memory of a few bits per
// byte and one word per token, where merging a piece of a million bytes takes a second and 40
// bytes a byte. It is github/rust-gems' backtracking BPE: take the longest token at the current
// position if it is compatible with the token before (the two merge from their bytes into
// themselves); else the next shorter token there; when none is, drop the token before and try
// its next shorter one. A bit per position remembers where no valid encoding can end, so each
// position is abandoned once. The BPE encoding of a text is the one sequence whose neighbours are
// all compatible, so this finds it; that needs every token to merge from its bytes back into
// itself (Encoding checks it before it uses these, as for for_each_independent_part). Linear
// whatever the piece repeats: a count holds a bounded number of tokens, and a long stretch that
// repeats a short period (`abab...`, `*` x 10^6) is searched with most of it cut out and a block of
// its tokens put back, exactly (bpe::search_piece in native/src/tokenizer/bpe/backtracker.hpp).
std::size_t bpe_backtrack_count(std::string_view piece, const RankTable& ranks);
void bpe_backtrack_encode(std::string_view piece, const RankTable& ranks, std::vector<std::uint32_t>& out);

// Pieces from which Encoding counts and encodes with the backtracking search: below it, the merge
// loop's short path and heap are faster.
inline constexpr std::size_t kBacktrackBytes = 512;

// Calls `part(bytes)` for consecutive parts of `piece` that merge independently of each other: the
// piece is cut at every code point boundary where no token can join across
// (RankTable::may_join_across), so no merge ever spans a cut and each side makes the same merges
// in the same order as it would alone. A sentence of CJK text, one piece of 50 to 200 bytes, falls
// apart into words and characters that are single tokens or repeat.
//
// A part is then counted like a piece of its own, whole-token lookup included; that is exact only
// when every token merges from its bytes back into itself. It holds for OpenAI's four files (the
// Encoding.EveryTokenMergesBackIntoItself test checks them), and Encoding checks any other rank
// data before it cuts pieces (Encoding::splits_long_pieces).
template <typename Part>
void for_each_independent_part(std::string_view piece, const RankTable& ranks, Part&& part) {
  std::size_t start = 0;
  for (std::size_t at = 2; at + 2 <= piece.size(); ++at) {
    if ((static_cast<unsigned char>(piece[at]) & 0xC0) == 0x80) continue;  // inside a code point
    if (ranks.may_join_across(piece, at)) continue;
    part(piece.substr(start, at - start));
    start = at;
  }
  part(piece.substr(start));
}

}  // namespace ctxwin
