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
    // Eight bytes a step, the last one to eight as two overlapping loads: every byte is read once
    // or twice, and the length is mixed in first, so the overlap cannot make two segments one
    // input. Byte-at-a-time FNV-1a chained a multiply per byte: a few percent of a count on
    // unseen text, where every segment is hashed. (Collisions only cost a compare: find() checks
    // the bytes.)
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    std::size_t n = s.size();
    std::uint64_t h = 0xcbf29ce484222325ull ^ n;
    const auto step = [&h](std::uint64_t v) {
      h = (h ^ v) * 0x9e3779b97f4a7c15ull;
      h ^= h >> 29;
    };
    for (; n > 8; p += 8, n -= 8) step(load64(p));
    if (n >= 4) {
      step((std::uint64_t{load32(p)} << 32) | load32(p + n - 4));
    } else if (n > 0) {
      step(std::uint64_t{p[0]} | (std::uint64_t{p[n / 2]} << 8) | (std::uint64_t{p[n - 1]} << 16));
    }
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ull;
    h ^= h >> 32;
    return h | 1;  // never 0, the empty mark
  }
  void prefetch(std::uint64_t h) const noexcept {
    if (!slots_.empty()) __builtin_prefetch(&slots_[h & (slots_.size() - 1)]);
  }
  std::int64_t find(std::string_view segment, std::uint64_t h) const {
    if (slots_.empty()) return -1;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot& slot = slots_[i];
      if (slot.hash == 0) return -1;
      if (slot.hash == h && slot.length == segment.size() &&
          std::memcmp(arena_.data() + slot.offset, segment.data(), segment.size()) == 0) {
        return slot.cost;
      }
    }
  }

  void put(std::string_view segment, std::uint32_t cost, std::uint64_t h) {
    if (segment.size() > 0xFFFF || cost > 0xFFFF) return;
    if (arena_.size() + segment.size() + slots_.size() * sizeof(Slot) > max_bytes_) clear();
    if ((count_ + 1) * 2 > slots_.size()) grow();
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = h & mask;
    while (slots_[i].hash != 0) i = (i + 1) & mask;
    slots_[i] =
        Slot{h, static_cast<std::uint32_t>(arena_.size()), static_cast<std::uint16_t>(segment.size()), static_cast<std::uint16_t>(cost)};
    arena_.append(segment);
    ++count_;
  }

  void clear() override {
    slots_.assign(slots_.empty() ? 0 : kInitialSlots, Slot{});
    arena_.clear();
    count_ = 0;
  }
  std::size_t size() const noexcept { return count_; }

 private:
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

  struct Slot {              // 16 bytes: four to a cache line
    std::uint64_t hash = 0;  // 0: empty
    std::uint32_t offset = 0;
    std::uint16_t length = 0;
    std::uint16_t cost = 0;
  };
  static constexpr std::size_t kInitialSlots = 4096;

  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? kInitialSlots : old.size() * 2, Slot{});
    const std::size_t mask = slots_.size() - 1;
    for (const Slot& slot : old) {
      if (slot.hash == 0) continue;
      std::size_t i = slot.hash & mask;
      while (slots_[i].hash != 0) i = (i + 1) & mask;
      slots_[i] = slot;
    }
  }

  std::vector<Slot> slots_;
  std::string arena_;
  std::size_t count_ = 0;
  std::size_t max_bytes_;
};

}  // namespace ctxwin::claude
