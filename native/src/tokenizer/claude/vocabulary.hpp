// One measured Claude vocabulary (data/claude/*.bin, made by scripts/claude-vocab.mjs from ctok's
// pieces files) and the minimum-cost tiling over it. Internal to the core.
//
// Every piece costs one token, so the count of a marked stream is the fewest pieces that tile it,
// where a character no piece covers falls back to its UTF-8 bytes (a byte, or a lead-byte prefix
// the vocabulary holds, per token). The pieces sit in a double-array trie over bytes: one
// transition is two array reads, which is what keeps the DP over every stream position fast.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "ctxwin/tokenizer/claude/segment_cache.hpp"

namespace ctxwin::claude {

// Marker bytes in the stream and in pieces: bytes UTF-8 never uses.
inline constexpr unsigned char kBow = 0xF8;
inline constexpr unsigned char kEow = 0xF9;
inline constexpr unsigned char kShift = 0xFA;
inline constexpr unsigned char kCaps = 0xFB;

class Vocabulary {
 public:
  // Reads and indexes `path`. Throws ctxwin::Error (ERR_CTXWIN_RANK_DATA_UNAVAILABLE) when the file
  // cannot be read or is not a vocabulary.
  static std::unique_ptr<const Vocabulary> load(const std::string& path);
  // Indexes the contents of a vocabulary file; `name` names it in errors. Throws as load() does on
  // bytes that are not a vocabulary (what the fuzzer feeds it: test/fuzz/claude_vocab_fuzz.cc).
  static std::unique_ptr<const Vocabulary> parse(std::string data, const std::string& name);

  std::uint32_t message_overhead() const noexcept { return message_overhead_; }
  bool fold_quotes() const noexcept { return fold_quotes_; }
  // Shortest all-capitals span that takes ⟨caps⟩; 0 when the family has no ⟨caps⟩ marker.
  std::uint32_t allcaps_min() const noexcept { return allcaps_min_; }
  std::size_t piece_count() const noexcept { return piece_count_; }
  // Bytes held by the index and the byte-floor table.
  std::size_t memory_bytes() const noexcept;

  // The fewest tokens tiling `stream` (valid UTF-8 with marker bytes).
  std::size_t tile(std::string_view stream) const;
  // tile() by the DP over every position (what tile() does for streams of kShortStream bytes or
  // more): the reference the short path is tested against.
  std::size_t tile_all(std::string_view stream) const;
  // Streams shorter than this (segments, mostly words) are tiled by a pruned DP (tile_short).
  static constexpr std::size_t kShortStream = 64;
  // The same count, tiling the stream's independent segments (split at word-boundary markers,
  // which no piece crosses) one at a time, through `cache` when there is one.
  std::size_t tile_segments(std::string_view stream, SegmentCache* cache) const;
  // What `n` trailing newlines cost beyond the frame's own closing token: the frame appends two
  // newlines and one token may span into them, so the run tiled is n + 2 newlines, less one.
  std::size_t newline_tail(std::size_t n) const;
  // One character standing alone: 1 if it is a piece, else the tiling of its UTF-8 bytes.
  std::uint32_t char_cost(std::string_view utf8_char) const;

  // A unit of the double array while it is built (build_trie), before it is packed into trie_.
  struct Unit {
    std::uint32_t base;   // bit 31: a piece ends at this node
    std::uint32_t check;  // the parent's index; kFree when unused
  };
  static constexpr std::uint32_t kFree = 0xFFFFFFFFu;
  static constexpr std::uint32_t kTerminal = 0x80000000u;
  // A packed unit: the byte that leads to it plus one (0: unused), whether a piece ends there, and
  // the base of its children.
  static constexpr std::uint32_t kLabel = 0x1FFu;
  static constexpr std::uint32_t kEnds = 0x200u;
  static constexpr unsigned kBaseShift = 10;

 private:
  class RunSkip;
  class PeriodSkip;
  Vocabulary() = default;
  std::size_t tile_short(std::string_view stream) const;
  // The longest piece that is `c` repeated (1 when none is: the byte alone).
  std::size_t longest_run_piece(unsigned char c) const;
  void build_trie(std::vector<std::string>& pieces, const std::string& path);
  // The packed double array over sorted, distinct `pieces`; its root's base into `root_base`.
  static std::vector<std::uint32_t> double_array(const std::vector<std::string>& pieces, std::uint32_t& root_base, const std::string& path);
  std::uint32_t byte_floor(std::string_view bytes) const;
  std::uint32_t cost_at(const unsigned char* bytes, std::size_t pos, std::size_t len) const;

  std::uint32_t message_overhead_ = 0;
  bool fold_quotes_ = false;
  std::uint32_t allcaps_min_ = 0;
  std::size_t piece_count_ = 0;
  std::size_t max_piece_bytes_ = 0;
  std::size_t ring_mask_ = 0;
  // Whether every piece holds ⟨bow⟩ only at its start (after its case marker) and ⟨eow⟩ only at
  // its end: what makes the segments independent. Checked on load, true of ctok's files.
  bool segmentable_ = true;
  std::vector<std::uint32_t> trie_;  // packed units (kLabel, kEnds, base << kBaseShift)
  std::uint32_t root_base_ = 0;
  std::vector<std::uint32_t> tail_trie_;  // the pieces ending in ⟨eow⟩, reversed, packed alike
  std::uint32_t tail_root_base_ = 0;
  // Byte strings of one token in the byte floor: lead-byte prefixes and one-character pieces,
  // packed as (length << 24 | bytes) for up to three bytes, or as the 4 bytes of a one-piece
  // astral character.
  std::unordered_set<std::uint64_t> floor_tokens_;
  std::vector<std::uint8_t> bmp_cost_;  // char_cost of every BMP code point, precomputed
};

}  // namespace ctxwin::claude
