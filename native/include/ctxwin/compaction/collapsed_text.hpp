// A text as one short line for a label or a record: whitespace runs become one space, and the
// text is cut at a code point with "..." once it passes `max_code_points`.
//
//   collapsed_text("pytest  tests/\n  -x", 80);  // "pytest tests/ -x"
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ctxwin {

std::string collapsed_text(std::string_view text, std::size_t max_code_points);

}  // namespace ctxwin
