#include "ctxwin/tokenizer/bpe/piece_cache.hpp"

#include <bit>
#include <cstring>

#include "ctxwin/tokenizer/bpe/rank_table.hpp"

namespace ctxwin {

PieceCache::PieceCache(std::size_t max_entries, std::size_t max_bytes)
    : CountCache(Kind::Pieces), short_(std::size_t{1} << kShortBits), max_entries_(max_entries), max_bytes_(max_bytes) {}
// The long-piece table is allocated on its first insert: most callers never need it.

std::uint32_t PieceCache::find(std::string_view piece) const noexcept {
  if (slots_.empty()) return kMissing;
  const std::uint64_t h = hash_bytes(piece);
  const auto tag = static_cast<std::uint32_t>(h >> 32);
  for (std::uint64_t i = h & mask_;; i = (i + 1) & mask_) {
    const Slot& slot = slots_[i];
    if (slot.length == 0) return kMissing;
    if (slot.tag == tag && slot.length == piece.size() && std::memcmp(arena_.data() + slot.offset, piece.data(), piece.size()) == 0) {
      return slot.count;
    }
  }
}

void PieceCache::insert(std::string_view piece, std::uint32_t count) {
  if (piece.empty()) return;
  if (slots_.empty()) {
    const std::size_t capacity = std::bit_ceil(max_entries_ * 2);
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
  }
  if (entries_ >= max_entries_ || arena_.size() + piece.size() > max_bytes_) clear_long();
  const std::uint64_t h = hash_bytes(piece);
  const auto tag = static_cast<std::uint32_t>(h >> 32);
  for (std::uint64_t i = h & mask_;; i = (i + 1) & mask_) {
    Slot& slot = slots_[i];
    if (slot.length == 0) {
      slot = Slot{static_cast<std::uint32_t>(arena_.size()), static_cast<std::uint32_t>(piece.size()), count, tag};
      arena_.append(piece);
      ++entries_;
      return;
    }
    if (slot.tag == tag && slot.length == piece.size() && std::memcmp(arena_.data() + slot.offset, piece.data(), piece.size()) == 0) {
      return;
    }
  }
}

void PieceCache::clear() noexcept {
  std::fill(short_.begin(), short_.end(), ShortEntry{});
  clear_long();
}

void PieceCache::clear_long() noexcept {
  std::fill(slots_.begin(), slots_.end(), Slot{});
  arena_.clear();
  entries_ = 0;
}

}  // namespace ctxwin
