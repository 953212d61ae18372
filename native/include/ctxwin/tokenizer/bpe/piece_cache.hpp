// Remembers how many tokens pieces came to, so that a piece seen again costs one lookup in a
// small, cache-resident table instead of a probe of the large rank table (and, for pieces that
// need merging, instead of a byte-pair merge). Natural text repeats itself: most pieces of a
// document are repeats, and 30 to 70% of the pieces that need merging are.
//
// Two tables: pieces of up to 15 bytes (nearly all of them) go to a direct-mapped table whose
// entries hold the bytes inline (one cache line per lookup, newer entries replace older ones);
// longer pieces that needed merging go to a hash table over an arena.
//
// A cache belongs to one caller at a time (it is not synchronized): the addon keeps one per
// counter for each JavaScript thread, shared by that thread's counter objects, and lends each
// worker-pool job one of its own. Memory is bounded: when full, it starts over empty. Byte-pair
// families make theirs with TokenCounter::new_cache (Encoding, HfTokenizer).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ctxwin/tokenizer/bpe/short_bytes.hpp"
#include "ctxwin/tokenizer/token_counter.hpp"

namespace ctxwin {

class PieceCache final : public CountCache {
 public:
  static constexpr std::uint32_t kMissing = 0xFFFFFFFFu;

  explicit PieceCache(std::size_t max_entries = 1 << 16, std::size_t max_bytes = 4 << 20);

  std::uint32_t find(std::string_view piece) const noexcept;
  void insert(std::string_view piece, std::uint32_t count);
  // The same, given hash_bytes(piece) (rank_table.hpp): a piece looked up, counted and then kept
  // is hashed once.
  std::uint32_t find(std::string_view piece, std::uint64_t hash) const noexcept;
  void insert(std::string_view piece, std::uint32_t count, std::uint64_t hash);

  // Pieces of up to kShortPiece bytes: the direct-mapped table.
  static constexpr std::size_t kShortPiece = 15;
  std::uint32_t find_short(std::string_view piece) const noexcept {
    const ShortKey key = short_key(piece);
    const ShortEntry& entry = short_[short_index(key)];
    return entry.key.low == key.low && entry.key.high == key.high ? entry.count : kMissing;
  }
  void insert_short(std::string_view piece, std::uint32_t count) noexcept {
    const ShortKey key = short_key(piece);
    short_[short_index(key)] = ShortEntry{key, count};
  }
  void clear() noexcept override;
  void clear_long() noexcept;
  std::size_t size() const noexcept { return entries_; }

 private:
  struct Slot {
    std::uint32_t offset = 0;
    std::uint32_t length = 0;  // 0: empty (pieces are never empty)
    std::uint32_t count = 0;
    std::uint32_t tag = 0;
  };
  // The piece's bytes (up to 15), zero-padded, with its length in the top byte of `high`.
  struct ShortKey {
    std::uint64_t low = 0;
    std::uint64_t high = 0;
  };
  struct ShortEntry {
    ShortKey key{~std::uint64_t{0}, ~std::uint64_t{0}};  // matches no real piece
    std::uint32_t count = 0;
  };
  // Bytes 0-7 in `low` and the rest in `high`, under the length in high's top byte; up to 8 bytes,
  // a key that is unique together with the length (see short_bytes.hpp). Fixed-size loads only.
  static ShortKey short_key(std::string_view piece) noexcept {
    const char* p = piece.data();
    const std::size_t n = piece.size();
    ShortKey key;
    if (n <= 8) {
      key.low = short_bytes::key_up_to_8(p, n);
      key.high = std::uint64_t{n} << 56;
    } else {
      key.low = short_bytes::load8(p);
      key.high = (short_bytes::load8(p + n - 8) >> (8 * (16 - n))) | (std::uint64_t{n} << 56);  // bytes 8..n-1
    }
    return key;
  }
  static std::size_t short_index(const ShortKey& key) noexcept {
    const std::uint64_t h = (key.low * 0x9E3779B97F4A7C15ull) ^ (key.high * 0xC2B2AE3D27D4EB4Full);
    return static_cast<std::size_t>(h >> (64 - kShortBits));
  }
  // 65,536 entries x 24 bytes (1.5 MB a cache): a megabyte of dictionary words holds about 100,000
  // pieces, most distinct, and a chat's short messages over 30,000; with 16,384 entries repeats
  // were lost to collisions (words 11% slower, a warm short message 1.8 us instead of 1.3), and
  // prose, code, CJK and European text count no slower with the larger table (benchmarks.md).
  static constexpr unsigned kShortBits = 16;
  static constexpr std::size_t kFirstLongSlots = 1024;
  void grow();

  std::vector<ShortEntry> short_;
  std::vector<Slot> slots_;
  std::string arena_;
  std::size_t entries_ = 0;
  std::size_t max_entries_;
  std::size_t max_bytes_;
  std::uint64_t mask_ = 0;
};

}  // namespace ctxwin
