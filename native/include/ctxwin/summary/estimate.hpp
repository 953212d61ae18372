// Token estimates computed from a text's length alone.
//
// The thread manager (ContextManager) estimates tokens as Math.ceil(text.length / 3.5), where
// text.length counts UTF-16 code units, and agent loops written against it expect exactly that. Only the length is needed, so callers pass
// the length and the text never has to be copied across the JavaScript boundary. The arithmetic is IEEE double, exactly as JavaScript
// performs it, so results are bit-identical to the reference for every length.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace ctxwin {

// The thread manager's characters-per-token ratio.
inline constexpr double kThreadCharsPerToken = 3.5;

// Math.ceil(length / chars_per_token). chars_per_token must be finite and > 0 (see
// check_chars_per_token); length is a UTF-16 code-unit count.
inline std::uint64_t estimate_tokens(std::uint64_t length, double chars_per_token = kThreadCharsPerToken) noexcept {
  const double ratio = static_cast<double>(length) / chars_per_token;
  const auto whole = static_cast<std::uint64_t>(ratio);
  return static_cast<double>(whole) < ratio ? whole + 1 : whole;
}

// Validates a length that arrived as a double (a JavaScript number): a non-negative integer no
// larger than 2^53. Throws ctxwin::Error naming `argument_name` otherwise.
std::uint64_t checked_length(double length, const char* argument_name);

// Validates a characters-per-token ratio: finite and > 0.
double checked_chars_per_token(double chars_per_token, const char* argument_name);

// Replaces every length in `lengths` by its estimate, in place: one pass, no allocation. Used to
// estimate a batch of strings (a thread's events) in one boundary crossing.
void estimate_tokens_in_place(std::span<std::uint32_t> lengths, double chars_per_token = kThreadCharsPerToken) noexcept;

// Words in UTF-16 text: maximal runs of code units that are not Unicode White_Space.
std::uint64_t count_words(std::u16string_view text) noexcept;

// The word-count approximation of counters without a tokenizer: ceil(words * tokens_per_word)
// (1.3 by default in ApproximateCounter). tokens_per_word must be finite, > 0.
inline std::uint64_t estimate_tokens_by_words(std::u16string_view text, double tokens_per_word) noexcept {
  const double value = static_cast<double>(count_words(text)) * tokens_per_word;
  const auto whole = static_cast<std::uint64_t>(value);
  return static_cast<double>(whole) < value ? whole + 1 : whole;
}

}  // namespace ctxwin
