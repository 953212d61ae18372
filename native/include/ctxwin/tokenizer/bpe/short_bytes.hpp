// Short byte strings as integers, read with fixed-size loads instead of a variable-length copy
// (a call to memcpy per piece was a measurable share of counting English text).
//
// The result is a key only together with the length: for 4 to 8 bytes the two 4-byte loads
// overlap, and for 1 to 3 bytes the first, middle and last byte are taken; either way every byte
// is read, so two strings of the same length have the same key only if they are equal.
// Shared by the rank table and the piece cache.
#pragma once

#include <cstdint>
#include <cstring>

namespace ctxwin::short_bytes {

inline std::uint64_t load8(const char* p) noexcept {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline std::uint32_t load4(const char* p) noexcept {
  std::uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Key of `n` <= 8 bytes at `p`.
inline std::uint64_t key_up_to_8(const char* p, std::size_t n) noexcept {
  if (n == 8) return load8(p);
  if (n >= 4) return load4(p) | (std::uint64_t{load4(p + n - 4)} << 32);
  if (n == 0) return 0;
  return std::uint64_t{static_cast<unsigned char>(p[0])} | (std::uint64_t{static_cast<unsigned char>(p[n / 2])} << 8) |
         (std::uint64_t{static_cast<unsigned char>(p[n - 1])} << 16);
}

}  // namespace ctxwin::short_bytes
