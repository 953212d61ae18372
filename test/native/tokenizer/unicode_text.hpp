// Text built from all of Unicode for the differential tests of the hand-written matchers against
// PCRE2 (the BPE pretokenizer's patterns, the tokenizer.json Split scanners): which code points
// the two can be compared on, and each general category's code points.
#pragma once

#include <utf8proc.h>

#include <cstddef>
#include <string>
#include <vector>

#include "ctxwin/tokenizer/hf/regex.hpp"
#include "ctxwin/tokenizer/utf8.hpp"

namespace ctxwin::unicode_text {

inline bool is_scalar(char32_t cp) { return cp < 0xD800 || (cp > 0xDFFF && cp <= 0x10FFFF); }

// The code points utf8proc assigns (Unicode 15.0 in Debian 12's 2.8) that PCRE2's tables leave
// unassigned (10.42: Unicode 14.0), such as the Kawi and Kaktovik digits. The hand-written
// matchers classify them by utf8proc, so they are one place the two paths may differ, and the
// comparisons leave them out.
inline const std::vector<bool>& newer_than_pcre2() {
  static const std::vector<bool> newer = [] {
    std::string all;
    for (char32_t cp = 1; cp <= 0x10FFFF; ++cp)
      if (is_scalar(cp)) append_utf8(all, cp);
    std::vector<bool> out(0x110000, false);
    Regex("\\p{Cn}").for_each_match(all, [&](std::size_t start, std::size_t) {
      std::size_t length = 0;
      const char32_t cp = decode_utf8(all, start, length);
      if (utf8proc_category(static_cast<utf8proc_int32_t>(cp)) != UTF8PROC_CATEGORY_CN) out[cp] = true;
    });
    return out;
  }();
  return newer;
}

// U+180E MONGOLIAN VOWEL SEPARATOR left White_Space in Unicode 6.3; PCRE2's \s (through its \h
// list) still matches it, Oniguruma's (the Rust reference's) does not, nor the hand-written
// matchers' (char_class::is_white_space). The other place the two paths differ.
inline constexpr char32_t kMongolianVowelSeparator = 0x180E;

inline bool comparable(char32_t cp) { return is_scalar(cp) && cp != kMongolianVowelSeparator && !newer_than_pcre2()[cp]; }

// The comparable code points of each general category (utf8proc's numbering, unassigned included).
inline const std::vector<std::vector<char32_t>>& by_category() {
  static const std::vector<std::vector<char32_t>> pools = [] {
    std::vector<std::vector<char32_t>> out(UTF8PROC_CATEGORY_CO + 1);
    for (char32_t cp = 0; cp <= 0x10FFFF; ++cp) {
      if (comparable(cp)) out[static_cast<std::size_t>(utf8proc_category(static_cast<utf8proc_int32_t>(cp)))].push_back(cp);
    }
    return out;
  }();
  return pools;
}

// Each comparable code point from U+0001 up, between `before` and `after`; every seventh is
// followed by its successor too (pairs of neighbours, often of one script and category).
inline std::string every_code_point(const std::string& before, const std::string& after) {
  std::string text;
  for (char32_t cp = 1; cp <= 0x10FFFF; ++cp) {
    if (!comparable(cp)) continue;
    text += before;
    append_utf8(text, cp);
    text += after;
    if (cp % 7 == 0 && comparable(cp + 1)) append_utf8(text, cp + 1);
  }
  return text;
}

}  // namespace ctxwin::unicode_text
