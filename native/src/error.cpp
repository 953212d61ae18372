#include "ctxwin/error.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ctxwin {

std::string_view error_code_name(ErrorCode code) noexcept {
  switch (code) {
#define CTXWIN_ERROR_CODE(name, text) \
  case ErrorCode::name:               \
    return text;
#include "ctxwin/error_codes.inc"
  }
  return error_code_name(ErrorCode::Unknown);  // a value outside the enumeration
}

std::string_view Error::js_code() const noexcept { return error_code_name(code_); }

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
