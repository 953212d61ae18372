// Remembered tilings of marked-stream segments, for one Claude family and one thread.
//
// No vocabulary piece crosses a word boundary marker (⟨eow⟩ ends every piece it is in, ⟨bow⟩ and
// its case marker start it), so the stream splits into independent segments, mostly words, whose
// costs add up. Natural text repeats its words, so a cache of segment costs saves most of the
// tiling. An open-addressing table over one byte arena: a lookup is a hash, one probe or two and a
// compare. Not synchronized: one cache per thread (the binding keeps one per family for each
// JavaScript thread, and lends each worker-pool job one of its own). Made by
// ClaudeTokenizer::new_cache.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "ctxwin/tokenizer/token_counter.hpp"

namespace ctxwin::claude {

class SegmentCache final : public CountCache {
 public:
  // `max_bytes` bounds the arena and the table together; past it the cache starts over.
  explicit SegmentCache(std::size_t max_bytes = std::size_t{8} << 20) : CountCache(Kind::Segments), max_bytes_(max_bytes) {}

  // The cost remembered for `segment`, or -1.
  std::int64_t find(std::string_view segment) const { return find(segment, hash(segment)); }
  // Remembers `cost` for `segment` (which find() did not know).
  void put(std::string_view segment, std::uint32_t cost) { put(segment, cost, hash(segment)); }

  // The same with the segment's hash(): a caller that knows the segments ahead hashes them and
  // prefetch()es their slots first, so that the table's cache misses (it is megabytes on unseen
  // text) overlap instead of stalling one lookup at a time.
  static std::uint64_t hash(std::string_view s) noexcept {
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    std::size_t n = s.size();
    if (n <= kInline) return finish(inline_key(p, n) * 0x9e3779b97f4a7c15ull ^ n);
    // Eight bytes a step, the last one to eight as the segment's last eight (read again in part):
    // the length is mixed in first, so the overlap cannot make two segments one input. Byte-at-a-time FNV-1a chained a multiply per byte: a
    // few percent of a count on unseen text, where every segment is hashed. (Collisions only cost a compare: find() checks the bytes.)
    std::uint64_t h = 0xcbf29ce484222325ull ^ n;
    const auto step = [&h](std::uint64_t v) {
      h = (h ^ v) * 0x9e3779b97f4a7c15ull;
      h ^= h >> 29;
    };
    for (; n > 8; p += 8, n -= 8) step(load64(p));
    step(load64(p + n - 8));  // the segment is longer than 8: these bytes are its own
    return finish(h);
  }
  void prefetch(std::uint64_t h) const noexcept {
    if (!slots_.empty()) __builtin_prefetch(&slots_[h & (slots_.size() - 1)]);
  }
  std::int64_t find(std::string_view segment, std::uint64_t h) const {
    if (slots_.empty()) return -1;
    const std::uint64_t key = key_of(segment, h);
    const bool in_arena = segment.size() > kInline;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot& slot = slots_[i];
      if (slot.length == 0) return -1;
      if (slot.key == key && slot.length == segment.size() &&
          (!in_arena || std::memcmp(arena_.data() + slot.offset, segment.data(), segment.size()) == 0)) {
        return slot.cost;
      }
    }
  }

  void put(std::string_view segment, std::uint32_t cost, std::uint64_t h) {
    if (segment.empty() || segment.size() > 0xFFFF || cost > 0xFFFF) return;
    const bool in_arena = segment.size() > kInline;
    if ((in_arena ? arena_.size() + segment.size() : arena_.size()) + slots_.size() * sizeof(Slot) > max_bytes_) clear();
    if ((count_ + 1) * 2 > slots_.size()) grow();
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = h & mask;
    while (slots_[i].length != 0) i = (i + 1) & mask;
    slots_[i] = Slot{key_of(segment, h), in_arena ? static_cast<std::uint32_t>(arena_.size()) : 0u,
                     static_cast<std::uint16_t>(segment.size()), static_cast<std::uint16_t>(cost)};
    if (in_arena) arena_.append(segment);
    ++count_;
  }

  void clear() override {
    slots_.assign(slots_.empty() ? 0 : kInitialSlots, Slot{});
    arena_.clear();
    count_ = 0;
  }
  std::size_t size() const noexcept { return count_; }

 private:
  // A segment of up to 8 bytes (most words with their markers) is its own key, held in its slot:
  // a lookup compares the slot and reads nothing else. Comparing an arena copy cost a cache miss
  // a hit on unseen text, where the arena is megabytes and a hit's copy is anywhere in it.
  static constexpr std::size_t kInline = 8;

  struct Slot {             // 16 bytes: four to a cache line
    std::uint64_t key = 0;  // the bytes of an inline segment (zero-padded), else its hash
    std::uint32_t offset = 0;
    std::uint16_t length = 0;  // 0: empty
    std::uint16_t cost = 0;
  };
  static constexpr std::size_t kInitialSlots = 4096;

  static std::uint64_t load64(const unsigned char* p) noexcept {
    std::uint64_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  static std::uint32_t load32(const unsigned char* p) noexcept {
    std::uint32_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  // The first n <= 8 bytes at p, zero-padded: two overlapping loads place each byte where it is.
  static std::uint64_t inline_key(const unsigned char* p, std::size_t n) noexcept {
    if (n >= 4) return std::uint64_t{load32(p)} | (std::uint64_t{load32(p + n - 4)} << (8 * (n - 4)));
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < n; ++i) v |= std::uint64_t{p[i]} << (8 * i);
    return v;
  }
  static std::uint64_t finish(std::uint64_t h) noexcept {
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ull;
    h ^= h >> 32;
    return h;
  }
  static std::uint64_t key_of(std::string_view segment, std::uint64_t h) noexcept {
    return segment.size() <= kInline ? inline_key(reinterpret_cast<const unsigned char*>(segment.data()), segment.size()) : h;
  }
  // Where a slot goes: its segment's hash(), which an inline slot computes again from its key.
  static std::uint64_t home_of(const Slot& slot) noexcept {
    return slot.length <= kInline ? finish(slot.key * 0x9e3779b97f4a7c15ull ^ slot.length) : slot.key;
  }

  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? kInitialSlots : old.size() * 2, Slot{});
    const std::size_t mask = slots_.size() - 1;
    for (const Slot& slot : old) {
      if (slot.length == 0) continue;
      std::size_t i = home_of(slot) & mask;
      while (slots_[i].length != 0) i = (i + 1) & mask;
      slots_[i] = slot;
    }
  }

  std::vector<Slot> slots_;
  std::string arena_;
  std::size_t count_ = 0;
  std::size_t max_bytes_;
};

}  // namespace ctxwin::claude
