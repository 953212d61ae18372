#include "ctxwin/compaction/tool_outcome.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>

namespace ctxwin {

namespace {

bool is_alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident(char c) { return is_alpha(c) || is_digit(c) || c == '_'; }
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

// The gutter a reader puts before a file's lines: "  890\t", "890:", "890-" (nl, cat -n, grep -n),
// "path/x.py:890:" (grep -rn). What follows it is the file's text.
std::string_view without_gutter(std::string_view line) {
  std::string_view t = trim(line);
  std::size_t i = 0;
  // "path:" before the number (grep -rn), when it names a file.
  const std::size_t colon = t.find(':');
  if (colon != std::string_view::npos && colon > 0 && colon + 1 < t.size() && is_digit(t[colon + 1]) &&
      t.substr(0, colon).find_first_of(" \t") == std::string_view::npos && t.substr(0, colon).find('.') != std::string_view::npos) {
    i = colon + 1;
  }
  const std::size_t digits = i;
  while (i < t.size() && is_digit(t[i])) ++i;
  if (i == digits || i >= t.size() || (t[i] != '\t' && t[i] != ':' && t[i] != '-' && t[i] != ' ')) return t;
  return trim(t.substr(i + 1));
}

// A line of program text rather than output: its first word is a keyword that opens a statement.
bool is_code(std::string_view line) {
  const std::string_view t = without_gutter(line);
  std::size_t end = 0;
  while (end < t.size() && is_ident(t[end])) ++end;
  const std::string_view word = t.substr(0, end);
  static constexpr std::array<std::string_view, 24> kKeywords = {
      "except", "raise", "catch", "throw", "class", "def",   "if",  "elif", "else",     "return", "import", "from",
      "assert", "try",   "with",  "for",   "while", "const", "let", "var",  "function", "new",    "case",   "finally"};
  if (std::find(kKeywords.begin(), kKeywords.end(), word) == kKeywords.end()) return false;
  // "Assert failed" / "Class not found" are sentences: code words are lower case and followed by code.
  return end == t.size() || t[end] == ' ' || t[end] == '(' || t[end] == ':' || t[end] == '{';
}

// The number after "exit code", "exit status", "exited with code", "exit_code", "returncode" in
// `line`, if any.
std::optional<long> exit_code_in(std::string_view line) {
  for (std::string_view phrase :
       {"exit code", "exit status", "exited with code", "exit_code", "exitcode", "exited with status", "returncode", "return code"}) {
    std::size_t at = find_ci(line, phrase);
    if (at == std::string_view::npos) continue;
    std::size_t i = at + phrase.size();
    while (i < line.size() && (line[i] == ' ' || line[i] == ':' || line[i] == '=' || line[i] == '\t' || line[i] == '"' || line[i] == '>'))
      ++i;
    bool negative = i < line.size() && line[i] == '-';
    if (negative) ++i;
    if (i >= line.size() || !is_digit(line[i])) continue;
    long value = 0;
    for (; i < line.size() && is_digit(line[i]) && value < 100000; ++i) value = value * 10 + (line[i] - '0');
    return negative ? -value : value;
  }
  return std::nullopt;
}

// mini-swe-agent's `<returncode>1</returncode>`: the status of the whole command, which no later
// line of its output may change.
bool is_returncode_tag(std::string_view t) { return t.starts_with("<returncode>"); }

// `<output>`, `</output_tail>`: the tags an agent wraps a command's output in.
bool is_wrapper_tag(std::string_view t) {
  if (t.size() < 3 || t.front() != '<' || t.back() != '>') return false;
  std::size_t i = t[1] == '/' ? 2 : 1;
  if (i + 1 >= t.size()) return false;
  for (; i + 1 < t.size(); ++i) {
    if (!is_ident(t[i]) && t[i] != '-') return false;
  }
  return true;
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
    const std::string_view bare = trim(inside);
    const bool timing = !bare.empty() && is_digit(bare.front()) && std::all_of(bare.begin(), bare.end(), [](char c) {
      return is_digit(c) || c == '.' || c == ' ' || c == '%' || is_alpha(c);
    });
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
  static constexpr std::array<std::string_view, 16> kCodes = {
      "ENOENT", "ENOSPC", "EACCES",  "EPERM",  "ECONNREFUSED", "ETIMEDOUT", "ECONNRESET",   "EADDRINUSE",
      "EEXIST", "EISDIR", "ENOTDIR", "EMFILE", "ENOMEM",       "EPIPE",     "EHOSTUNREACH", "EROFS"};
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

// pytest's explanation lines in a failure: "E       assert 1 == 2", "E   KeyError: 'x'".
bool is_pytest_error(std::string_view line) { return line.size() > 3 && line[0] == 'E' && line[1] == ' ' && line[2] == ' '; }

bool tally_counts_failures(std::string_view line) {
  // "3 failed", "2 errors", "1 problem", "failed: 2", "failures=1": a count above zero next to a failure word.
  for (std::string_view word : {"failed", "failing", "failure", "error", "problem"}) {
    std::size_t at = find_ci(line, word);
    while (at != std::string_view::npos) {
      std::size_t i = at;
      while (i > 0 && line[i - 1] == ' ') --i;
      std::size_t digits_end = i;
      while (i > 0 && is_digit(line[i - 1])) --i;
      if (i < digits_end && std::strtol(std::string(line.substr(i, digits_end - i)).c_str(), nullptr, 10) > 0) return true;
      // "failures=1" (unittest), "Failures: 1" (Surefire)
      std::size_t after = at + word.size();
      while (after < line.size() && is_alpha(line[after])) ++after;
      if (after < line.size() && (line[after] == '=' || line[after] == ':')) {
        ++after;
        while (after < line.size() && line[after] == ' ') ++after;
        std::size_t digits = after;
        while (digits < line.size() && is_digit(line[digits])) ++digits;
        if (digits > after && std::strtol(std::string(line.substr(after, digits - after)).c_str(), nullptr, 10) > 0) return true;
      }
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

// unittest's "test_x (pkg.module.Case)" / "test_x (pkg.module.Case.test_x)".
bool is_unittest_name(std::string_view name) {
  const std::size_t open = name.find(" (");
  if (open == std::string_view::npos || open == 0 || !name.ends_with(')')) return false;
  for (std::size_t i = 0; i < open; ++i) {
    if (!is_ident(name[i])) return false;
  }
  for (std::size_t i = open + 2; i + 1 < name.size(); ++i) {
    if (!is_ident(name[i]) && name[i] != '.') return false;
  }
  return true;
}

// "_____ test_x _____", "_____ TestK.test_x[a-1] _____", "____ ERROR at setup of test_x ____" (pytest).
std::string pytest_header(std::string_view t) {
  if (!t.starts_with("___") || !t.ends_with("___")) return {};
  std::string_view inner = t;
  while (!inner.empty() && inner.front() == '_') inner.remove_prefix(1);
  while (!inner.empty() && inner.back() == '_') inner.remove_suffix(1);
  inner = trim(inner);
  for (std::string_view prefix : {"ERROR at setup of ", "ERROR at teardown of ", "ERROR collecting "}) {
    if (inner.starts_with(prefix)) inner.remove_prefix(prefix.size());
  }
  if (inner.empty() || inner.find(' ') != std::string_view::npos) return {};
  return std::string(inner);
}

// "  1) does the thing" (mocha, rspec): a failure's number and title.
std::string_view numbered_failure(std::string_view t) {
  std::size_t i = 0;
  while (i < t.size() && is_digit(t[i])) ++i;
  if (i == 0 || i + 2 >= t.size() || t[i] != ')' || t[i + 1] != ' ') return {};
  return trim(t.substr(i + 2));
}

}  // namespace

bool reports_error(std::string_view line) {
  const std::string_view body = undecorated(line);
  // A failing test's mark, and TAP's "not ok".
  if (!after_mark(trim(line), kCrossMarks).empty() || starts_with_ci(body, "not ok ")) return true;
  if (is_pytest_error(line)) return true;
  if (is_code(line)) return false;
  // 1. A line that opens with a failure word ("Error: ...", "FAILED test/x", "Traceback (...)") -
  //    not code such as `error = None` or `failure.reason`.
  static constexpr std::array<std::string_view, 10> kOpeners = {"error", "fatal",   "panic",     "traceback", "failed",
                                                                "fail",  "failure", "exception", "denied",    "segmentation fault"};
  for (std::string_view word : kOpeners) {
    if (!starts_with_ci(body, word) || (body.size() > word.size() && is_ident(body[word.size()]))) continue;
    std::size_t next = word.size();
    while (next < body.size() && body[next] == ' ') ++next;
    // `error = x`, `error.code`, `error(x)`, `failure, ok`: an assignment, an attribute, a call, a list.
    const bool adjacent = next == word.size();
    const bool code_follows =
        next < body.size() && (body[next] == '=' || (adjacent && std::string_view(".,)(").find(body[next]) != std::string_view::npos));
    if (!code_follows) return true;
  }
  // 2. "...Error: message", "TypeScript error TS2304: ...", "...Exception: ..." - but not code such
  //    as `throw new Error("...")` (a parenthesis or a quote before the colon), `except KeyError:`
  //    (nothing after the colon) or `msg = "Error: x"` (inside a string).
  for (std::size_t i = 0; i < line.size(); ++i) {
    const std::size_t n = starts_with_ci(line.substr(i), "error") ? 5 : starts_with_ci(line.substr(i), "exception") ? 9 : 0;
    if (n == 0) continue;
    const std::size_t after = i + n;
    if (after < line.size() && is_alpha(line[after])) continue;  // "errors", "errorCode"
    std::size_t quotes = 0;
    for (std::size_t q = 0; q < i; ++q) quotes += line[q] == '"' || line[q] == '`' ? 1 : 0;
    if (quotes % 2 == 1) continue;
    for (std::size_t k = after; k < line.size() && k < after + 40; ++k) {
      if (line[k] == '(' || line[k] == '"' || line[k] == '\'') break;
      if (line[k] == ':') {
        if (!trim(line.substr(k + 1)).empty()) return true;
        break;
      }
    }
  }
  // 3. A runner's verdict at the end of the line: "test a::b ... FAILED", "tests/x.py::t FAILED",
  //    Maven's "BUILD FAILURE" and Surefire's "<<< FAILURE!".
  const std::string_view end = trim(line);
  if (end.ends_with(" FAILED") || end.ends_with(" FAIL") || end.ends_with(" ERROR") || end.ends_with(" FAILURE") ||
      line.find("<<< FAILURE!") != std::string_view::npos || line.find("<<< ERROR!") != std::string_view::npos) {
    return true;
  }
  // The shell's and editors' own reports: "bash: foo: command not found", "No such file or
  // directory", "syntax error near unexpected token", "Your proposed edit has introduced new syntax error(s)".
  for (std::string_view phrase : {"command not found", "no such file or directory", "syntax error", "permission denied"}) {
    if (find_ci(line, phrase) != std::string_view::npos) return true;
  }
  // 4. A thread that panicked (Rust), system error codes, and a non-zero exit code.
  if (line.find("panicked at") != std::string_view::npos) return true;
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
  for (std::string_view word : {"pass", "fail", "error", "problem", "warning", "tests", "ok", "succeeded", "skipped", "examples"}) {
    // A word of the line ("2 failed", "errors=1"), not part of a name or a path ("tests/auth_tests/x.py", "okay").
    for (std::size_t at = find_ci(line, word); at != std::string_view::npos; at = find_ci(line, word, at + 1)) {
      if (at > 0 && (is_ident(line[at - 1]) || line[at - 1] == '/' || line[at - 1] == '.')) continue;
      std::size_t end = at + word.size();
      if (word == "ok" && end < line.size() && is_alpha(line[end])) continue;
      while (end < line.size() && is_alpha(line[end])) ++end;
      if (end < line.size() &&
          (line[end] == '/' || line[end] == '_' || (line[end] == '.' && end + 1 < line.size() && is_alpha(line[end + 1]))))
        continue;
      return true;
    }
  }
  return false;
}

std::string test_key(std::string_view name) {
  std::string_view n = trim(name);
  // unittest: "test_x (pkg.mod.Case)" / "test_x (pkg.mod.Case.test_x)" -> "Case::test_x".
  if (is_unittest_name(n)) {
    const std::size_t open = n.find(" (");
    const std::string_view method = n.substr(0, open);
    std::string_view path = n.substr(open + 2, n.size() - open - 3);
    if (path.ends_with(method) && path.size() > method.size() && path[path.size() - method.size() - 1] == '.')
      path.remove_suffix(method.size() + 1);
    const std::size_t dot = path.rfind('.');
    return std::string(dot == std::string_view::npos ? path : path.substr(dot + 1)) + "::" + std::string(method);
  }
  // pytest: "tests/a.py::Case::test_x[p]" -> "Case::test_x[p]"; "tests/a.py::test_x" -> "test_x".
  if (n.find("::") != std::string_view::npos) {
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    while (true) {
      const std::size_t at = n.find("::", start);
      parts.push_back(n.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
      if (at == std::string_view::npos) break;
      start = at + 2;
    }
    // The first part is a file when it has a separator or an extension; cargo's "mod::tests::name" keeps its last part.
    const bool file = parts.front().find('/') != std::string_view::npos || parts.front().find(".py") != std::string_view::npos;
    if (file && parts.size() >= 3) return std::string(parts[parts.size() - 2]) + "::" + std::string(parts.back());
    return std::string(parts.back());
  }
  // pytest's header "Case.test_x".
  const std::size_t dot = n.find('.');
  if (dot != std::string_view::npos && dot > 0 && n.find('.', dot + 1) == std::string_view::npos &&
      std::all_of(n.begin(), n.end(), [](char c) { return is_ident(c) || c == '.' || c == '[' || c == ']' || c == '-'; }) &&
      n.substr(dot + 1).starts_with("test")) {
    return std::string(n.substr(0, dot)) + "::" + std::string(n.substr(dot + 1));
  }
  return std::string(n);
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
  // "FAIL: test_x (pkg.Case)" / "ERROR: test_x (pkg.Case)" (unittest's failure headers).
  for (std::string_view prefix : {"FAIL: ", "ERROR: "}) {
    if (t.starts_with(prefix) && is_unittest_name(trim(t.substr(prefix.size()))))
      return {std::string(trim(t.substr(prefix.size()))), false};
  }
  // "name ... ok" / "... FAIL" / "... ERROR" (unittest -v, Django's runner), "test a::b ... FAILED" (cargo test).
  if (const std::size_t dots = t.find(" ... "); dots != std::string_view::npos) {
    std::string_view name = t.substr(0, dots);
    const std::string_view verdict = trim(t.substr(dots + 5));
    if (name.starts_with("test ")) name.remove_prefix(5);
    if (verdict == "ok" || verdict == "OK") return {clean_test_name(name), true};
    if (verdict == "FAIL" || verdict == "FAILED" || verdict == "ERROR") return {clean_test_name(name), false};
    return {};
  }
  // "not ok 3 - name" / "ok 3 - name" (TAP).
  for (auto [prefix, passed] : {std::pair<std::string_view, bool>{"not ok ", false}, {"ok ", true}}) {
    if (t.starts_with(prefix)) {
      std::string_view rest = t.substr(prefix.size());
      const std::size_t dash = rest.find(" - ");
      if (dash != std::string_view::npos) return {clean_test_name(rest.substr(dash + 3)), passed};
    }
  }
  // "testFoo(com.x.FooTest)  Time elapsed: 0.01 s  <<< FAILURE!" (Maven Surefire), with "[ERROR] " before it.
  if (const std::size_t verdict = t.find("<<< "); verdict != std::string_view::npos && t.find("Time elapsed") != std::string_view::npos) {
    std::string_view name = t.substr(0, t.find("Time elapsed"));
    if (name.starts_with("[ERROR] ")) name.remove_prefix(8);
    name = trim(name);
    if (!name.empty() && name.find(' ') == std::string_view::npos) return {std::string(name), false};
  }
  // "rspec ./spec/user_spec.rb:12 # User validates email" (rspec's list of failed examples).
  if (t.starts_with("rspec ./") || t.starts_with("rspec spec/")) {
    const std::size_t hash = t.find(" # ");
    if (hash != std::string_view::npos) return {std::string(trim(t.substr(hash + 3))), false};
  }
  // "FAIL a.test.ts > suite > name", "FAILED tests/x.py::t - reason", "PASS a.test.ts", "PASSED tests/x.py::t",
  // "ERROR tests/x.py::t - reason" - but not unittest's verdict "FAILED (failures=1, errors=2)".
  for (auto [prefix, passed] :
       {std::pair<std::string_view, bool>{"FAILED ", false}, {"FAIL ", false}, {"PASSED ", true}, {"PASS ", true}, {"ERROR ", false}}) {
    if (!t.starts_with(prefix)) continue;
    const std::string_view rest = trim(t.substr(prefix.size()));
    if (rest.empty() || rest.front() == '(') return {};
    if (prefix == "ERROR " && rest.find("::") == std::string_view::npos) return {};
    return {clean_test_name(rest), passed};
  }
  // "tests/x.py::test_a PASSED [ 50%]" / "... FAILED" (pytest -v).
  if (t.find("::") != std::string_view::npos) {
    std::string_view body = t;
    if (body.ends_with("%]")) {
      const std::size_t open = body.rfind('[');
      if (open != std::string_view::npos) body = trim(body.substr(0, open));
    }
    for (auto [suffix, passed] : {std::pair<std::string_view, bool>{" PASSED", true}, {" FAILED", false}, {" ERROR", false}}) {
      if (body.ends_with(suffix)) return {clean_test_name(body.substr(0, body.size() - suffix.size())), passed};
    }
  }
  return {};
}

namespace {

// mini-swe-agent's notice for a command its shell killed: "The last command <command>cmd</command>
// timed out and has been killed." then the output so far. The notice, as one line, or empty.
std::string timeout_notice(std::string_view text) {
  constexpr std::string_view kOpen = "The last command <command>";
  constexpr std::string_view kKilled = "</command> timed out and has been killed.";
  const std::size_t start = text.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos || text.substr(start, kOpen.size()) != kOpen) return {};
  const std::size_t end = text.find(kKilled, start);
  if (end == std::string_view::npos) return {};
  std::string notice(text.substr(start, end + kKilled.size() - start));
  std::replace(notice.begin(), notice.end(), '\n', ' ');  // a command of several lines, on one
  return notice;
}

}  // namespace

ToolOutcome read_tool_outcome(std::string_view text, const ErrorLineLimits& limits) {
  ToolOutcome out;
  if (const std::string notice = timeout_notice(text); !notice.empty()) {
    out.timed_out = true;
    out.error_lines.push_back(clipped(notice, limits.max_line_bytes));
    out.error_line_numbers.push_back(0);
  }
  const std::vector<std::string_view> lines = lines_of(text);
  // mocha and rspec number their failures ("  1) does the thing"): read so only where their tally says they ran.
  bool numbered_failures = false;
  for (std::string_view line : lines) {
    const std::string_view t = trim(line);
    if ((t.ends_with(" failing") || t.find(" examples, ") != std::string_view::npos || t.find(" example, ") != std::string_view::npos) &&
        !t.empty() && is_digit(t.front())) {
      numbered_failures = true;
      break;
    }
  }
  // The failing test whose failure block the lines are in ("FAIL a.test.ts > name", jest's
  // "● suite › name", go's "--- FAIL: TestA", unittest's "FAIL: test_x (...)", pytest's "___ test_x ___"):
  // its errors, frames and assertion details are its own.
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::size_t block = kNone;                    // an index into out.failed_tests
  std::size_t details_left = 0;                 // frames or assertion details still kept after an error line
  std::vector<std::string_view> python_frames;  // a Python traceback's frames: the last ones matter
  bool in_traceback = false;
  // Lines of output after the newest traceback's exception line (none seen: more than any bound).
  constexpr std::size_t kTracebackTail = 5;
  std::size_t after_traceback = kTracebackTail + 1;
  bool status_locked = false;  // a <returncode> tag said the command's status
  std::size_t returncode_line = 0;
  std::size_t number = 0;  // the line's number in `text`, from 0
  auto note = [&](std::string_view line, std::size_t at) {
    if (out.error_lines.size() >= limits.max_lines) return;
    out.error_lines.push_back(clipped(line, limits.max_line_bytes));
    out.error_line_numbers.push_back(at);
  };
  // Per failing test: its lines are still only the line that marked it.
  std::vector<bool> only_marked;
  auto keep = [&](std::string_view line, std::size_t at) {
    note(line, at);
    if (block == kNone) return;
    auto& reasons = out.failed_tests[block].lines;
    // The reasons replace the line that only marked the test.
    if (only_marked[block]) {
      reasons.clear();
      only_marked[block] = false;
    }
    if (reasons.size() < limits.max_lines) reasons.push_back(clipped(line, limits.max_line_bytes));
  };
  // Per failing test: whether a line that reports it has been noted (a pytest section header is not
  // one: the short summary's "FAILED path::name - reason" that comes later is).
  std::vector<bool> reported;
  // `section`: pytest's "____ name ____", which opens its failure's lines but reports nothing itself.
  auto failing_test = [&](std::string name, std::string_view t, bool header, bool section = false) {
    const std::string key = test_key(name);
    auto it = std::find_if(out.failed_tests.begin(), out.failed_tests.end(), [&](const FailedTest& f) { return test_key(f.name) == key; });
    if (it == out.failed_tests.end()) {
      out.failed_tests.push_back({std::move(name), {}});
      only_marked.push_back(false);
      reported.push_back(false);
      it = out.failed_tests.end() - 1;
    }
    const auto index = static_cast<std::size_t>(it - out.failed_tests.begin());
    block = header ? index : kNone;
    if (section) return;
    if (!reported[index]) {
      note(t, number);
      reported[index] = true;
    }
    const std::string line = clipped(t, limits.max_line_bytes);
    if (it->lines.empty()) {
      it->lines.push_back(line);
      only_marked[index] = true;
    } else if (t.find(" - ") != std::string_view::npos && std::find(it->lines.begin(), it->lines.end(), line) == it->lines.end()) {
      // A runner's line that names the test and says why ("FAILED tests/a.py::test_x - AssertionError:
      // ..."): the first of its lines, in place of one that only marked it.
      if (only_marked[index] || !test_mark(it->lines.front()).name.empty())
        it->lines.front() = line;
      else
        it->lines.insert(it->lines.begin(), line);
      only_marked[index] = false;
    }
  };
  std::vector<std::size_t> frame_numbers;
  for (; number < lines.size(); ++number) {
    const std::string_view line = lines[number];
    const std::string_view t = trim(line);
    if (t.empty()) {
      details_left = 0;
      continue;
    }
    if (is_returncode_tag(t)) {
      if (auto code = exit_code_in(t)) {
        out.exit_code = code;
        status_locked = true;
        returncode_line = number;
      }
      continue;
    }
    if (is_wrapper_tag(t)) continue;
    ++after_traceback;
    if (auto code = exit_code_in(t); code.has_value() && t.size() < 80) {
      if (!status_locked) out.exit_code = code;
      if (*code != 0) note(t, number);
      continue;
    }
    if (in_traceback && is_stack_frame(line)) {
      python_frames.push_back(t);
      frame_numbers.push_back(number);
      continue;
    }
    out.last_line = std::string(t);
    // unittest's verdict after "Ran 12 tests in 0.3s": "OK", "OK (skipped=1)", "FAILED (failures=1, errors=2)"
    // (a failing one even where the output lost its "Ran" line).
    const bool unittest_verdict = t == "OK" || t.starts_with("OK (") || (t.starts_with("FAILED (") && t.ends_with(")"));
    if (unittest_verdict && (out.tally.starts_with("Ran ") || t.starts_with("FAILED"))) {
      out.tally = out.tally.starts_with("Ran ") ? out.tally + "; " + std::string(t) : std::string(t);
      out.tally_failed = t.starts_with("FAILED");
      if (out.tally_failed) note(t, number);
      block = kNone;
      continue;
    }
    if (is_tally(t) && !reports_error(t) && test_mark(t).name.empty()) {
      // As printed, "===== 2 failed, 10 passed in 1.2s =====" with its rule: the line a reader finds.
      out.tally = std::string(t);
      out.tally_failed = tally_counts_failures(t);
      block = kNone;
      continue;
    }
    if (const std::string header = pytest_header(t); !header.empty()) {
      details_left = 0;
      failing_test(header, t, true, true);
      continue;
    }
    if (numbered_failures) {
      if (const std::string_view title = numbered_failure(t); !title.empty()) {
        details_left = 0;
        // The epilogue's "1) Suite" followed by "   does the thing:" names the test on its second line.
        std::string name(title);
        if (number + 1 < lines.size()) {
          const std::string_view next = trim(lines[number + 1]);
          if (next.ends_with(':') && lines[number + 1].find_first_not_of(" ") > line.find_first_not_of(" ")) {
            name = std::string(next.substr(0, next.size() - 1));
            ++number;
          }
        }
        failing_test(std::move(name), t, true);
        continue;
      }
    }
    if (const TestMark mark = test_mark(t); !mark.name.empty()) {
      details_left = 0;
      if (mark.passed) {
        out.passed_tests.push_back(mark.name);
        block = kNone;
        continue;
      }
      // A header opens the block of lines that say why; a list line ("× name (3 ms)") only marks it.
      const bool header = t.starts_with("FAIL") || t.starts_with("ERROR:") || t.starts_with("---") || t.starts_with("not ok") ||
                          t.starts_with("\xE2\x97\x8F");
      failing_test(mark.name, t, header);
      continue;
    }
    if (starts_with_ci(undecorated(t), "traceback")) {
      in_traceback = true;
      python_frames.clear();
      frame_numbers.clear();
      continue;
    }
    if (reports_error(t) || is_pytest_error(line)) {
      if (in_traceback) {
        // Python: the exception line, after the frames nearest to it.
        const std::size_t from = python_frames.size() > limits.frames_per_error ? python_frames.size() - limits.frames_per_error : 0;
        for (std::size_t i = from; i < python_frames.size(); ++i) keep(python_frames[i], frame_numbers[i]);
        in_traceback = false;
        python_frames.clear();
        after_traceback = 0;
      }
      keep(is_pytest_error(line) ? std::string_view(line) : t, number);
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
  out.ends_in_traceback = after_traceback <= kTracebackTail;
  // The tag comes before the output it is the status of: its line goes after the failure lines.
  if (status_locked && *out.exit_code != 0) note("exit code " + std::to_string(*out.exit_code), returncode_line);
  return out;
}

std::optional<long> exit_status_in(std::string_view line) { return exit_code_in(line); }

std::vector<std::string> error_lines(std::string_view text, const ErrorLineLimits& limits) {
  return read_tool_outcome(text, limits).error_lines;
}

}  // namespace ctxwin
