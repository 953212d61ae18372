#include "ctxwin/compaction/cleared_result.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "ctxwin/compaction/run_verdict.hpp"
#include "ctxwin/compaction/tool_call.hpp"

namespace ctxwin {

namespace {

std::string clipped_line(std::string_view line, std::size_t max_bytes) {
  if (line.size() <= max_bytes) return std::string(line);
  std::size_t at = max_bytes;
  while (at > 0 && (static_cast<unsigned char>(line[at]) & 0xC0) == 0x80) --at;
  return std::string(line.substr(0, at)) + "...";
}

}  // namespace

std::string describe_size(std::size_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  char buffer[32];
  const double kb = static_cast<double>(bytes) / 1024.0;
  if (kb < 1024.0) {
    std::snprintf(buffer, sizeof buffer, kb < 10.0 ? "%.1f KB" : "%.0f KB", kb);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.1f MB", kb / 1024.0);
  }
  return buffer;
}

namespace {

std::string placeholder(std::string_view text, std::string_view id, const ToolCallReading* call, const ErrorLineLimits& limits) {
  const std::string_view source = kept_error_text(text);
  const ToolOutcome outcome = read_tool_outcome(source, limits);
  std::string out(kClearedResultPrefix);
  out += describe_size(text.size());
  if (!id.empty()) {
    out += ", id ";
    out += id;
  }
  out += "]";
  if (is_cleared_tool_result(text)) {
    // Cleared again: what the placeholder kept stays.
    const std::size_t kept = text.find(std::string("\n").append(kClearedOutcomePrefix));
    if (kept != std::string_view::npos) {
      const std::size_t end = text.find('\n', kept + 1);
      out += text.substr(kept, end == std::string_view::npos ? std::string_view::npos : end - kept);
      return out;
    }
  }
  static const ToolCallReading kUnknownCall;
  const RunVerdict verdict = judge_run(call != nullptr ? *call : kUnknownCall, outcome, source, false, limits.max_line_bytes);
  if (verdict.failed) {
    std::vector<std::string> lines = verdict.lines;
    if (lines.size() > limits.max_lines) lines.resize(limits.max_lines);
    // A failing run's tally says how much failed.
    if (outcome.tally_failed && lines.size() < limits.max_lines && std::find(lines.begin(), lines.end(), outcome.tally) == lines.end())
      lines.push_back(outcome.tally);
    out += "\n";
    out += kClearedErrorsHeading;
    for (const auto& line : lines) {
      out += "\n";
      out += line;
    }
    return out;
  }
  if (!verdict.succeeded) return out;
  // A passing run keeps its outcome: its tally; a command whose call is known, the line it ended with.
  std::string line = outcome.tally;
  if (line.empty() && call != nullptr && !call->read_only && call->kind != CallKind::Change) line = outcome.last_line;
  if (line.empty()) return out;
  out += "\n";
  out += kClearedOutcomePrefix;
  out += clipped_line(line, limits.max_line_bytes);
  return out;
}

}  // namespace

std::string cleared_tool_result(std::string_view text, std::string_view id, const ErrorLineLimits& limits) {
  return placeholder(text, id, nullptr, limits);
}

std::string cleared_tool_result(std::string_view text, std::string_view id, std::string_view tool, std::string_view args_json,
                                const ErrorLineLimits& limits) {
  const ToolCallReading call = read_tool_call(tool, args_json);
  return placeholder(text, id, &call, limits);
}

bool is_cleared_tool_result(std::string_view text) noexcept { return text.starts_with(kClearedResultPrefix); }

std::string_view kept_error_text(std::string_view text) noexcept {
  if (!is_cleared_tool_result(text)) return text;
  const std::size_t heading = text.find(kClearedErrorsHeading);
  if (heading == std::string_view::npos) return {};
  const std::size_t start = heading + kClearedErrorsHeading.size();
  return start < text.size() && text[start] == '\n' ? text.substr(start + 1) : text.substr(start);
}

}  // namespace ctxwin
