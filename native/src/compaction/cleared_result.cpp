#include "ctxwin/compaction/cleared_result.hpp"

#include <cstdio>
#include <vector>

namespace ctxwin {

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

std::string cleared_tool_result(std::string_view text, std::string_view id, const ErrorLineLimits& limits) {
  const ToolOutcome outcome = read_tool_outcome(kept_error_text(text), limits);
  std::string out(kClearedResultPrefix);
  out += describe_size(text.size());
  if (!id.empty()) {
    out += ", id ";
    out += id;
  }
  out += "]";
  std::vector<std::string> lines = outcome.error_lines;
  // A failing run's tally says how much failed.
  if (outcome.tally_failed && lines.size() < limits.max_lines) lines.push_back(outcome.tally);
  if (lines.empty()) return out;
  out += "\n";
  out += kClearedErrorsHeading;
  for (const auto& line : lines) {
    out += "\n";
    out += line;
  }
  return out;
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
