#include "ctxwin/tokenizer/bpe/rank_file.hpp"

#include <cstdint>
#include <fstream>
#include <sstream>
#include <vector>

#include "ctxwin/error.hpp"

namespace ctxwin {

namespace {

[[noreturn]] void malformed(const std::string& source_name, const std::string& why) {
  throw Error(ErrorKind::Other, ErrorCode::RankDataUnavailable, "malformed BPE rank file " + source_name + ": " + why);
}

std::uint32_t read_u32(std::string_view contents, std::size_t at) {
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < 4; ++i) value |= std::uint32_t{static_cast<unsigned char>(contents[at + i])} << (8 * i);
  return value;
}

// Reads the whole file, or returns false when it cannot be opened.
bool read_file(const std::string& path, std::string& contents) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return false;
  std::ostringstream buffer;
  buffer << file.rdbuf();
  contents = std::move(buffer).str();
  return true;
}

}  // namespace

RankTable parse_rank_file(std::string_view contents, const std::string& source_name) {
  constexpr std::size_t kHeader = 16;
  if (contents.size() < kHeader || contents.substr(0, kRankFileMagic.size()) != kRankFileMagic) {
    malformed(source_name, "not a ctxwin rank file (bad magic)");
  }
  const std::uint32_t rank_count = read_u32(contents, 8);
  const std::uint32_t byte_count = read_u32(contents, 12);
  // Checked before anything is sized by them: every rank takes at least one byte of lengths.
  if (rank_count > RankTable::kMaxRanks) malformed(source_name, "more than 2^20 ranks");
  if (rank_count > contents.size() - kHeader || byte_count > contents.size() - kHeader - rank_count) {
    malformed(source_name, "the file is truncated");
  }
  std::vector<RankTable::Token> tokens;
  tokens.reserve(rank_count);
  std::size_t at = kHeader;
  std::size_t bytes_at = contents.size() - byte_count;
  for (std::uint32_t rank = 0; rank < rank_count; ++rank) {
    // LEB128, at most three bytes: a token is never longer than 65,535 bytes.
    std::uint32_t length = 0;
    for (unsigned shift = 0;; shift += 7) {
      if (at >= contents.size() - byte_count || shift > 14) malformed(source_name, "a token's length is cut off or too long");
      const auto byte = static_cast<unsigned char>(contents[at++]);
      length |= std::uint32_t{byte & 0x7Fu} << shift;
      if ((byte & 0x80u) == 0) break;
    }
    if (length == 0) continue;
    if (length > contents.size() - bytes_at) malformed(source_name, "the tokens need more bytes than the file has");
    tokens.push_back(RankTable::Token{contents.substr(bytes_at, length), rank});
    bytes_at += length;
  }
  if (at != contents.size() - byte_count) malformed(source_name, "the lengths do not end where the tokens begin");
  if (bytes_at != contents.size()) malformed(source_name, "the lengths do not add up to the tokens' bytes");
  return RankTable(tokens, source_name);
}

RankTable load_encoding_ranks(const std::string& data_dir, std::string_view name) {
  const std::string base = data_dir + "/" + std::string(name);
  std::string contents;
  if (read_file(base + ".bin", contents)) return parse_rank_file(contents, base + ".bin");
  if (read_file(base + ".tiktoken", contents)) return RankTable::parse(contents, base + ".tiktoken");
  throw Error(ErrorKind::Other, ErrorCode::RankDataUnavailable,
              "cannot read BPE rank file " + base + ".bin (nor " + std::string(name) + ".tiktoken there)");
}

}  // namespace ctxwin
