// Byte-pair merging of one pretokenized piece, with tiktoken's exact merge order: repeatedly merge
// the adjacent pair whose merged bytes have the lowest rank, the leftmost on ties.
//
// Short pieces use tiktoken's quadratic scan over a small array (fastest for the usual 2-20 bytes);
// long pieces (a megabyte of one character is one piece) use a heap over a linked list, O(n log n),
// which makes the same choices in the same order.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "ctxwin/rank_table.hpp"

namespace ctxwin {

// Number of tokens `piece` merges into. Does not materialize the tokens.
std::size_t bpe_count(std::string_view piece, const RankTable& ranks);

// bpe_count for a piece known not to be a single token (skips the whole-piece lookup).
std::size_t bpe_merge_count(std::string_view piece, const RankTable& ranks);

// Appends the tokens of `piece` to `out`.
void bpe_encode(std::string_view piece, const RankTable& ranks, std::vector<std::uint32_t>& out);

}  // namespace ctxwin
