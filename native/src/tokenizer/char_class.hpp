// Character classes of the hand-written pretokenizers (tiktoken's patterns in bpe/pretokenizer.cpp,
// the tokenizer.json Split scanners in hf/split_scanner.cpp), from Unicode general categories
// (utf8proc) and the White_Space property: one table for both, so that they agree on every code
// point and the build carries one copy. Internal to the core.
#pragma once

#include <utf8proc.h>

#include <array>
#include <cstdint>

namespace ctxwin::char_class {

enum : std::uint8_t {
  kLetter = 1 << 0,    // \p{L}
  kNumber = 1 << 1,    // \p{N}
  kSpace = 1 << 2,     // \s: Unicode White_Space
  kCrLf = 1 << 3,      // \r or \n
  kUpperish = 1 << 4,  // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
  kLowerish = 1 << 5,  // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
  kMark = 1 << 6,      // \p{M}
  // \p{P} or \p{S}: DeepSeek's patterns only ever name the two together ([\p{P}\p{S}] and its
  // complement), so one flag serves.
  kPunctSymbol = 1 << 7,
};

constexpr bool is_white_space(char32_t cp) noexcept {
  return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
         cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

// Out of line: it is the rare path of classify_fast (code points past the BMP, and the table's
// making), and inlined its switch makes the matchers' per-code-point helpers too large to be
// inlined into their loops (the cl100k pretokenizer ran 5-15% slower that way).
[[gnu::noinline]] inline std::uint8_t classify_slow(char32_t cp) noexcept {
  std::uint8_t flags = is_white_space(cp) ? kSpace : 0;
  if (cp == '\r' || cp == '\n') flags |= kCrLf;
  switch (utf8proc_category(static_cast<utf8proc_int32_t>(cp))) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LT:
      flags |= kLetter | kUpperish;
      break;
    case UTF8PROC_CATEGORY_LL:
      flags |= kLetter | kLowerish;
      break;
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
      flags |= kLetter | kUpperish | kLowerish;
      break;
    case UTF8PROC_CATEGORY_MN:
    case UTF8PROC_CATEGORY_MC:
    case UTF8PROC_CATEGORY_ME:
      flags |= kUpperish | kLowerish | kMark;
      break;
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_NO:
      flags |= kNumber;
      break;
    case UTF8PROC_CATEGORY_PC:
    case UTF8PROC_CATEGORY_PD:
    case UTF8PROC_CATEGORY_PS:
    case UTF8PROC_CATEGORY_PE:
    case UTF8PROC_CATEGORY_PI:
    case UTF8PROC_CATEGORY_PF:
    case UTF8PROC_CATEGORY_PO:
    case UTF8PROC_CATEGORY_SM:
    case UTF8PROC_CATEGORY_SC:
    case UTF8PROC_CATEGORY_SK:
    case UTF8PROC_CATEGORY_SO:
      flags |= kPunctSymbol;
      break;
    default:
      break;
  }
  return flags;
}

constexpr std::array<std::uint8_t, 128> make_ascii_table() {
  std::array<std::uint8_t, 128> table{};
  for (char32_t c = 0; c < 128; ++c) {
    std::uint8_t flags = is_white_space(c) ? kSpace : 0;
    if (c == '\r' || c == '\n') flags |= kCrLf;
    if (c >= 'A' && c <= 'Z') flags |= kLetter | kUpperish;
    if (c >= 'a' && c <= 'z') flags |= kLetter | kLowerish;
    if (c >= '0' && c <= '9') flags |= kNumber;
    // The 32 ASCII punctuation and symbol characters: each is \p{P} or \p{S}.
    if ((c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') || (c >= '{' && c <= '~')) flags |= kPunctSymbol;
    table[c] = flags;
  }
  return table;
}
inline constexpr auto kAscii = make_ascii_table();

// classify_slow of every code point of the Basic Multilingual Plane (64 KB, made on first use,
// shared and immutable): one load per code point where classify_slow is a chain of compares, two
// dependent loads in utf8proc's tables and a switch. CJK and other non-Latin text is nearly all
// in the BMP, and its pretokenizing was mostly classify_slow.
inline const std::array<std::uint8_t, 0x10000>& bmp_table() noexcept {
  static const std::array<std::uint8_t, 0x10000> table = [] {
    std::array<std::uint8_t, 0x10000> flags{};
    for (char32_t cp = 0; cp < 0x10000; ++cp) flags[cp] = classify_slow(cp);
    return flags;
  }();
  return table;
}

inline std::uint8_t classify_fast(char32_t cp) noexcept { return cp < 0x10000 ? bmp_table()[cp] : classify_slow(cp); }

}  // namespace ctxwin::char_class
