#include "ctxwin/compaction/run_verdict.hpp"

#include <algorithm>

namespace ctxwin {

namespace {

// The first line of `text` that is not blank, nor a tag an agent wraps output in.
std::string_view first_line(std::string_view text) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r' || line.back() == '\t')) line.remove_suffix(1);
    const bool tag = line.size() > 2 && line.front() == '<' && line.back() == '>' && line.find(' ') == std::string_view::npos;
    if (!line.empty() && !tag) return line;
    start = end + 1;
  }
  return {};
}

std::string clipped(std::string_view line, std::size_t max_bytes) {
  if (line.size() <= max_bytes) return std::string(line);
  std::size_t at = max_bytes;
  while (at > 0 && (static_cast<unsigned char>(line[at]) & 0xC0) == 0x80) --at;
  return std::string(line.substr(0, at)) + "...";
}

}  // namespace

RunVerdict judge_run(const ToolCallReading& call, const ToolOutcome& outcome, std::string_view result, bool reported_error,
                     std::size_t max_line_bytes) {
  RunVerdict v;
  const bool failing_tests = !outcome.failed_tests.empty() || outcome.tally_failed;
  if (reported_error) {
    v.failed = true;
  } else if (call.read_only) {
    if (call.shell) return v;  // content: neither a failure nor a success
    v.failed = reports_error(first_line(result));
    v.succeeded = !v.failed;
  } else if (outcome.exit_code.has_value() && call.status_reliable) {
    // A traceback the output ends with is the command's own outcome even when it exited 0.
    v.failed = *outcome.exit_code != 0 || failing_tests || outcome.ends_in_traceback || outcome.timed_out;
  } else {
    v.failed = failing_tests || outcome.timed_out || !outcome.error_lines.empty() ||
               (outcome.exit_code.has_value() && *outcome.exit_code != 0 && call.status_reliable);
  }
  if (!v.failed) {
    v.succeeded = true;
    v.tests_passed = call.runs_tests && (!outcome.tally.empty() || !outcome.passed_tests.empty());
    return v;
  }
  v.lines = outcome.error_lines;
  if (v.lines.empty() && outcome.tally_failed) v.lines.push_back(outcome.tally);
  const bool only_status = std::all_of(v.lines.begin(), v.lines.end(), [](const std::string& l) { return exit_status_in(l).has_value(); });
  if (only_status) {
    // A run that failed without an error line: what it ended with says how, then its status.
    std::vector<std::string> lines;
    if (!outcome.last_line.empty())
      lines.push_back(clipped(outcome.last_line, max_line_bytes));
    else if (reported_error && !first_line(result).empty())
      lines.push_back(clipped(first_line(result), max_line_bytes));
    if (v.lines.empty() && outcome.exit_code.has_value() && *outcome.exit_code != 0)
      lines.push_back("exit code " + std::to_string(*outcome.exit_code));
    for (auto& l : v.lines) lines.push_back(std::move(l));
    v.lines = std::move(lines);
  }
  if (v.lines.empty()) v.lines.push_back("failed");
  return v;
}

}  // namespace ctxwin
