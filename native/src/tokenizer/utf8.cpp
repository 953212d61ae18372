#include "ctxwin/tokenizer/utf8.hpp"

#include <cstring>

namespace ctxwin {

namespace {

constexpr char32_t kReplacement = 0xFFFD;

// Length of the valid sequence at text[at], or 0 when it is invalid.
std::size_t valid_sequence_length(std::string_view text, std::size_t at) noexcept {
  const auto b0 = static_cast<unsigned char>(text[at]);
  if (b0 < 0x80) return 1;
  auto cont = [&](std::size_t k, unsigned char lo = 0x80, unsigned char hi = 0xBF) {
    if (at + k >= text.size()) return false;
    const auto b = static_cast<unsigned char>(text[at + k]);
    return b >= lo && b <= hi;
  };
  if (b0 >= 0xC2 && b0 <= 0xDF) return cont(1) ? 2 : 0;
  if (b0 == 0xE0) return cont(1, 0xA0) && cont(2) ? 3 : 0;
  if ((b0 >= 0xE1 && b0 <= 0xEC) || b0 == 0xEE || b0 == 0xEF) return cont(1) && cont(2) ? 3 : 0;
  if (b0 == 0xED) return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;  // no surrogates
  if (b0 == 0xF0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (b0 >= 0xF1 && b0 <= 0xF3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (b0 == 0xF4) return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

// Texts from which the UTF-8 buffer is sized exactly, by a first pass over the units, instead of
// for the worst case: 3 bytes a unit would be 3x the size of an ASCII text, held at once with its
// UTF-16 copy (a 100 MB text would take 500 MB besides itself).
constexpr std::size_t kExactSizingUnits = std::size_t{1} << 16;

// The bytes append_utf16_as_utf8 writes for `text`.
std::size_t utf8_length_of(std::u16string_view text) noexcept {
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char16_t unit = text[i];
    if (unit < 0x80) {
      bytes += 1;
    } else if (unit < 0x800) {
      bytes += 2;
    } else if (unit <= 0xDBFF && unit >= 0xD800 && i + 1 < text.size() && text[i + 1] >= 0xDC00 && text[i + 1] <= 0xDFFF) {
      bytes += 4;  // a pair
      ++i;
    } else {
      bytes += 3;  // the rest of the BMP, and a lone surrogate as U+FFFD
    }
  }
  return bytes;
}

}  // namespace

void append_utf16_as_utf8(std::u16string_view text, std::string& out) {
  // Sized for the worst case (3 bytes per unit; long texts exactly), written through a pointer,
  // trimmed at the end: push_back's capacity check per byte cost more than the counting of ASCII
  // text itself.
  const std::size_t start = out.size();
  out.resize(start + (text.size() < kExactSizingUnits ? text.size() * 3 : utf8_length_of(text)));
  char* const begin = out.data() + start;
  char* w = begin;
  const char16_t* p = text.data();
  const char16_t* const end = p + text.size();
  while (p < end) {
    // ASCII, four units at a time: most text (and all code) is mostly ASCII.
    while (end - p >= 4) {
      std::uint64_t units;
      std::memcpy(&units, p, sizeof units);
      if ((units & 0xFF80FF80FF80FF80ull) != 0) break;
      w[0] = static_cast<char>(p[0]);
      w[1] = static_cast<char>(p[1]);
      w[2] = static_cast<char>(p[2]);
      w[3] = static_cast<char>(p[3]);
      w += 4;
      p += 4;
    }
    if (p == end) break;
    const char16_t unit = *p++;
    char32_t cp = unit;
    if (unit < 0x80) {
      *w++ = static_cast<char>(unit);
      continue;
    }
    if (unit >= 0xD800 && unit <= 0xDFFF) {
      if (unit <= 0xDBFF && p < end && *p >= 0xDC00 && *p <= 0xDFFF) {
        cp = 0x10000 + ((char32_t(unit) - 0xD800) << 10) + (char32_t(*p) - 0xDC00);
        ++p;
      } else {
        cp = kReplacement;  // a lone surrogate, as TextEncoder writes it
      }
    }
    w = write_utf8(cp, w);
  }
  out.resize(start + static_cast<std::size_t>(w - begin));
}

bool is_valid_utf8(std::string_view text) noexcept {
  for (std::size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    const std::size_t n = valid_sequence_length(text, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string repair_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = valid_sequence_length(text, i);
    if (n == 0) {
      append_utf8(out, kReplacement);
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

}  // namespace ctxwin
