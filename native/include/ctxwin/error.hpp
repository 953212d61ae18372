// ctxwin::Error is the one exception type the core throws at its boundary.
//
// Every error carries a stable code and a kind so that the Node-API binding can turn it into
// the JavaScript error a caller expects (TypeError, RangeError or Error) with `code` set to
// "ERR_CTXWIN_<CODE>". The message already names the offending argument: the binding adds
// nothing to it, so the same text reaches C++ and JavaScript callers.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace ctxwin {

// Which JavaScript error class an Error maps to.
enum class ErrorKind {
  Type,   // wrong type of value (a number where a string belongs, ...)
  Range,  // right type, value out of its domain (negative, NaN, non-integer, ...)
  Other,  // anything else (invalid data that parses, internal limits)
};

// The codes the C++ side raises, from the one list of codes (error_codes.inc).
enum class ErrorCode {
#define CTXWIN_ERROR_CODE(name, code) name,
#include "ctxwin/error_codes.inc"
};

// The `code` JavaScript sees for `code`, e.g. "ERR_CTXWIN_OUT_OF_RANGE".
std::string_view error_code_name(ErrorCode code) noexcept;

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, ErrorCode code, const std::string& message) : std::runtime_error(message), kind_(kind), code_(code) {}

  ErrorKind kind() const noexcept { return kind_; }
  ErrorCode code() const noexcept { return code_; }

  // The `code` property JavaScript sees, e.g. "ERR_CTXWIN_OUT_OF_RANGE".
  std::string_view js_code() const noexcept;

  static Error type(ErrorCode code, const std::string& message) { return Error(ErrorKind::Type, code, message); }
  static Error range(ErrorCode code, const std::string& message) { return Error(ErrorKind::Range, code, message); }

 private:
  ErrorKind kind_;
  ErrorCode code_;
};

// Renders a double the way an error message should show it: integers without a fraction,
// NaN and the infinities by name.
std::string describe_number(double value);

}  // namespace ctxwin
