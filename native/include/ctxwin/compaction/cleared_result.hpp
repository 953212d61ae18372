// The text an old tool result is replaced by when compaction clears it: how large it was, the id
// of its tool call (so that the model, and a later recall, can name it), and how its run went, so
// that neither an error nor the success that fixed it is lost with the output around it: a failed
// run keeps the lines in which it reported its failure, a run that passed keeps its outcome line
// (its tally, "212 passed in 3.41s", "Ran 12 tests in 0.3s; OK"; given the call, a command's last
// line), and a read (a `cat`, a `sed -n`, a view) keeps nothing, since what it printed was content.
// Failure and success are judged as the problem ledger judges them (run_verdict.hpp).
//
//   cleared_tool_result(test_log, "call_17");
//   // "[tool result cleared: 5.2 KB, id call_17]\nError lines kept:\nFAIL test/billing.test.ts > ...\n..."
//   cleared_tool_result(passing_log, "call_21", "bash", R"({"command":"npx vitest run"})");
//   // "[tool result cleared: 2.8 KB, id call_21]\nOutcome kept: Tests 212 passed (212)"
#pragma once

#include <string>
#include <string_view>

#include "ctxwin/compaction/tool_outcome.hpp"

namespace ctxwin {

// The first line of every cleared result, up to the size.
inline constexpr std::string_view kClearedResultPrefix = "[tool result cleared: ";
// The line before the error lines a cleared result keeps.
inline constexpr std::string_view kClearedErrorsHeading = "Error lines kept:";
// How the line a passing run keeps begins.
inline constexpr std::string_view kClearedOutcomePrefix = "Outcome kept: ";

// Without the call: a run's lines are judged from the text alone, and a passing run keeps its tally.
std::string cleared_tool_result(std::string_view text, std::string_view id, const ErrorLineLimits& limits = {});
// With the call it answers (its tool's name and its arguments as JSON text).
std::string cleared_tool_result(std::string_view text, std::string_view id, std::string_view tool, std::string_view args_json,
                                const ErrorLineLimits& limits = {});

bool is_cleared_tool_result(std::string_view text) noexcept;

// The error lines a cleared result kept (the text after its heading); the text itself when it is
// not a cleared result.
std::string_view kept_error_text(std::string_view text) noexcept;

// "640 B", "5.2 KB", "1.3 MB".
std::string describe_size(std::size_t bytes);

}  // namespace ctxwin
