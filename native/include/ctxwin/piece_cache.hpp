// Remembers how many tokens pieces that needed merging came to, so that a word seen again costs
// one lookup instead of a byte-pair merge. Natural text repeats its rarer words: in the shared
// corpus 30 to 70% of the pieces that need merging are repeats.
//
// A cache belongs to one caller at a time (it is not synchronized): the addon keeps one per
// Tokenizer object for calls on its JavaScript thread, and each worker-thread job gets its own.
// Memory is bounded: when full, it starts over empty.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ctxwin {

class PieceCache {
 public:
  static constexpr std::uint32_t kMissing = 0xFFFFFFFFu;

  explicit PieceCache(std::size_t max_entries = 1 << 16, std::size_t max_bytes = 4 << 20);

  std::uint32_t find(std::string_view piece) const noexcept;
  void insert(std::string_view piece, std::uint32_t count);
  void clear() noexcept;
  std::size_t size() const noexcept { return entries_; }

 private:
  struct Slot {
    std::uint32_t offset = 0;
    std::uint32_t length = 0;  // 0: empty (pieces are never empty)
    std::uint32_t count = 0;
    std::uint32_t tag = 0;
  };
  std::vector<Slot> slots_;
  std::string arena_;
  std::size_t entries_ = 0;
  std::size_t max_entries_;
  std::size_t max_bytes_;
  std::uint64_t mask_;
};

}  // namespace ctxwin
