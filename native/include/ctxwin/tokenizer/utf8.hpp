// UTF-8 for every tokenizer family: the one encoder of code points, the one UTF-16 reader, the
// one validity check and repair, and decoding of valid text.
//
// JavaScript strings are UTF-16 and may hold lone surrogates; OpenAI's tokenizers see the UTF-8
// that TextEncoder produces, where each lone surrogate becomes U+FFFD. Text from C++ callers may
// be invalid UTF-8; it is repaired the same way (each invalid byte becomes U+FFFD), as Rust's
// String::from_utf8_lossy does.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ctxwin {

// Writes the UTF-8 form of `cp` (at most U+10FFFF) at `out`, 1 to 4 bytes; returns their end.
// Surrogate code points are written as their 3-byte form: callers that must not produce one
// replace it first (append_utf16_as_utf8 does).
inline char* write_utf8(char32_t cp, char* out) noexcept {
  if (cp < 0x80) {
    *out++ = static_cast<char>(cp);
  } else if (cp < 0x800) {
    *out++ = static_cast<char>(0xC0 | (cp >> 6));
    *out++ = static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *out++ = static_cast<char>(0xE0 | (cp >> 12));
    *out++ = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out++ = static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    *out++ = static_cast<char>(0xF0 | (cp >> 18));
    *out++ = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    *out++ = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out++ = static_cast<char>(0x80 | (cp & 0x3F));
  }
  return out;
}

// Appends the UTF-8 form of `cp` to `out`.
inline void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
    return;
  }
  char bytes[4];
  out.append(bytes, static_cast<std::size_t>(write_utf8(cp, bytes) - bytes));
}

// UTF-16 to UTF-8, lone surrogates replaced by U+FFFD. Appends to `out`.
void append_utf16_as_utf8(std::u16string_view text, std::string& out);

// True when `text` is well-formed UTF-8 (no overlongs, surrogates or values past U+10FFFF).
bool is_valid_utf8(std::string_view text) noexcept;

// A copy of `text` with every maximal invalid subsequence replaced by U+FFFD.
std::string repair_utf8(std::string_view text);

// Decodes the code point at text[at], which must be valid UTF-8; sets `length` to its bytes.
inline char32_t decode_utf8(std::string_view text, std::size_t at, std::size_t& length) noexcept {
  const auto b0 = static_cast<unsigned char>(text[at]);
  if (b0 < 0x80) {
    length = 1;
    return b0;
  }
  if (b0 < 0xE0) {
    length = 2;
    return (char32_t(b0 & 0x1F) << 6) | (static_cast<unsigned char>(text[at + 1]) & 0x3F);
  }
  if (b0 < 0xF0) {
    length = 3;
    return (char32_t(b0 & 0x0F) << 12) | (char32_t(static_cast<unsigned char>(text[at + 1]) & 0x3F) << 6) |
           (static_cast<unsigned char>(text[at + 2]) & 0x3F);
  }
  length = 4;
  return (char32_t(b0 & 0x07) << 18) | (char32_t(static_cast<unsigned char>(text[at + 1]) & 0x3F) << 12) |
         (char32_t(static_cast<unsigned char>(text[at + 2]) & 0x3F) << 6) | (static_cast<unsigned char>(text[at + 3]) & 0x3F);
}

}  // namespace ctxwin
