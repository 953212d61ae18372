#include "ctxwin/tokenizer/bpe/pretokenizer.hpp"

#include <bit>

#include "ctxwin/tokenizer/bpe/short_bytes.hpp"
#include "tokenizer/char_class.hpp"
#include "ctxwin/tokenizer/utf8.hpp"

namespace ctxwin {

namespace {

using namespace char_class;

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
  c.flags = classify_fast(c.cp);
  return c;
}

// End of the run of code points from `i` whose flags satisfy `want(flags)`.
template <typename Want>
inline std::size_t run_end(std::string_view text, std::size_t i, Want want) noexcept {
  while (i < text.size()) {
    const CodePoint c = at(text, i);
    if (!want(c.flags)) break;
    i += c.length;
  }
  return i;
}

inline bool folds_to(char32_t cp, char lower, bool ignore_case) noexcept {
  if (cp == static_cast<char32_t>(lower)) return true;
  if (!ignore_case) return false;
  if (cp == static_cast<char32_t>(lower - 'a' + 'A')) return true;
  return lower == 's' && cp == 0x017F;  // LATIN SMALL LETTER LONG S folds to 's'
}

// Length in bytes of "'s|'t|'re|'ve|'m|'ll|'d" at `i` (which holds the apostrophe), or 0.
std::size_t contraction(std::string_view text, std::size_t i, bool ignore_case) noexcept {
  if (i >= text.size() || text[i] != '\'') return 0;
  std::size_t j = i + 1;
  if (j >= text.size()) return 0;
  const CodePoint c1 = at(text, j);
  if (folds_to(c1.cp, 's', ignore_case) || folds_to(c1.cp, 't', ignore_case) || folds_to(c1.cp, 'm', ignore_case) ||
      folds_to(c1.cp, 'd', ignore_case)) {
    return 1 + c1.length;
  }
  const std::size_t k = j + c1.length;
  if (k >= text.size()) return 0;
  const CodePoint c2 = at(text, k);
  if ((folds_to(c1.cp, 'r', ignore_case) && folds_to(c2.cp, 'e', ignore_case)) ||
      (folds_to(c1.cp, 'v', ignore_case) && folds_to(c2.cp, 'e', ignore_case)) ||
      (folds_to(c1.cp, 'l', ignore_case) && folds_to(c2.cp, 'l', ignore_case))) {
    return 1 + c1.length + c2.length;
  }
  return 0;
}

// The three whitespace alternatives shared by cl100k and o200k (with_newline_rule) and r50k:
// \s*[\r\n]+ | \s+(?!\S) | \s+   at `i`, which holds a whitespace code point.
std::size_t whitespace(std::string_view text, std::size_t i, bool with_newline_rule) noexcept {
  std::size_t end = i;
  std::size_t last_start = i;
  std::size_t after_last_newline = 0;
  while (end < text.size()) {
    const CodePoint c = at(text, end);
    if (!(c.flags & kSpace)) break;
    last_start = end;
    end += c.length;
    if (c.flags & kCrLf) after_last_newline = end;
  }
  // \s*[\r\n]+ : backtracking leaves the match right after the run's last CR/LF.
  if (with_newline_rule && after_last_newline != 0) return after_last_newline;
  // \s+(?!\S) : the whole run at the end of the text, else all but its last code point.
  if (end == text.size() || last_start > i) return end == text.size() ? end : last_start;
  return end;  // \s+ : a single whitespace code point before a non-space
}

inline std::size_t numbers_up_to_3(std::string_view text, std::size_t i, int max_digits = 3) noexcept {
  for (int k = 0; k < max_digits && i < text.size(); ++k) {
    const CodePoint c = at(text, i);
    if (!(c.flags & kNumber)) break;
    i += c.length;
  }
  return i;
}

constexpr auto kNotSpaceLetterNumber = [](std::uint8_t f) { return (f & (kSpace | kLetter | kNumber)) == 0; };
constexpr auto kIsLetter = [](std::uint8_t f) { return (f & kLetter) != 0; };
constexpr auto kIsNumber = [](std::uint8_t f) { return (f & kNumber) != 0; };
constexpr auto kIsCrLf = [](std::uint8_t f) { return (f & kCrLf) != 0; };
constexpr auto kIsUpperish = [](std::uint8_t f) { return (f & kUpperish) != 0; };
constexpr auto kIsLowerish = [](std::uint8_t f) { return (f & kLowerish) != 0; };
constexpr std::size_t kNoMatch = 0;

// [UPPER]*[LOWER]+ at p (o200k); kNoMatch when it does not match.
std::size_t upper_star_lower_plus(std::string_view text, std::size_t p) noexcept {
  std::size_t b = p;
  std::size_t after_last_lowerish = kNoMatch;
  while (b < text.size()) {
    const CodePoint c = at(text, b);
    if (!(c.flags & kUpperish)) break;
    b += c.length;
    if (c.flags & kLowerish) after_last_lowerish = b;
  }
  if (b < text.size() && (at(text, b).flags & kLowerish)) return run_end(text, b, kIsLowerish);
  // Backtrack: UPPER* gives back code points until LOWER+ can match the run's last lower-ish one.
  return after_last_lowerish;
}

// [UPPER]+[LOWER]* at p (o200k).
std::size_t upper_plus_lower_star(std::string_view text, std::size_t p) noexcept {
  const std::size_t b = run_end(text, p, kIsUpperish);
  if (b == p) return kNoMatch;
  return run_end(text, b, kIsLowerish);
}

// The quick paths for ASCII. A word's end is found eight bytes at a time (SWAR: every byte of a
// 64-bit word classified at once with carry-free byte arithmetic, the first byte that is not a
// letter found with one count of trailing zeros), so a word costs no loop whose exit the branch
// predictor must guess at every length. Portable C++: the same on x86, ARM and WebAssembly.
constexpr std::uint64_t kEveryByte = 0x0101010101010101ull;
constexpr std::uint64_t kHighBits = kEveryByte * 0x80;

// The high bit of each byte of `eight` that is an ASCII letter (with `fold_case`) or an ASCII lower-
// case letter (without). The sums cannot carry out of a byte: its low seven bits plus at most 0x1F.
inline std::uint64_t ascii_letter_bits(std::uint64_t eight, bool fold_case) noexcept {
  const std::uint64_t low7 = (fold_case ? eight | (kEveryByte * 0x20) : eight) & ~kHighBits;
  const std::uint64_t at_least_a = low7 + kEveryByte * (0x80 - 'a');
  const std::uint64_t past_z = low7 + kEveryByte * (0x80 - 'z' - 1);
  return at_least_a & ~past_z & ~eight & kHighBits;
}

inline bool is_ascii_letter(char c) noexcept { return static_cast<unsigned char>((c | 0x20) - 'a') < 26; }

// End of the run of ASCII letters (or lower-case letters, without `fold_case`) from `k`.
inline std::size_t ascii_letters_end(std::string_view text, std::size_t k, bool fold_case) noexcept {
  if constexpr (std::endian::native == std::endian::little) {
    while (k + 8 <= text.size()) {
      const std::uint64_t other = ~ascii_letter_bits(short_bytes::load8(text.data() + k), fold_case) & kHighBits;
      if (other != 0) return k + static_cast<std::size_t>(std::countr_zero(other)) / 8;
      k += 8;
    }
  }
  if (fold_case) {
    while (k < text.size() && is_ascii_letter(text[k])) ++k;
  } else {
    while (k < text.size() && text[k] >= 'a' && text[k] <= 'z') ++k;
  }
  return k;
}

inline bool is_non_ascii(std::string_view text, std::size_t k) noexcept {
  return k < text.size() && static_cast<unsigned char>(text[k]) >= 0x80;
}

// The cl100k piece at `i` when ASCII alone decides it: a word with its optional prefix, up to
// `max_digits` digits, or a run of punctuation with its optional space and trailing CR/LF; kNoMatch
// when the general matcher must decide (an apostrophe, whitespace, or a non-ASCII byte that could
// continue the piece).
std::size_t ascii_quick_cl100k(std::string_view text, std::size_t i, int max_digits) noexcept {
  const auto b0 = static_cast<unsigned char>(text[i]);
  if (b0 >= 0x80 || b0 == '\'') return kNoMatch;
  const std::uint8_t f0 = kAscii[b0];
  std::size_t j = i;  // where the letters or the punctuation start
  if (!(f0 & kLetter)) {
    if (f0 & kNumber) {
      std::size_t k = i + 1;
      while (k < text.size() && static_cast<int>(k - i) < max_digits && text[k] >= '0' && text[k] <= '9') ++k;
      return static_cast<int>(k - i) < max_digits && is_non_ascii(text, k) ? kNoMatch : k;
    }
    if ((f0 & kCrLf) || i + 1 >= text.size()) return kNoMatch;
    j = i + 1;  // [^\r\n\p{L}\p{N}]? takes b0 when letters follow
    if (!is_ascii_letter(text[j])) {
      // ' ?[^\s\p{L}\p{N}]+[\r\n]*': punctuation from i, or from i + 1 after a space.
      if (f0 & kSpace) {
        const auto b1 = static_cast<unsigned char>(text[j]);
        if (b0 != ' ' || b1 >= 0x80 || !kNotSpaceLetterNumber(kAscii[b1]) || b1 == '\'') return kNoMatch;
      } else {
        j = i;
      }
      std::size_t k = j;
      while (k < text.size() && static_cast<unsigned char>(text[k]) < 0x80 &&
             kNotSpaceLetterNumber(kAscii[static_cast<unsigned char>(text[k])]))
        ++k;
      if (is_non_ascii(text, k)) return kNoMatch;
      while (k < text.size() && (text[k] == '\r' || text[k] == '\n')) ++k;
      return k;
    }
  }
  const std::size_t end = ascii_letters_end(text, j + 1, true);
  return is_non_ascii(text, end) ? kNoMatch : end;
}

}  // namespace

bool Pretokenizer::next(std::string_view& piece) noexcept {
  if (position_ >= text_.size()) return false;
  std::size_t end = 0;
  switch (pattern_) {
    case Pattern::R50k:
      end = match_r50k(position_);
      break;
    case Pattern::Cl100k:
      end = match_cl100k(position_, 3);
      break;
    case Pattern::Cl100kSingleDigit:
      end = match_cl100k(position_, 1);
      break;
    case Pattern::O200k:
      end = match_o200k(position_);
      break;
  }
  if (end <= position_) end = position_ + at(text_, position_).length;  // never loop; cannot happen
  piece = text_.substr(position_, end - position_);
  position_ = end;
  return true;
}

std::size_t Pretokenizer::match_r50k(std::size_t i) const noexcept {
  if (const std::size_t n = contraction(text_, i, false)) return i + n;
  const CodePoint c0 = at(text_, i);
  const std::size_t j = c0.cp == ' ' ? i + 1 : i;
  if (j < text_.size()) {
    const CodePoint c = at(text_, j);
    if (c.flags & kLetter) return run_end(text_, j, kIsLetter);
    if (c.flags & kNumber) return run_end(text_, j, kIsNumber);
    if (kNotSpaceLetterNumber(c.flags)) return run_end(text_, j, kNotSpaceLetterNumber);
  }
  return whitespace(text_, i, false);
}

std::size_t Pretokenizer::match_cl100k(std::size_t i, int max_digits) const noexcept {
  if (quick_) {
    if (const std::size_t end = ascii_quick_cl100k(text_, i, max_digits); end != kNoMatch) return end;
  }
  if (const std::size_t n = contraction(text_, i, true)) return i + n;
  const CodePoint c0 = at(text_, i);
  // [^\r\n\p{L}\p{N}]?\p{L}+
  if (c0.flags & kLetter) return run_end(text_, i, kIsLetter);
  if (!(c0.flags & (kCrLf | kLetter | kNumber))) {
    const std::size_t j = i + c0.length;
    if (j < text_.size() && (at(text_, j).flags & kLetter)) return run_end(text_, j, kIsLetter);
  }
  // \p{N}{1,3} (or \p{N})
  if (c0.flags & kNumber) return numbers_up_to_3(text_, i, max_digits);
  // ' ?[^\s\p{L}\p{N}]+[\r\n]*'
  const std::size_t j = c0.cp == ' ' ? i + 1 : i;
  if (j < text_.size() && kNotSpaceLetterNumber(at(text_, j).flags)) {
    return run_end(text_, run_end(text_, j, kNotSpaceLetterNumber), kIsCrLf);
  }
  return whitespace(text_, i, true);
}

// The o200k word alternatives on ASCII: with [A-Z] as the only upper-ish and [a-z] as the only
// lower-ish letters, [A-Z]*[a-z]+ | [A-Z]+[a-z]* is the upper run then the lower run. Exact only
// when the word ends at an ASCII byte (or the end): a non-ASCII letter or mark could extend it.
// Returns the end of the word; kNoWord when no word can start at `i`; kNoMatch when non-ASCII
// text decides, for the general matcher.
constexpr std::size_t kNoWord = static_cast<std::size_t>(-1);
std::size_t ascii_word(std::string_view text, std::size_t i) noexcept {
  std::size_t j = i;
  if (!(kAscii[static_cast<unsigned char>(text[i])] & (kLetter | kNumber | kCrLf))) ++j;  // the optional prefix
  std::size_t k = j;
  while (k < text.size() && text[k] >= 'A' && text[k] <= 'Z') ++k;
  k = ascii_letters_end(text, k, false);
  if (k < text.size() && static_cast<unsigned char>(text[k]) >= 0x80) return kNoMatch;
  // No letter at j, and j holds ASCII: neither core can start at j, nor at i (when j = i + 1,
  // text[i] is not a letter).
  return k == j ? kNoWord : k;
}

std::size_t Pretokenizer::match_o200k(std::size_t i) noexcept {
  // Most pieces of English text and code: " word", "Word", "HTTP", ".method".
  const std::size_t word = quick_ && static_cast<unsigned char>(text_[i]) < 0x80 ? ascii_word(text_, i) : kNoMatch;
  if (word != kNoMatch && word != kNoWord) {
    // Most words end before no apostrophe: tested here, without the call.
    contraction_ = word < text_.size() && text_[word] == '\'' ? contraction(text_, word, true) : 0;
    return word + contraction_;
  }
  contraction_ = 0;
  const CodePoint c0 = at(text_, i);
  const bool can_prefix = !(c0.flags & (kCrLf | kLetter | kNumber));
  // The two word alternatives: an optional prefix, a cased core, an optional contraction. The
  // optional prefix is greedy: it is tried first, and dropped only when the core then fails.
  for (auto core : {upper_star_lower_plus, upper_plus_lower_star}) {
    if (word == kNoWord) break;
    std::size_t end = can_prefix && i + c0.length < text_.size() ? core(text_, i + c0.length) : kNoMatch;
    if (end == kNoMatch) end = core(text_, i);
    if (end != kNoMatch) {
      contraction_ = contraction(text_, end, true);
      return end + contraction_;
    }
  }
  if (c0.flags & kNumber) return numbers_up_to_3(text_, i);
  // ' ?[^\s\p{L}\p{N}]+[\r\n/]*'
  const std::size_t j = c0.cp == ' ' ? i + 1 : i;
  if (j < text_.size() && kNotSpaceLetterNumber(at(text_, j).flags)) {
    std::size_t end = run_end(text_, j, kNotSpaceLetterNumber);
    while (end < text_.size() && (text_[end] == '\r' || text_[end] == '\n' || text_[end] == '/')) ++end;
    return end;
  }
  return whitespace(text_, i, true);
}

}  // namespace ctxwin
