// OpenAI's rank tables in ctxwin's own compact form, the files the package ships
// (data/openai/<encoding>.bin, made from OpenAI's .tiktoken files by scripts/rank-data.mjs), and the
// loader that finds an encoding's table in a folder in either form.
//
// The compact form keeps what a .tiktoken file says (every token's bytes and its rank) in a
// quarter of the bytes and without base64 to decode: ranks are implicit in the order, each token
// is its length and its raw bytes. Little-endian:
//
//   "ctxwbp01"                   magic and version (8 bytes)
//   u32 rank_count               one more than the highest rank
//   u32 byte_count               the tokens' bytes in all
//   rank_count LEB128 lengths    the length of the token of rank 0, 1, ...; 0 where no token has
//                                that rank (p50k_base has none at 50256)
//   byte_count bytes             the tokens' bytes, in rank order
//
// Nothing is trusted: the sizes must add up exactly, and RankTable's constructor refuses what a
// .tiktoken file would be refused for (a token or a rank twice, a byte without its token).
//
//   RankTable ranks = parse_rank_file(contents, "o200k_base.bin");
//   RankTable same = load_encoding_ranks("<package>/data/openai", "o200k_base");
#pragma once

#include <string>
#include <string_view>

#include "ctxwin/tokenizer/bpe/rank_table.hpp"

namespace ctxwin {

inline constexpr std::string_view kRankFileMagic = "ctxwbp01";

// The table in a compact rank file's `contents`. Throws ctxwin::Error
// (ERR_CTXWIN_RANK_DATA_UNAVAILABLE) naming `source_name` when they are not one.
RankTable parse_rank_file(std::string_view contents, const std::string& source_name);

// The ranks of encoding `name` in `data_dir`: `<name>.bin` in the compact form when it is there,
// else OpenAI's `<name>.tiktoken` (a caller's own rankDataDir). Throws ctxwin::Error
// (ERR_CTXWIN_RANK_DATA_UNAVAILABLE) when neither can be read or the one read is malformed.
RankTable load_encoding_ranks(const std::string& data_dir, std::string_view name);

}  // namespace ctxwin
