#include "ctxwin/error.hpp"

#include <charconv>
#include <cmath>

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
  char buffer[64];
  // Shortest round-trip form, which is what JavaScript prints for ordinary magnitudes.
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  if (ec != std::errc()) return "?";
  return std::string(buffer, end);
}

}  // namespace ctxwin
