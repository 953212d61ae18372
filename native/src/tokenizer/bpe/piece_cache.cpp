#include "ctxwin/tokenizer/bpe/piece_cache.hpp"

#include <bit>
#include <cstring>

#include "ctxwin/tokenizer/bpe/rank_table.hpp"

namespace ctxwin {

PieceCache::PieceCache(std::size_t max_entries, std::size_t max_bytes)
    : CountCache(Kind::Pieces), short_(std::size_t{1} << kShortBits), max_entries_(max_entries), max_bytes_(max_bytes) {}
// The long-piece table is allocated on its first insert: most callers never need it.

std::uint32_t PieceCache::find(std::string_view piece) const noexcept { return slots_.empty() ? kMissing : find(piece, hash_bytes(piece)); }

void PieceCache::insert(std::string_view piece, std::uint32_t count) { insert(piece, count, hash_bytes(piece)); }

std::uint32_t PieceCache::find(std::string_view piece, std::uint64_t h) const noexcept {
  if (slots_.empty()) return kMissing;
  const auto tag = static_cast<std::uint32_t>(h >> 32);
  for (std::uint64_t i = h & mask_;; i = (i + 1) & mask_) {
    const Slot& slot = slots_[i];
    if (slot.length == 0) return kMissing;
    if (slot.tag == tag && slot.length == piece.size() && std::memcmp(arena_.data() + slot.offset, piece.data(), piece.size()) == 0) {
      return slot.count;
    }
  }
}

void PieceCache::insert(std::string_view piece, std::uint32_t count, std::uint64_t h) {
  if (piece.empty()) return;
  if (entries_ >= max_entries_ || arena_.size() + piece.size() > max_bytes_) clear_long();
  if ((entries_ + 1) * 2 > slots_.size()) grow();
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

// The long-piece table starts small and doubles when half full, up to what max_entries needs
// (2 MB): a megabyte of CJK text or code keeps 10,000 to 17,000 long pieces, whose lookups, most
// of them misses, read a few hundred kilobytes instead of two megabytes.
void PieceCache::grow() {
  const std::size_t capacity = slots_.empty() ? kFirstLongSlots : slots_.size() * 2;
  std::vector<Slot> old(capacity, Slot{});
  old.swap(slots_);
  mask_ = capacity - 1;
  for (const Slot& entry : old) {
    if (entry.length == 0) continue;
    std::uint64_t i = hash_bytes(std::string_view(arena_).substr(entry.offset, entry.length)) & mask_;
    while (slots_[i].length != 0) i = (i + 1) & mask_;
    slots_[i] = entry;
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
