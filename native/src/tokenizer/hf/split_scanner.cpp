#include "tokenizer/hf/split_scanner.hpp"

#include "ctxwin/tokenizer/utf8.hpp"
#include "tokenizer/char_class.hpp"

namespace ctxwin::hf {

namespace {

// The classes the three patterns tell apart, from the pretokenizer's code point table (one
// classifier for every hand-written matcher: a load from its 64 KB table for a code point of the
// Basic Multilingual Plane, where utf8proc's lookup is two dependent loads and a switch).
using char_class::kAscii;
constexpr std::uint8_t kL = char_class::kLetter;        // \p{L}
constexpr std::uint8_t kM = char_class::kMark;          // \p{M}
constexpr std::uint8_t kN = char_class::kNumber;        // \p{N}
constexpr std::uint8_t kPS = char_class::kPunctSymbol;  // \p{P} or \p{S}
constexpr std::uint8_t kWs = char_class::kSpace;        // \s
constexpr std::uint8_t kCrLf = char_class::kCrLf;       // \r or \n

struct CodePoint {
  char32_t cp = 0;
  std::uint8_t flags = 0;
  std::size_t length = 0;
};

inline CodePoint at(std::string_view text, std::size_t i) noexcept {
  const auto b0 = static_cast<unsigned char>(text[i]);
  if (b0 < 0x80) return {b0, kAscii[b0], 1};
  CodePoint c;
  c.cp = decode_utf8(text, i, c.length);
  c.flags = char_class::classify_fast(c.cp);
  return c;
}

// End of the run of code points from `i` that have one of `flags`.
inline std::size_t run_end(std::string_view text, std::size_t i, std::uint8_t flags) noexcept {
  while (i < text.size()) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b < 0x80) {
      if (!(kAscii[b] & flags)) break;
      ++i;
      continue;
    }
    const CodePoint c = at(text, i);
    if (!(c.flags & flags)) break;
    i += c.length;
  }
  return i;
}

inline bool is_ascii_letter(char c) noexcept { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

inline std::size_t next_code_point(std::string_view text, std::size_t i) noexcept {
  ++i;
  while (i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) ++i;
  return i;
}

bool next_digits(std::string_view text, std::size_t from, std::size_t& start, std::size_t& end) noexcept {
  for (std::size_t i = from; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b < 0x80 && !(kAscii[b] & kN)) {
      ++i;
      continue;
    }
    const CodePoint c = at(text, i);
    if (!(c.flags & kN)) {
      i += c.length;
      continue;
    }
    // \p{N}{1,3}: greedy, nothing after it to backtrack for.
    start = i;
    i += c.length;
    for (int more = 0; more < 2 && i < text.size(); ++more) {
      const CodePoint d = at(text, i);
      if (!(d.flags & kN)) break;
      i += d.length;
    }
    end = i;
    return true;
  }
  return false;
}

constexpr bool is_kana_or_cjk(char32_t cp) noexcept { return (cp >= 0x4E00 && cp <= 0x9FA5) || (cp >= 0x3040 && cp <= 0x30FF); }

bool next_kana_or_cjk(std::string_view text, std::size_t from, std::size_t& start, std::size_t& end) noexcept {
  for (std::size_t i = from; i < text.size();) {
    // Every code point of the class takes three bytes led by 0xE3 to 0xE9.
    const auto b = static_cast<unsigned char>(text[i]);
    if (b < 0xE3 || b > 0xE9) {
      i = b < 0x80 ? i + 1 : next_code_point(text, i);
      continue;
    }
    std::size_t length = 0;
    if (!is_kana_or_cjk(decode_utf8(text, i, length))) {
      i += length;
      continue;
    }
    start = i;
    i += length;
    while (i < text.size()) {
      const auto lead = static_cast<unsigned char>(text[i]);
      if (lead < 0xE3 || lead > 0xE9) break;
      if (!is_kana_or_cjk(decode_utf8(text, i, length))) break;
      i += length;
    }
    end = i;
    return true;
  }
  return false;
}

constexpr std::size_t kNoMatch = 0;

// \s*[\r\n]+|\s+(?!\S)|\s+ at `i`, which holds a whitespace code point.
std::size_t whitespace(std::string_view text, std::size_t i) noexcept {
  std::size_t end = i;
  std::size_t last_start = i;
  std::size_t after_last_newline = kNoMatch;
  while (end < text.size()) {
    const CodePoint c = at(text, end);
    if (!(c.flags & kWs)) break;
    last_start = end;
    end += c.length;
    if (c.flags & kCrLf) after_last_newline = end;
  }
  // \s*[\r\n]+ : backtracking leaves the match right after the run's last CR/LF.
  if (after_last_newline != kNoMatch) return after_last_newline;
  // \s+(?!\S) : the whole run at the end of the text, else all but its last code point; \s+ : a
  // single whitespace code point before a non-space.
  if (end == text.size()) return end;
  return last_start > i ? last_start : end;
}

// The end of DeepSeekWords' match starting at `i`, or kNoMatch (`i` is never a match's end).
std::size_t deepseek_word_at(std::string_view text, std::size_t i) noexcept {
  const CodePoint c0 = at(text, i);
  const std::size_t after0 = i + c0.length;
  // [!"#...~][A-Za-z]+
  if (c0.cp < 0x80 && (c0.flags & kPS) && after0 < text.size() && is_ascii_letter(text[after0])) {
    std::size_t end = after0 + 1;
    while (end < text.size() && is_ascii_letter(text[end])) ++end;
    return end;
  }
  // [^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+ : the optional code point, else (backtracking) none.
  if (!(c0.flags & (kL | kPS | kCrLf)) && after0 < text.size()) {
    const CodePoint c1 = at(text, after0);
    if (c1.flags & (kL | kM)) return run_end(text, after0 + c1.length, kL | kM);
  }
  if (c0.flags & (kL | kM)) return run_end(text, after0, kL | kM);
  //  ?[\p{P}\p{S}]+[\r\n]*
  if (c0.flags & kPS) return run_end(text, run_end(text, after0, kPS), kCrLf);
  if (c0.cp == ' ' && after0 < text.size() && (at(text, after0).flags & kPS)) return run_end(text, run_end(text, after0, kPS), kCrLf);
  if (c0.flags & kWs) return whitespace(text, i);
  return kNoMatch;
}

bool next_deepseek_word(std::string_view text, std::size_t from, std::size_t& start, std::size_t& end) noexcept {
  for (std::size_t i = from; i < text.size(); i = next_code_point(text, i)) {
    if (const std::size_t e = deepseek_word_at(text, i); e != kNoMatch) {
      start = i;
      end = e;
      return true;
    }
  }
  return false;
}

}  // namespace

std::optional<SplitScanner> recognized_split_scanner(std::string_view regex) {
  static constexpr std::string_view kDigitsUpTo3 = R"(\p{N}{1,3})";
  // The ranges as the files write them: the characters themselves, U+4E00-U+9FA5, U+3040-U+309F,
  // U+30A0-U+30FF.
  static constexpr std::string_view kKanaAndCjk = "[\xE4\xB8\x80-\xE9\xBE\xA5\xE3\x81\x80-\xE3\x82\x9F\xE3\x82\xA0-\xE3\x83\xBF]+";
  // Its [\r\n] classes hold the CR and LF characters themselves, as the files' JSON decodes them.
  static constexpr std::string_view kDeepSeekWords =
      "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+"
      "| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+";
  if (regex == kDigitsUpTo3) return SplitScanner::DigitsUpTo3;
  if (regex == kKanaAndCjk) return SplitScanner::KanaAndCjk;
  if (regex == kDeepSeekWords) return SplitScanner::DeepSeekWords;
  return std::nullopt;
}

bool next_scanned_match(SplitScanner scanner, std::string_view text, std::size_t from, std::size_t& start, std::size_t& end) noexcept {
  switch (scanner) {
    case SplitScanner::DigitsUpTo3:
      return next_digits(text, from, start, end);
    case SplitScanner::KanaAndCjk:
      return next_kana_or_cjk(text, from, start, end);
    case SplitScanner::DeepSeekWords:
      return next_deepseek_word(text, from, start, end);
  }
  return false;
}

}  // namespace ctxwin::hf
