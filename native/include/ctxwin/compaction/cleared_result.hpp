// The text an old tool result is replaced by when compaction clears it: how large it was, the id
// of its tool call (so that the model, and a later recall, can name it), and the lines in which it
// reported a failure, so that an error is not lost with the output around it.
//
//   cleared_tool_result(test_log, "call_17");
//   // "[tool result cleared: 5.2 KB, id call_17]\nError lines kept:\nFAIL test/billing.test.ts > ...\n..."
#pragma once

#include <string>
#include <string_view>

#include "ctxwin/compaction/tool_outcome.hpp"

namespace ctxwin {

// The first line of every cleared result, up to the size.
inline constexpr std::string_view kClearedResultPrefix = "[tool result cleared: ";
// The line before the error lines a cleared result keeps.
inline constexpr std::string_view kClearedErrorsHeading = "Error lines kept:";

std::string cleared_tool_result(std::string_view text, std::string_view id, const ErrorLineLimits& limits = {});

bool is_cleared_tool_result(std::string_view text) noexcept;

// The error lines a cleared result kept (the text after its heading); the text itself when it is
// not a cleared result.
std::string_view kept_error_text(std::string_view text) noexcept;

// "640 B", "5.2 KB", "1.3 MB".
std::string describe_size(std::size_t bytes);

}  // namespace ctxwin
