#include "ctxwin/tokenizer/bpe/rank_table.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "ctxwin/error.hpp"
#include "ctxwin/tokenizer/bpe/short_bytes.hpp"

namespace ctxwin {

namespace {

constexpr std::array<int8_t, 256> make_base64_table() {
  std::array<int8_t, 256> table{};
  for (auto& v : table) v = -1;
  const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (int i = 0; i < 64; ++i) table[static_cast<unsigned char>(alphabet[i])] = static_cast<int8_t>(i);
  return table;
}
constexpr auto kBase64 = make_base64_table();

bool decode_base64(std::string_view in, std::string& out) {
  out.clear();
  std::uint32_t buffer = 0;
  int bits = 0;
  for (char c : in) {
    if (c == '=') break;
    const int v = kBase64[static_cast<unsigned char>(c)];
    if (v < 0) return false;
    buffer = (buffer << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xFF));
    }
  }
  return true;
}

inline std::uint64_t mix(std::uint64_t h, std::uint64_t v) noexcept {
  h ^= v * 0xBF58476D1CE4E5B9ull;
  h *= 0x94D049BB133111EBull;
  return h ^ (h >> 31);
}

}  // namespace

std::uint64_t hash_bytes(std::string_view bytes) noexcept {
  const char* p = bytes.data();
  std::size_t n = bytes.size();
  std::uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
  if (n <= 8) return mix(h, short_bytes::key_up_to_8(p, n));  // most pieces and tokens
  while (n > 8) {
    h = mix(h, short_bytes::load8(p));
    p += 8;
    n -= 8;
  }
  return mix(h, short_bytes::key_up_to_8(p, n));
}

RankTable RankTable::load(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    throw Error(ErrorKind::Other, ErrorCode::RankDataUnavailable, "cannot read BPE rank file " + path);
  }
  std::ostringstream contents;
  contents << file.rdbuf();
  return parse(contents.str(), path);
}

RankTable RankTable::parse(std::string_view contents, const std::string& source_name) {
  // Every token's bytes decoded into one buffer first, then the table built from views into it.
  std::string decoded;
  decoded.reserve(contents.size() * 3 / 4);
  std::vector<std::pair<std::size_t, std::size_t>> spans;  // offset, length in `decoded`
  std::vector<std::uint32_t> ranks;
  std::string bytes;
  std::size_t line_number = 0;
  std::size_t start = 0;
  while (start < contents.size()) {
    std::size_t end = contents.find('\n', start);
    if (end == std::string_view::npos) end = contents.size();
    std::string_view line = contents.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    const auto space = line.find(' ');
    std::uint32_t rank = 0;
    bool ok = space != std::string_view::npos && space + 1 < line.size() && decode_base64(line.substr(0, space), bytes) && !bytes.empty();
    for (std::size_t i = space + 1; ok && i < line.size(); ++i) {
      const char c = line[i];
      if (c < '0' || c > '9' || rank > 100000000u)
        ok = false;
      else
        rank = rank * 10 + static_cast<std::uint32_t>(c - '0');
    }
    if (!ok) {
      throw Error(ErrorKind::Other, ErrorCode::RankDataUnavailable,
                  "malformed BPE rank file " + source_name + " at line " + std::to_string(line_number));
    }
    // Checked here, before anything is sized by it: a rank of a billion in a 40-byte file used to
    // allocate gigabytes (found by test/fuzz/rank_data_fuzz).
    if (rank >= kMaxRanks) {
      throw Error(ErrorKind::Other, ErrorCode::RankDataUnavailable,
                  "BPE rank file " + source_name + " has a rank past 2^20 at line " + std::to_string(line_number));
    }
    spans.emplace_back(decoded.size(), bytes.size());
    ranks.push_back(rank);
    decoded += bytes;
  }
  std::vector<Token> tokens;
  tokens.reserve(spans.size());
  for (std::size_t i = 0; i < spans.size(); ++i) {
    tokens.push_back(Token{std::string_view(decoded).substr(spans[i].first, spans[i].second), ranks[i]});
  }
  return RankTable(tokens, source_name);
}

RankTable::RankTable(std::span<const Token> tokens, const std::string& source_name) {
  if (tokens.empty()) {
    throw Error(ErrorKind::Other, ErrorCode::RankDataUnavailable, "empty BPE rank file " + source_name);
  }
  // Size the table once: at most half full keeps probe chains short.
  const std::size_t capacity = std::bit_ceil(tokens.size() * 2 + 16);
  slots_.assign(capacity, Slot{});
  mask_ = capacity - 1;
  std::size_t total = 0;
  for (const Token& token : tokens) total += token.bytes.size();
  arena_.reserve(total);
  for (const Token& token : tokens) {
    if (token.rank >= kMaxRanks) {
      throw Error(ErrorKind::Other, ErrorCode::RankDataUnavailable,
                  "BPE rank file " + source_name + " has a rank past 2^20 (" + std::to_string(token.rank) + ")");
    }
    if (token.bytes.empty()) {
      throw Error(ErrorKind::Other, ErrorCode::RankDataUnavailable,
                  "BPE rank file " + source_name + " has an empty token (rank " + std::to_string(token.rank) + ")");
    }
    if (!insert(token.bytes, token.rank)) {
      throw Error(ErrorKind::Other, ErrorCode::RankDataUnavailable,
                  "BPE rank file " + source_name + " gives a token or a rank twice (rank " + std::to_string(token.rank) + ")");
    }
  }
  for (int b = 0; b < 256; ++b) {
    const char byte = static_cast<char>(b);
    byte_tokens_[b] = rank_of(std::string_view(&byte, 1));
    if (byte_tokens_[b] == kNoRank) {
      throw Error(ErrorKind::Other, ErrorCode::RankDataUnavailable,
                  "BPE rank file " + source_name + " has no token for byte " + std::to_string(b));
    }
  }
  // The same tokens in the same ranks hash alike, from a .tiktoken file or the compact form.
  content_hash_ = 0x9E3779B97F4A7C15ull ^ count_;
  for (std::uint32_t rank = 0; rank < by_rank_.size(); ++rank) {
    const std::string_view bytes = bytes_of(rank);
    if (!bytes.empty()) content_hash_ = mix(mix(content_hash_, rank), hash_bytes(bytes));
  }
  build_merges();
  build_join_sets();
  byte_pairs_.resize(256 * 256);
  for (std::size_t pair = 0; pair < 256 * 256; ++pair) {
    byte_pairs_[pair] = merge_rank(byte_tokens_[pair >> 8], byte_tokens_[pair & 0xFF]);
  }
}

namespace {
// Keys of up to 8 bytes are stored inline, as short_bytes keys (unique together with the length).
inline std::uint64_t pack_short(std::string_view bytes) noexcept { return short_bytes::key_up_to_8(bytes.data(), bytes.size()); }
}  // namespace

bool RankTable::slot_matches(const Slot& slot, std::string_view bytes, std::uint16_t tag) const noexcept {
  if (slot.tag != tag || slot.length != bytes.size()) return false;
  if (bytes.size() <= 8) return slot.inline_or_offset == pack_short(bytes);
  const char* const token = arena_.data() + slot.inline_or_offset;
  if (bytes.size() <= 16) {  // two overlapping loads each side instead of a call to memcmp
    const std::size_t last = bytes.size() - 8;
    return short_bytes::load8(token) == short_bytes::load8(bytes.data()) &&
           short_bytes::load8(token + last) == short_bytes::load8(bytes.data() + last);
  }
  return std::memcmp(token, bytes.data(), bytes.size()) == 0;
}

bool RankTable::insert(std::string_view bytes, std::uint32_t rank) {
  if (bytes.size() > 0xFFFF) {
    throw Error(ErrorKind::Other, ErrorCode::RankDataUnavailable, "BPE rank file has a token longer than 65535 bytes");
  }
  const std::uint64_t h = hash_bytes(bytes);
  const auto tag = static_cast<std::uint16_t>(h >> 48);
  for (std::uint64_t i = h & mask_;; i = (i + 1) & mask_) {
    Slot& slot = slots_[i];
    if (slot.rank == kNoRank) {
      slot.inline_or_offset = bytes.size() <= 8 ? pack_short(bytes) : arena_.size();
      slot.rank = rank;
      slot.length = static_cast<std::uint16_t>(bytes.size());
      slot.tag = tag;
      break;
    }
    // A token given twice would leave bytes_of and rank_of disagreeing: refused.
    if (slot_matches(slot, bytes, tag)) return false;
  }
  // Every token's bytes also go to the arena: decode reads them from there.
  const auto offset = static_cast<std::uint32_t>(arena_.size());
  auto& longest = longest_by_first_byte_[static_cast<unsigned char>(bytes[0])];
  longest = std::max(longest, static_cast<std::uint16_t>(bytes.size()));
  arena_.append(bytes);
  if (by_rank_.size() <= rank) by_rank_.resize(std::size_t{rank} + 1);
  if (by_rank_[rank].length != 0) return false;  // a rank given twice, to different bytes
  ++count_;
  max_rank_ = std::max(max_rank_, rank);
  by_rank_[rank] = Span{offset, static_cast<std::uint32_t>(bytes.size())};
  return true;
}

void RankTable::build_merges() {
  if (max_rank_ >= kMaxRanks) {
    throw Error(ErrorKind::Other, ErrorCode::RankDataUnavailable, "BPE rank file has ranks past 2^20");
  }
  // Every split of every token into two tokens is a merge that produces it. Looking up both halves
  // of every split (two probes of a table of megabytes per byte of every token) took most of a
  // load: 150 ms of o200k_base's. Instead each token gets links to its longest proper prefix and
  // suffix that are tokens (usually found by the first probe: a byte-pair vocabulary is built by
  // merging, so its tokens' prefixes and suffixes are tokens). A token's prefixes that are tokens
  // are then its prefix link's chain, its suffixes the suffix link's, and its merges the pairs of
  // the two chains whose lengths add up to its own: found without another probe.
  //
  // Most probes of those searches find nothing; a Bloom filter of the tokens (256 KB, one hash,
  // two bits) answers most of them from the CPU's cache instead of the table's megabytes.
  const std::size_t ranks = by_rank_.size();
  constexpr unsigned kFilterBits = 21;
  std::vector<std::uint64_t> filter((std::size_t{1} << kFilterBits) / 64, 0);
  const auto filter_bits = [](std::string_view bytes) {
    const std::uint64_t h = hash_bytes(bytes);
    return std::pair<std::size_t, std::size_t>(h >> (64 - kFilterBits), (h >> 20) & ((std::size_t{1} << kFilterBits) - 1));
  };
  for (std::uint32_t rank = 0; rank < ranks; ++rank) {
    const std::string_view bytes = bytes_of(rank);
    if (bytes.empty()) continue;
    const auto [first, second] = filter_bits(bytes);
    filter[first / 64] |= std::uint64_t{1} << (first % 64);
    filter[second / 64] |= std::uint64_t{1} << (second % 64);
  }
  const auto token_rank = [&](std::string_view bytes) {
    const auto [first, second] = filter_bits(bytes);
    if (((filter[first / 64] >> (first % 64)) & (filter[second / 64] >> (second % 64)) & 1u) == 0) return kNoRank;
    return rank_of(bytes);
  };
  // Each token's links and length side by side: walking a chain touches one place per step.
  struct Links {
    std::uint32_t prefix = kNoRank;
    std::uint32_t suffix = kNoRank;
    std::uint32_t length = 0;
  };
  std::vector<Links> links(ranks);
  for (std::uint32_t rank = 0; rank < ranks; ++rank) {
    const std::string_view bytes = bytes_of(rank);
    links[rank].length = static_cast<std::uint32_t>(bytes.size());
    for (std::size_t k = bytes.size(); k-- > 1;) {
      if (const std::uint32_t found = token_rank(bytes.substr(0, k)); found != kNoRank) {
        links[rank].prefix = found;
        break;
      }
    }
    for (std::size_t k = 1; k < bytes.size(); ++k) {
      if (const std::uint32_t found = token_rank(bytes.substr(k)); found != kNoRank) {
        links[rank].suffix = found;
        break;
      }
    }
  }
  // The pair table keeps one merge per token: the last merge of its bytes, the pair BPE joins to
  // make it (its split). No other pair is ever merged, in any text: when BPE joins neighbours
  // `left` and `right`, every merge before it inside their bytes was the least inside those bytes
  // (it was the least of all), so merging the token's bytes alone makes the same merges in the
  // same order and joins `left` and `right` last. A lookup of another pair may answer no merge
  // where the tokens' bytes would say one: that merge could never be chosen, so nothing changes.
  // Most tokens have several splits into two tokens (77% of cl100k_base's, 72% of o200k_base's),
  // and a table of all of them (233,378 and 446,189) was twice as full for the same memory, which
  // made probes longer and less predictable: merging first-seen words took 8-12% longer.
  //
  // Which split is a token's: tokens are taken in rank order (a token's split has lower ranks),
  // its splits from the longest left part down, and the first that BPE would leave as two tokens
  // is kept. That check is github/rust-gems' `is_valid_token_pair`: it undoes the pair's merges
  // at their boundary, newest first (the higher rank), and the pair is not what BPE leaves when
  // some pair across the boundary merges into a token older than the merge it undoes; it needs
  // only the splits and this table for lower ranks, which are built by then. A token no split of
  // which passes is not made by merging its bytes (it does not merge back into itself), so no
  // text merges into it and it needs no entry.
  //
  // At most a quarter full (a power of two): 4 MB for cl100k_base's 100,000 tokens, 8 MB for
  // o200k_base's 199,998.
  const std::size_t capacity = std::bit_ceil(count_ * 4 + 16);
  pair_shift_ = static_cast<unsigned>(64 - std::countr_zero(capacity));
  pair_slots_.assign(capacity, 0);
  const std::size_t mask = capacity - 1;
  // Most pairs a check looks up merge into nothing: a bit per pair in the table (hashed, 256 KB)
  // answers those from the core's cache instead of the table's megabytes.
  constexpr unsigned kSplitFilterBits = 21;
  std::vector<std::uint64_t> split_filter((std::size_t{1} << kSplitFilterBits) / 64, 0);
  const auto filter_bit = [](std::uint64_t key) {
    return static_cast<std::size_t>((key * 0xD6E8FEB86659FD93ull) >> (64 - kSplitFilterBits));
  };
  std::vector<std::uint32_t> split_left(ranks);
  std::vector<std::uint32_t> split_right(ranks);  // a token not made by a merge: itself, on both sides
  const auto is_split = [&](std::uint32_t left, std::uint32_t right) {
    // Each step undoes the newer of the two tokens at the boundary (the other when that one is a
    // single byte), without a branch on which: the choice follows no pattern a predictor learns.
    // The pair itself merges into nothing yet (its token is not in the table): not looked up.
    for (;;) {
      const std::uint32_t left_part = split_right[left];
      const std::uint32_t right_part = split_left[right];
      const bool left_whole = left_part == left;
      const bool right_whole = right_part == right;
      if (left_whole && right_whole) return true;
      const bool undo_left = (left > right && !left_whole) || right_whole;
      const std::uint32_t limit = undo_left ? left : right + 1;
      left = undo_left ? left_part : left;
      right = undo_left ? right : right_part;
      const std::uint64_t key = pair_key(left, right);
      const std::size_t bit = filter_bit(key);
      if (((split_filter[bit / 64] >> (bit % 64)) & 1u) != 0 && merge_rank_of_key(key) < limit) return false;
    }
  };
  // First every split of every token into two tokens, in rank order and, within a token, from
  // the longest left part down (left << 40 | right << 20 | rank): then the pass that checks them
  // can ask for the slots of the splits a few ahead, so that the table's cache misses overlap.
  std::vector<std::uint64_t> splits;
  splits.reserve(count_ * 3);
  std::vector<const Links*> suffixes;  // one token's suffix chain, shortest last
  for (std::uint32_t rank = 0; rank < ranks; ++rank) {
    const std::size_t length = links[rank].length;
    suffixes.clear();
    for (std::uint32_t right = links[rank].suffix; right != kNoRank; right = links[right].suffix) suffixes.push_back(&links[right]);
    // Prefixes from the longest down want suffixes from the shortest up.
    std::size_t s = suffixes.size();
    for (std::uint32_t left = links[rank].prefix; left != kNoRank && s > 0; left = links[left].prefix) {
      const std::size_t needed = length - links[left].length;
      while (s > 0 && suffixes[s - 1]->length < needed) --s;
      if (s > 0 && suffixes[s - 1]->length == needed) {
        const auto right = static_cast<std::uint64_t>(suffixes[s - 1] - links.data());
        splits.push_back((std::uint64_t{left} << 40) | (right << 20) | rank);
      }
    }
  }
  for (std::uint32_t rank = 0; rank < ranks; ++rank) split_left[rank] = split_right[rank] = rank;
  constexpr std::size_t kAhead = 16;
  for (std::size_t at = 0; at < splits.size(); ++at) {
    if (at + kAhead < splits.size()) prefetch(pair_slots_.data() + pair_slot(splits[at + kAhead] >> 20));
    const std::uint64_t split = splits[at];
    const auto rank = static_cast<std::uint32_t>(split & 0xFFFFF);
    if (split_left[rank] != rank) continue;  // the token's split is found already
    const auto left = static_cast<std::uint32_t>(split >> 40);
    const auto right = static_cast<std::uint32_t>((split >> 20) & 0xFFFFF);
    if (left >= rank || right >= rank || !is_split(left, right)) continue;
    const std::uint64_t key = split >> 20;
    const std::size_t bit = filter_bit(key);
    split_filter[bit / 64] |= std::uint64_t{1} << (bit % 64);
    std::size_t i = pair_slot(key);
    while (pair_slots_[i] != 0) i = (i + 1) & mask;
    pair_slots_[i] = split;
    split_left[rank] = left;
    split_right[rank] = right;
  }
}

namespace {
inline void set_bit(std::vector<std::uint64_t>& bits, std::size_t bit) noexcept { bits[bit / 64] |= std::uint64_t{1} << (bit % 64); }
inline bool test_bit(const std::vector<std::uint64_t>& bits, std::size_t bit) noexcept { return (bits[bit / 64] >> (bit % 64)) & 1u; }
inline std::size_t pair_bit(const char* p) noexcept {
  return (std::size_t{static_cast<unsigned char>(p[0])} << 8) | static_cast<unsigned char>(p[1]);
}
}  // namespace

void RankTable::build_join_sets() {
  starts_with_pair_.assign(65536 / 64, 0);
  ends_with_pair_.assign(65536 / 64, 0);
  contains_window_.assign((std::size_t{1} << kWindowBits) / 64, 0);
  for (std::uint32_t rank = 0; rank < by_rank_.size(); ++rank) {
    const std::string_view bytes = bytes_of(rank);
    if (bytes.size() < 2) continue;
    set_bit(starts_with_pair_, pair_bit(bytes.data()));
    set_bit(ends_with_pair_, pair_bit(bytes.data() + bytes.size() - 2));
    for (std::size_t i = 0; i + 4 <= bytes.size(); ++i) {
      set_bit(contains_window_, window_bit(short_bytes::load4(bytes.data() + i)));
    }
  }
}

bool RankTable::may_join_across(std::string_view text, std::size_t at) const noexcept {
  // A token holding text[at - 1] and text[at] either starts at at - 1 (it starts with that pair),
  // ends at at + 1 (it ends with it), or reaches from at - 2 or before to at + 2 or after (it
  // contains the four bytes around `at`).
  if (at < 2 || at + 2 > text.size()) return true;
  const char* p = text.data() + at;
  return test_bit(starts_with_pair_, pair_bit(p - 1)) || test_bit(ends_with_pair_, pair_bit(p - 1)) ||
         test_bit(contains_window_, window_bit(short_bytes::load4(p - 2)));
}

void RankTable::prefetch_rank_of(std::string_view bytes) const noexcept {
  if (slots_.empty() || bytes.empty()) return;
  prefetch(slots_.data() + (hash_bytes(bytes) & mask_));
}

std::uint32_t RankTable::rank_of(std::string_view bytes) const noexcept {
  if (slots_.empty() || bytes.empty()) return kNoRank;
  // Longer than every token that starts with this byte (a sentence of CJK text is one piece):
  // no probe of the large table needed.
  if (bytes.size() > longest_by_first_byte_[static_cast<unsigned char>(bytes[0])]) return kNoRank;
  return rank_of_hashed(bytes, hash_bytes(bytes));
}

std::uint32_t RankTable::rank_of_hashed(std::string_view bytes, std::uint64_t h) const noexcept {
  if (slots_.empty() || bytes.empty() || bytes.size() > longest_by_first_byte_[static_cast<unsigned char>(bytes[0])]) return kNoRank;
  const auto tag = static_cast<std::uint16_t>(h >> 48);
  for (std::uint64_t i = h & mask_;; i = (i + 1) & mask_) {
    const Slot& slot = slots_[i];
    if (slot.rank == kNoRank) return kNoRank;
    if (slot_matches(slot, bytes, tag)) return slot.rank;
  }
}

std::string_view RankTable::bytes_of(std::uint32_t rank) const noexcept {
  if (rank >= by_rank_.size()) return {};
  const Span span = by_rank_[rank];
  return std::string_view(arena_.data() + span.offset, span.length);
}

}  // namespace ctxwin
