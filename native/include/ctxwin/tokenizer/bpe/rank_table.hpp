// The mergeable ranks of a byte-pair encoding: token bytes <-> rank.
//
// Built from its tokens by the constructor; the readers of the files are beside it: the package's
// compact form (rank_file.hpp, data/openai/) and OpenAI's `.tiktoken` format (load / parse below:
// one "base64(token bytes) rank" per line, for a caller's own rankDataDir). Lookups by byte string
// are the tokenizer's hot path: the table is an open-addressing hash table over one contiguous
// arena of token bytes, so a lookup is one hash, usually one probe and one memcmp.
//
//   RankTable ranks = RankTable::load("cl100k_base.tiktoken");
//   std::optional<std::uint32_t> rank = ranks.find("hello");
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ctxwin {

class RankTable {
 public:
  static constexpr std::uint32_t kNoRank = 0xFFFFFFFFu;
  // Ranks are below 2^20 (merges pack them in 20 bits); o200k_base has 200,000.
  static constexpr std::uint32_t kMaxRanks = 1u << 20;

  struct Token {
    std::string_view bytes;
    std::uint32_t rank;
  };
  // The table of `tokens`, in any order. Throws ctxwin::Error (ERR_CTXWIN_RANK_DATA_UNAVAILABLE)
  // naming `source_name` when there is no token, a rank is kMaxRanks or more, a token or a rank is
  // given twice, a token is empty or longer than 65,535 bytes, or a byte has no token of its own.
  RankTable(std::span<const Token> tokens, const std::string& source_name);

  // Throws ctxwin::Error when the file cannot be read or is malformed.
  static RankTable load(const std::string& path);
  // Parses the contents of a .tiktoken file.
  static RankTable parse(std::string_view contents, const std::string& source_name);

  // The rank of `bytes`, or kNoRank.
  std::uint32_t rank_of(std::string_view bytes) const noexcept;
  // The same, given hash_bytes(bytes): for a caller that hashed the bytes already, to ask for
  // their slot ahead (prefetch_rank_of_hash) and not hash them twice (bpe_count_batch).
  std::uint32_t rank_of_hashed(std::string_view bytes, std::uint64_t hash) const noexcept;
  std::optional<std::uint32_t> find(std::string_view bytes) const noexcept {
    const auto rank = rank_of(bytes);
    return rank == kNoRank ? std::nullopt : std::optional<std::uint32_t>(rank);
  }
  // The bytes of token `rank`; empty when no token has that rank.
  std::string_view bytes_of(std::uint32_t rank) const noexcept;

  // Merging works on token ids, not bytes: every part of a piece is always a token, so the rank
  // of merging parts `left` and `right` is the rank of the token whose bytes are theirs joined.
  // This pair table answers it with one integer-keyed probe instead of hashing bytes.
  std::uint32_t byte_token(unsigned char byte) const noexcept { return byte_tokens_[byte]; }
  std::uint32_t merge_rank(std::uint32_t left, std::uint32_t right) const noexcept {
    if ((left | right) >= kMaxRanks) return kNoRank;
    return merge_rank_of_key(pair_key(left, right));
  }
  // The pair table's key of (left, right), both below kMaxRanks.
  static std::uint64_t pair_key(std::uint32_t left, std::uint32_t right) noexcept { return (std::uint64_t{left} << 20) | right; }
  // merge_rank of the pair whose key is pair_key(left, right).
  std::uint32_t merge_rank_of_key(std::uint64_t key) const noexcept {
    const std::size_t mask = pair_slots_.size() - 1;
    for (std::size_t i = pair_slot(key);; i = (i + 1) & mask) {
      const std::uint64_t slot = pair_slots_[i];
      if (slot == 0) return kNoRank;
      if ((slot >> 20) == key) return static_cast<std::uint32_t>(slot & 0xFFFFF);
    }
  }
  // Asks for the cache line merge_rank_of_key(key) will read, so that several lookups' misses
  // overlap (bpe_count_batch). Only a hint: nothing when the compiler has no prefetch.
  void prefetch_merge_of_key(std::uint64_t key) const noexcept { prefetch(pair_slots_.data() + pair_slot(key)); }
  // The same for rank_of(bytes), and for the bytes whose hash_bytes is `hash`.
  void prefetch_rank_of(std::string_view bytes) const noexcept;
  void prefetch_rank_of_hash(std::uint64_t hash) const noexcept {
    if (!slots_.empty()) prefetch(slots_.data() + (hash & mask_));
  }
  // merge_rank of two single bytes, from a 256 x 256 table: every piece starts with these lookups.
  std::uint32_t byte_pair_rank(unsigned char left, unsigned char right) const noexcept {
    return byte_pairs_[(std::size_t{left} << 8) | right];
  }

  // False when no token can contain both text[at - 1] and text[at]: then byte-pair merging never
  // joins anything across `at`, and the two sides of a piece merge independently. True when one
  // might (it answers from hashed bit sets: "true" may be a false positive, "false" is certain),
  // and always true within two bytes of either end of `text`.
  bool may_join_across(std::string_view text, std::size_t at) const noexcept;

  // Byte length of the longest token that starts with `byte`.
  std::size_t longest_token_from(unsigned char byte) const noexcept { return longest_by_first_byte_[byte]; }

  std::size_t size() const noexcept { return count_; }
  // A hash of the tokens in rank order, whichever file they came from: tells OpenAI's published
  // tables from any other.
  std::uint64_t content_hash() const noexcept { return content_hash_; }
  std::uint32_t max_rank() const noexcept { return max_rank_; }

 private:
  RankTable() = default;
  // Keys of up to 8 bytes (most pieces) live in the slot itself, so a lookup touches one cache
  // line; longer keys are compared against the arena.
  struct Slot {
    std::uint64_t inline_or_offset = 0;  // the key's bytes (zero-padded) or its arena offset
    std::uint32_t rank = kNoRank;
    std::uint16_t length = 0;
    std::uint16_t tag = 0;  // hash bits: most mismatches are rejected without touching the key
  };
  bool slot_matches(const Slot& slot, std::string_view bytes, std::uint16_t tag) const noexcept;
  struct Span {
    std::uint32_t offset = 0;
    std::uint32_t length = 0;
  };

  // False when `bytes` or `rank` is already in the table.
  [[nodiscard]] bool insert(std::string_view bytes, std::uint32_t rank);
  void build_merges();
  void build_join_sets();

  // Each token's last merge as one word, left << 40 | right << 20 | rank, in an open-addressing
  // table keyed by (left, right), at most a quarter full (build_merges); 0 marks an empty slot (no token is made of two copies of
  // token 0, and token 0 is not made of anything). A slot's address is a function of the pair
  // alone, so a lookup is usually one cache line, and it can be asked for before it is needed
  // (prefetch_merge_of_key). It replaced runs of merges per left token, binary-searched: two to six
  // dependent loads a lookup, and nothing to prefetch before the first of them had arrived. Most
  // lookups are of pairs that do not merge, which end at the first empty slot: a table two thirds
  // full (any size, scaled rather than masked) counted words 10% slower than this one.
  static void prefetch([[maybe_unused]] const void* address) noexcept {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(address);
#endif
  }
  std::size_t pair_slot(std::uint64_t key) const noexcept { return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> pair_shift_); }
  std::vector<std::uint64_t> pair_slots_;
  unsigned pair_shift_ = 63;
  // For may_join_across, over every token of two or more bytes: its first two bytes, its last two
  // bytes (65,536 bits each), and every four consecutive bytes (hashed to 2^21 bits, 256 KB).
  static constexpr unsigned kWindowBits = 21;
  static std::size_t window_bit(std::uint32_t four_bytes) noexcept { return (four_bytes * 0x9E3779B1u) >> (32 - kWindowBits); }
  std::vector<std::uint64_t> starts_with_pair_;
  std::vector<std::uint64_t> ends_with_pair_;
  std::vector<std::uint64_t> contains_window_;

  std::uint32_t byte_tokens_[256] = {};
  std::uint16_t longest_by_first_byte_[256] = {};  // byte length of the longest token starting with it
  std::vector<std::uint32_t> byte_pairs_;

  std::string arena_;
  std::vector<Slot> slots_;
  std::vector<Span> by_rank_;
  std::size_t count_ = 0;
  std::uint32_t max_rank_ = 0;
  std::uint64_t mask_ = 0;
  std::uint64_t content_hash_ = 0;
};

// The hash used by the table (exposed for tests).
std::uint64_t hash_bytes(std::string_view bytes) noexcept;

}  // namespace ctxwin
