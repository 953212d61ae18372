#include "ctxwin/compaction/tool_outcome.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>

namespace ctxwin {

namespace {

bool is_alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

bool starts_with_ci(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (lower(text[i]) != lower(prefix[i])) return false;
  }
  return true;
}

std::size_t find_ci(std::string_view text, std::string_view needle, std::size_t from = 0) {
  if (needle.size() > text.size()) return std::string_view::npos;
  for (std::size_t i = from; i + needle.size() <= text.size(); ++i) {
    if (starts_with_ci(text.substr(i), needle)) return i;
  }
  return std::string_view::npos;
}

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

// The marks test runners put before a failing test: × (U+00D7), ✕ (U+2715), ✖ (U+2716), ✗ (U+2717).
constexpr std::array<std::string_view, 4> kCrossMarks = {"\xC3\x97", "\xE2\x9C\x95", "\xE2\x9C\x96", "\xE2\x9C\x97"};
// ...and before a passing one: ✓ (U+2713), ✔ (U+2714), √ (U+221A).
constexpr std::array<std::string_view, 3> kCheckMarks = {"\xE2\x9C\x93", "\xE2\x9C\x94", "\xE2\x88\x9A"};

std::string_view after_mark(std::string_view body, const auto& marks) {
  for (std::string_view mark : marks) {
    if (body.starts_with(mark)) return trim(body.substr(mark.size()));
  }
  return {};
}

// Skips the decoration some tools put before a line: spaces, bullets, brackets, box drawing.
std::string_view undecorated(std::string_view line) {
  std::size_t lead = 0;
  while (lead < line.size() && std::string_view(" \t*-!>[#|").find(line[lead]) != std::string_view::npos) ++lead;
  return line.substr(lead);
}

// The number after "exit code", "exit status", "exited with code", "exit_code" in `line`, if any.
std::optional<long> exit_code_in(std::string_view line) {
  for (std::string_view phrase : {"exit code", "exit status", "exited with code", "exit_code", "exitcode", "exited with status"}) {
    std::size_t at = find_ci(line, phrase);
    if (at == std::string_view::npos) continue;
    std::size_t i = at + phrase.size();
    while (i < line.size() && (line[i] == ' ' || line[i] == ':' || line[i] == '=' || line[i] == '\t')) ++i;
    bool negative = i < line.size() && line[i] == '-';
    if (negative) ++i;
    if (i >= line.size() || !is_digit(line[i])) continue;
    long value = 0;
    for (; i < line.size() && is_digit(line[i]) && value < 100000; ++i) value = value * 10 + (line[i] - '0');
    return negative ? -value : value;
  }
  return std::nullopt;
}

// Trailing timings and reasons off a test name: "name (3 ms)", "name [12ms]", "name - AssertionError".
std::string clean_test_name(std::string_view name) {
  name = trim(name);
  const std::size_t reason = name.find(" - ");
  if (reason != std::string_view::npos) name = trim(name.substr(0, reason));
  while (!name.empty() && (name.back() == ')' || name.back() == ']')) {
    const char open = name.back() == ')' ? '(' : '[';
    const std::size_t start = name.rfind(open);
    if (start == std::string_view::npos) break;
    const std::string_view inside = name.substr(start + 1, name.size() - start - 2);
    const bool timing = !inside.empty() && is_digit(inside.front()) &&
                        std::all_of(inside.begin(), inside.end(), [](char c) { return is_digit(c) || c == '.' || c == ' ' || is_alpha(c); });
    if (!timing) break;
    name = trim(name.substr(0, start));
  }
  // The test's own name: the last part of "file > suite > name" (vitest) or "suite › name" (jest).
  for (std::string_view separator : {" > ", " \xE2\x80\xBA "}) {
    const std::size_t at = name.rfind(separator);
    if (at != std::string_view::npos) name = name.substr(at + separator.size());
  }
  return std::string(trim(name));
}

bool is_errno_code(std::string_view line) {
  static constexpr std::array<std::string_view, 16> kCodes = {"ENOENT", "ENOSPC", "EACCES", "EPERM", "ECONNREFUSED", "ETIMEDOUT",
                                                              "ECONNRESET", "EADDRINUSE", "EEXIST", "EISDIR", "ENOTDIR", "EMFILE",
                                                              "ENOMEM", "EPIPE", "EHOSTUNREACH", "EROFS"};
  for (std::string_view code : kCodes) {
    std::size_t at = line.find(code);
    while (at != std::string_view::npos) {
      const bool before = at == 0 || !is_alpha(line[at - 1]);
      const bool after = at + code.size() >= line.size() || !is_alpha(line[at + code.size()]);
      if (before && after) return true;
      at = line.find(code, at + 1);
    }
  }
  return false;
}

std::string clipped(std::string_view line, std::size_t max_bytes) {
  if (line.size() <= max_bytes) return std::string(line);
  std::size_t at = max_bytes;
  while (at > 0 && (static_cast<unsigned char>(line[at]) & 0xC0) == 0x80) --at;
  return std::string(line.substr(0, at)) + "...";
}

// An assertion's detail after an error: "Expected: 3", "Received: 4", "- expected", "+ received".
bool is_assertion_detail(std::string_view line) {
  const std::string_view body = trim(line);
  return starts_with_ci(body, "expected") || starts_with_ci(body, "received") || starts_with_ci(body, "actual") ||
         body.starts_with("- Expected") || body.starts_with("+ Received");
}

bool tally_counts_failures(std::string_view line) {
  // "3 failed", "2 errors", "1 problem", "failed: 2": a count above zero next to a failure word.
  for (std::string_view word : {"failed", "failing", "failure", "error", "problem"}) {
    std::size_t at = find_ci(line, word);
    while (at != std::string_view::npos) {
      std::size_t i = at;
      while (i > 0 && line[i - 1] == ' ') --i;
      std::size_t digits_end = i;
      while (i > 0 && is_digit(line[i - 1])) --i;
      if (i < digits_end && std::strtol(std::string(line.substr(i, digits_end - i)).c_str(), nullptr, 10) > 0) return true;
      at = find_ci(line, word, at + 1);
    }
  }
  return false;
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    if (end == text.size()) break;
    start = end + 1;
  }
  return lines;
}

}  // namespace

bool reports_error(std::string_view line) {
  const std::string_view body = undecorated(line);
  // A failing test's mark, and TAP's "not ok".
  if (!after_mark(trim(line), kCrossMarks).empty() || starts_with_ci(body, "not ok ")) return true;
  // 1. A line that opens with a failure word ("Error: ...", "FAILED test/x", "Traceback (...)").
  static constexpr std::array<std::string_view, 10> kOpeners = {"error", "fatal", "panic", "traceback", "failed",
                                                                "fail", "failure", "exception", "denied", "segmentation fault"};
  for (std::string_view word : kOpeners) {
    if (starts_with_ci(body, word) && (body.size() == word.size() || !is_alpha(body[word.size()]))) return true;
  }
  // 2. "...Error: ...", "TypeScript error TS2304: ...", "...Exception: ..." - but not code such as
  //    `throw new Error("...")`: the colon must come before any parenthesis or quote.
  for (std::size_t i = 0; i < line.size(); ++i) {
    const std::size_t n = starts_with_ci(line.substr(i), "error") ? 5 : starts_with_ci(line.substr(i), "exception") ? 9 : 0;
    if (n == 0) continue;
    const std::size_t after = i + n;
    if (after < line.size() && is_alpha(line[after])) continue;  // "errors", "errorCode"
    for (std::size_t k = after; k < line.size() && k < after + 40; ++k) {
      if (line[k] == '(' || line[k] == '"' || line[k] == '\'') break;
      if (line[k] == ':') return true;
    }
  }
  // 3. A runner's verdict at the end of the line: "test a::b ... FAILED", "tests/x.py::t FAILED".
  const std::string_view end = trim(line);
  if (end.ends_with(" FAILED") || end.ends_with(" FAIL")) return true;
  // 4. System error codes, and a non-zero exit code.
  if (is_errno_code(line)) return true;
  const auto code = exit_code_in(line);
  return code.has_value() && *code != 0;
}

bool is_stack_frame(std::string_view line) {
  const auto first = line.find_first_not_of(" \t");
  if (first == std::string_view::npos || first == 0) return false;
  const std::string_view rest = line.substr(first);
  return rest.starts_with("at ") || rest.starts_with("File \"") || rest.starts_with("#");
}

bool is_tally(std::string_view line) {
  if (std::none_of(line.begin(), line.end(), is_digit)) return false;
  for (std::string_view word : {"pass", "fail", "error", "problem", "warning", "tests", " ok", "succeeded", "skipped"}) {
    if (find_ci(line, word) != std::string_view::npos) return true;
  }
  return false;
}

TestMark test_mark(std::string_view line) {
  const std::string_view t = trim(line);
  if (t.empty()) return {};
  if (auto name = after_mark(t, kCheckMarks); !name.empty()) return {clean_test_name(name), true};
  if (auto name = after_mark(t, kCrossMarks); !name.empty()) {
    // "✖ 3 problems (3 errors, 0 warnings)" is a linter's tally, not a test.
    if (is_digit(name.front()) && is_tally(name)) return {};
    return {clean_test_name(name), false};
  }
  if (t.starts_with("\xE2\x97\x8F ")) return {clean_test_name(t.substr(4)), false};  // jest: "● suite › name"
  // "--- FAIL: TestA (0.01s)" / "--- PASS: TestA (0.00s)" (go test).
  for (auto [prefix, passed] : {std::pair<std::string_view, bool>{"--- FAIL: ", false}, {"--- PASS: ", true}}) {
    if (t.starts_with(prefix)) return {clean_test_name(t.substr(prefix.size())), passed};
  }
  // "test a::b ... ok" / "test a::b ... FAILED" (cargo test).
  if (t.starts_with("test ")) {
    for (auto [suffix, passed] : {std::pair<std::string_view, bool>{" ... ok", true}, {" ... FAILED", false}}) {
      if (t.ends_with(suffix)) return {clean_test_name(t.substr(5, t.size() - 5 - suffix.size())), passed};
    }
  }
  // "not ok 3 - name" / "ok 3 - name" (TAP).
  for (auto [prefix, passed] : {std::pair<std::string_view, bool>{"not ok ", false}, {"ok ", true}}) {
    if (t.starts_with(prefix)) {
      std::string_view rest = t.substr(prefix.size());
      const std::size_t dash = rest.find(" - ");
      if (dash != std::string_view::npos) return {clean_test_name(rest.substr(dash + 3)), passed};
    }
  }
  // "FAIL a.test.ts > suite > name", "FAILED tests/x.py::t - reason", "PASS a.test.ts", "PASSED tests/x.py::t".
  for (auto [prefix, passed] : {std::pair<std::string_view, bool>{"FAILED ", false}, {"FAIL ", false}, {"PASSED ", true}, {"PASS ", true}}) {
    if (t.starts_with(prefix)) return {clean_test_name(t.substr(prefix.size())), passed};
  }
  // "tests/x.py::test_a PASSED" / "... FAILED" (pytest -v).
  if (t.find("::") != std::string_view::npos) {
    for (auto [suffix, passed] : {std::pair<std::string_view, bool>{" PASSED", true}, {" FAILED", false}}) {
      if (t.ends_with(suffix)) return {clean_test_name(t.substr(0, t.size() - suffix.size())), passed};
    }
  }
  return {};
}

ToolOutcome read_tool_outcome(std::string_view text, const ErrorLineLimits& limits) {
  ToolOutcome out;
  const std::vector<std::string_view> lines = lines_of(text);
  // The failing test whose failure block the lines are in ("FAIL a.test.ts > name", jest's
  // "● suite › name", go's "--- FAIL: TestA"): its errors, frames and assertion details are its own.
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::size_t block = kNone;  // an index into out.failed_tests
  std::size_t details_left = 0;  // frames or assertion details still kept after an error line
  std::vector<std::string_view> python_frames;  // a Python traceback's frames: the last ones matter
  bool in_traceback = false;
  std::size_t number = 0;  // the line's number in `text`, from 0
  auto note = [&](std::string_view line, std::size_t at) {
    if (out.error_lines.size() >= limits.max_lines) return;
    out.error_lines.push_back(clipped(line, limits.max_line_bytes));
    out.error_line_numbers.push_back(at);
  };
  auto keep = [&](std::string_view line, std::size_t at) {
    note(line, at);
    if (block == kNone) return;
    auto& reasons = out.failed_tests[block].lines;
    // The reasons replace the line that only marked the test.
    if (reasons.size() == 1 && !test_mark(reasons.front()).name.empty()) reasons.clear();
    if (reasons.size() < limits.max_lines) reasons.push_back(clipped(line, limits.max_line_bytes));
  };
  std::vector<std::size_t> frame_numbers;
  for (; number < lines.size(); ++number) {
    const std::string_view line = lines[number];
    const std::string_view t = trim(line);
    if (t.empty()) {
      details_left = 0;
      continue;
    }
    if (auto code = exit_code_in(t)) {
      out.exit_code = code;
      if (*code != 0) note(t, number);
      continue;
    }
    out.last_line = std::string(t);
    if (is_tally(t) && !reports_error(t)) {
      out.tally = std::string(t);
      out.tally_failed = tally_counts_failures(t);
      block = kNone;
      continue;
    }
    if (const TestMark mark = test_mark(t); !mark.name.empty()) {
      details_left = 0;
      if (mark.passed) {
        out.passed_tests.push_back(mark.name);
        block = kNone;
        continue;
      }
      auto it = std::find_if(out.failed_tests.begin(), out.failed_tests.end(), [&](const FailedTest& f) { return f.name == mark.name; });
      const bool known = it != out.failed_tests.end();
      if (!known) {
        out.failed_tests.push_back({mark.name, {}});
        it = out.failed_tests.end() - 1;
        note(t, number);
      }
      // A header opens the block of lines that say why; a list line ("× name (3 ms)") only marks it.
      const bool header = t.starts_with("FAIL") || t.starts_with("---") || t.starts_with("not ok") || t.starts_with("\xE2\x97\x8F");
      block = header ? static_cast<std::size_t>(it - out.failed_tests.begin()) : kNone;
      if (it->lines.empty()) it->lines.push_back(clipped(t, limits.max_line_bytes));
      continue;
    }
    if (starts_with_ci(undecorated(t), "traceback")) {
      in_traceback = true;
      python_frames.clear();
      frame_numbers.clear();
      continue;
    }
    if (in_traceback && is_stack_frame(line)) {
      python_frames.push_back(t);
      frame_numbers.push_back(number);
      continue;
    }
    if (reports_error(t)) {
      if (in_traceback) {
        // Python: the exception line, after the frames nearest to it.
        const std::size_t from = python_frames.size() > limits.frames_per_error ? python_frames.size() - limits.frames_per_error : 0;
        for (std::size_t i = from; i < python_frames.size(); ++i) keep(python_frames[i], frame_numbers[i]);
        in_traceback = false;
        python_frames.clear();
      }
      keep(t, number);
      details_left = limits.frames_per_error;
      continue;
    }
    if (in_traceback) continue;  // the source lines a Python frame quotes
    const bool detail = is_stack_frame(line) || is_assertion_detail(line);
    if (detail && (details_left > 0 || (block != kNone && out.failed_tests[block].lines.size() < limits.max_lines))) {
      keep(line, number);
      if (details_left > 0) --details_left;
      continue;
    }
    details_left = 0;
  }
  return out;
}

std::vector<std::string> error_lines(std::string_view text, const ErrorLineLimits& limits) {
  return read_tool_outcome(text, limits).error_lines;
}

}  // namespace ctxwin
