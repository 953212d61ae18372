#include "ctxwin/summary/estimate.hpp"

#include <cmath>
#include <string>

#include "tokenizer/char_class.hpp"
#include "ctxwin/error.hpp"

namespace ctxwin {

namespace {
constexpr double kMaxSafeInteger = 9007199254740991.0;  // Number.MAX_SAFE_INTEGER
}

std::uint64_t checked_length(double length, const char* argument_name) {
  if (!std::isfinite(length) || length < 0 || length > kMaxSafeInteger || std::floor(length) != length) {
    throw Error::range(ErrorCode::OutOfRange,
                       std::string(argument_name) + " must be a non-negative integer, got " + describe_number(length));
  }
  return static_cast<std::uint64_t>(length);
}

double checked_chars_per_token(double chars_per_token, const char* argument_name) {
  if (!std::isfinite(chars_per_token) || chars_per_token <= 0) {
    throw Error::range(ErrorCode::OutOfRange,
                       std::string(argument_name) + " must be a finite number greater than 0, got " + describe_number(chars_per_token));
  }
  return chars_per_token;
}

void estimate_tokens_in_place(std::span<std::uint32_t> lengths, double chars_per_token) noexcept {
  constexpr std::uint64_t kMax = 0xFFFFFFFFu;
  for (auto& value : lengths) {
    // With a ratio >= 1 the estimate never exceeds the length; below 1 it can, so saturate.
    const std::uint64_t tokens = estimate_tokens(value, chars_per_token);
    value = static_cast<std::uint32_t>(tokens < kMax ? tokens : kMax);
  }
}

std::uint64_t count_words(std::u16string_view text) noexcept {
  std::uint64_t words = 0;
  bool in_word = false;
  for (char16_t c : text) {
    // Unicode White_Space lies in the BMP, so a UTF-16 unit can be tested on its own.
    const bool space = char_class::is_white_space(c);
    if (!space && !in_word) ++words;
    in_word = !space;
  }
  return words;
}

}  // namespace ctxwin
