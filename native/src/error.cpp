#include "ctxwin/error.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ctxwin {

std::string_view Error::js_code() const noexcept {
  switch (code_) {
    case ErrorCode::InvalidArgument:
      return "ERR_CTXWIN_INVALID_ARGUMENT";
    case ErrorCode::OutOfRange:
      return "ERR_CTXWIN_OUT_OF_RANGE";
    case ErrorCode::InvalidThread:
      return "ERR_CTXWIN_INVALID_THREAD";
    case ErrorCode::UnknownEncoding:
      return "ERR_CTXWIN_UNKNOWN_ENCODING";
    case ErrorCode::RankDataUnavailable:
      return "ERR_CTXWIN_RANK_DATA_UNAVAILABLE";
    case ErrorCode::InvalidTokenizer:
      return "ERR_CTXWIN_INVALID_TOKENIZER";
    case ErrorCode::UnsupportedTokenizer:
      return "ERR_CTXWIN_UNSUPPORTED_TOKENIZER";
    case ErrorCode::TokenizerUnavailable:
      return "ERR_CTXWIN_TOKENIZER_UNAVAILABLE";
  }
  return "ERR_CTXWIN_UNKNOWN";
}

std::string describe_number(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  // The shortest form that reads back as `value`, written the way JavaScript writes numbers
  // (fixed notation from 1e-6 to 1e21). Not std::to_chars: the WebAssembly build's libc++ 14
  // has no floating-point to_chars, and both backends must word their errors alike.
  char buffer[400];
  int digits = 1;
  for (; digits < 17; ++digits) {
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
    if (std::strtod(buffer, nullptr) == value) break;
  }
  const double magnitude = std::fabs(value);
  if (magnitude == 0 || (magnitude >= 1e-6 && magnitude < 1e21)) {
    const int exponent = magnitude == 0 ? 0 : static_cast<int>(std::floor(std::log10(magnitude)));
    const int decimals = std::max(0, digits - 1 - exponent);
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.*e", digits - 1, value);
  }
  return std::string(buffer);
}

}  // namespace ctxwin
