#include "ctxwin/compaction/problem_ledger.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>

#include "ctxwin/compaction/cleared_result.hpp"
#include "ctxwin/compaction/collapsed_text.hpp"
#include "ctxwin/compaction/run_verdict.hpp"
#include "ctxwin/compaction/tool_call.hpp"
#include "ctxwin/error.hpp"

namespace ctxwin {

namespace {

using nlohmann::json;

json problem_json(const Problem& p) {
  json out = {{"check", p.check}, {"label", p.label}, {"id", p.id}, {"lines", p.lines}, {"outcome", p.outcome}, {"seen", p.seen}};
  if (!p.test.empty()) out["test"] = p.test;
  if (!p.command.empty()) out["command"] = p.command;
  if (p.resolved) out["resolved"] = {{"id", p.resolved_by}, {"line", p.resolution}};
  return out;
}

[[noreturn]] void bad(const std::string& path, const std::string& expected) {
  throw Error::type(ErrorCode::InvalidArgument, "record" + path + " must be " + expected);
}

std::string string_field(const json& object, const char* key, const std::string& path, bool required) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) {
    if (required) bad(path + "." + key, "a string");
    return {};
  }
  if (!it->is_string()) bad(path + "." + key, "a string");
  return it->get<std::string>();
}

}  // namespace

std::string check_of_call(std::string_view tool, std::string_view args_json) { return read_tool_call(tool, args_json).check; }

std::string describe_call(std::string_view tool, std::string_view args_json, std::size_t max_code_points) {
  return read_tool_call(tool, args_json, max_code_points).label;
}

namespace {

// The file part of a test's name ("tests/a.py" of "tests/a.py::test_x"), or "".
std::string_view test_file(std::string_view name) {
  const std::size_t at = name.find("::");
  if (at == std::string_view::npos) return {};
  const std::string_view file = name.substr(0, at);
  return file.find('/') != std::string_view::npos || file.find('.') != std::string_view::npos ? file : std::string_view();
}

// The program of a check's command ("pytest" of "bash\npytest tests/a.py").
std::string_view program_of(std::string_view check) {
  const std::size_t nl = check.find('\n');
  std::string_view key = nl == std::string_view::npos ? check : check.substr(nl + 1);
  return key.substr(0, key.find(' '));
}

// A test run that passed as a whole covers a failing test when it ran that test's file (or the
// directory or module it is in), or ran the same runner over everything.
bool run_covers(const ToolCallReading& run, const std::string& run_check, const Problem& p) {
  if (p.test.empty()) return false;
  const std::string_view file = test_file(p.test);
  if (run.test_paths.empty()) {
    const std::string_view program = program_of(run_check);
    return !program.empty() && program == program_of(p.command) &&
           p.command.substr(0, p.command.find('\n')) == run_check.substr(0, run_check.find('\n'));
  }
  for (const auto& path : run.test_paths) {
    if (p.test.find(path) != std::string::npos) return true;
    if (!file.empty() && (file.starts_with(path) || path.starts_with(file))) return true;
    if (p.command.find(path) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

void ProblemLedger::observe(const ToolCallRef& call, std::string_view result, bool reported_error) {
  observed_through_ = std::string(call.id);
  const bool cleared = is_cleared_tool_result(result);
  const std::string_view text = kept_error_text(result);
  const ToolCallReading reading = read_tool_call(call.tool, call.args_json);
  const ToolOutcome outcome = read_tool_outcome(text, limits_.lines);
  RunVerdict verdict = judge_run(reading, outcome, text, reported_error, limits_.lines.max_line_bytes);
  // A cleared result keeps only its error lines: it shows no check passing.
  if (cleared && !verdict.failed) return;
  // A read shows content: neither a failure nor a success.
  if (!verdict.failed && !verdict.succeeded) return;
  const std::uint64_t seq = ++seen_;
  const std::string& command = reading.check;
  const std::string& label = reading.label;
  if (!cleared) {
    for (const auto& name : outcome.passed_tests) {
      const std::string key = test_key(name);
      for (auto& p : problems_) {
        if (!p.resolved && !p.test.empty() && test_key(p.test) == key) resolve(p, call.id, "passed: " + name);
      }
    }
    if (verdict.succeeded) {
      std::string line = !outcome.tally.empty() ? outcome.tally : outcome.last_line;
      if (outcome.exit_code.has_value() && line.find("exit code") == std::string::npos)
        line += (line.empty() ? "" : "; ") + std::string("exit code ") + std::to_string(*outcome.exit_code);
      for (auto& p : problems_) {
        if (p.resolved) continue;
        if (p.check == command || p.command == command || (verdict.tests_passed && run_covers(reading, command, p)))
          resolve(p, call.id, line.empty() ? "succeeded" : line);
      }
      std::stable_sort(problems_.begin(), problems_.end(), [](const Problem& a, const Problem& b) { return a.seen < b.seen; });
      bound();
      return;
    }
  }
  std::string how = outcome.tally_failed ? outcome.tally : std::string();
  if (outcome.exit_code.has_value() && *outcome.exit_code != 0)
    how += (how.empty() ? "" : "; ") + std::string("exit code ") + std::to_string(*outcome.exit_code);
  auto record = [&](const std::string& check, std::string test, const std::vector<std::string>& lines) {
    Problem& p = upsert(check);
    // A run that only marks the test as failing ("× name", a summary list) says less than the
    // run before it that said why: the reason stays.
    const bool only_marks = !test.empty() && std::all_of(lines.begin(), lines.end(), [&](const std::string& l) {
      return test_key(test_mark(l).name) == test_key(test);
    });
    if (!lines.empty() && !(only_marks && !p.lines.empty())) p.lines = lines;
    p.test = std::move(test);
    p.label = label;
    p.id = std::string(call.id);
    p.outcome = how;
    p.command = command;
    p.seen = seq;
  };
  if (!outcome.failed_tests.empty()) {
    for (const auto& failed : outcome.failed_tests) record("test\n" + test_key(failed.name), failed.name, failed.lines);
  } else {
    record(command, std::string(), verdict.lines);
  }
  std::stable_sort(problems_.begin(), problems_.end(), [](const Problem& a, const Problem& b) { return a.seen < b.seen; });
  bound();
}

Problem& ProblemLedger::upsert(const std::string& check) {
  for (auto& p : problems_) {
    if (p.check == check) {
      p.resolved = false;
      p.resolved_by.clear();
      p.resolution.clear();
      return p;
    }
  }
  Problem fresh;
  fresh.check = check;
  problems_.push_back(std::move(fresh));
  return problems_.back();
}

void ProblemLedger::resolve(Problem& problem, std::string_view by, std::string_view line) {
  problem.resolved = true;
  problem.resolved_by = std::string(by);
  problem.resolution = collapsed_text(line, limits_.lines.max_line_bytes);
  problem.seen = seen_;
}

void ProblemLedger::bound() {
  for (bool resolved : {false, true}) {
    const std::size_t max = resolved ? limits_.max_resolved : limits_.max_open;
    std::size_t count = static_cast<std::size_t>(
        std::count_if(problems_.begin(), problems_.end(), [&](const Problem& p) { return p.resolved == resolved; }));
    for (auto it = problems_.begin(); count > max && it != problems_.end();) {
      if (it->resolved == resolved) {
        it = problems_.erase(it);
        --count;
      } else {
        ++it;
      }
    }
  }
}

std::vector<const Problem*> ProblemLedger::open() const {
  std::vector<const Problem*> out;
  for (auto it = problems_.rbegin(); it != problems_.rend(); ++it) {
    if (!it->resolved) out.push_back(&*it);
  }
  return out;
}

std::vector<const Problem*> ProblemLedger::resolved() const {
  std::vector<const Problem*> out;
  for (auto it = problems_.rbegin(); it != problems_.rend(); ++it) {
    if (it->resolved) out.push_back(&*it);
  }
  return out;
}

std::string ProblemLedger::to_json() const {
  json list = json::array();
  for (const auto& p : problems_) list.push_back(problem_json(p));
  json out = {{"problems", std::move(list)}, {"seen", seen_}};
  if (!observed_through_.empty()) out["observedThrough"] = observed_through_;
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

ProblemLedger ProblemLedger::from_json(std::string_view text, LedgerLimits limits) {
  ProblemLedger ledger(limits);
  const json parsed = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_object()) bad("", "a JSON object");
  auto list = parsed.find("problems");
  if (list == parsed.end() || !list->is_array()) bad(".problems", "an array");
  for (std::size_t i = 0; i < list->size(); ++i) {
    const json& item = (*list)[i];
    const std::string at = ".problems[" + std::to_string(i) + "]";
    if (!item.is_object()) bad(at, "an object");
    Problem p;
    p.check = string_field(item, "check", at, true);
    p.test = string_field(item, "test", at, false);
    p.label = string_field(item, "label", at, false);
    p.id = string_field(item, "id", at, false);
    p.outcome = string_field(item, "outcome", at, false);
    p.command = string_field(item, "command", at, false);
    if (auto lines = item.find("lines"); lines != item.end()) {
      if (!lines->is_array()) bad(at + ".lines", "an array of strings");
      for (const auto& line : *lines) {
        if (!line.is_string()) bad(at + ".lines", "an array of strings");
        p.lines.push_back(line.get<std::string>());
      }
    }
    if (auto seen = item.find("seen"); seen != item.end()) {
      if (!seen->is_number_unsigned()) bad(at + ".seen", "a count");
      p.seen = seen->get<std::uint64_t>();
    }
    if (auto resolved = item.find("resolved"); resolved != item.end() && !resolved->is_null()) {
      if (!resolved->is_object()) bad(at + ".resolved", "an object");
      p.resolved = true;
      p.resolved_by = string_field(*resolved, "id", at + ".resolved", false);
      p.resolution = string_field(*resolved, "line", at + ".resolved", false);
    }
    ledger.seen_ = std::max(ledger.seen_, p.seen);
    ledger.problems_.push_back(std::move(p));
  }
  if (auto seen = parsed.find("seen"); seen != parsed.end() && seen->is_number_unsigned())
    ledger.seen_ = std::max(ledger.seen_, seen->get<std::uint64_t>());
  if (auto through = parsed.find("observedThrough"); through != parsed.end() && through->is_string())
    ledger.observed_through_ = through->get<std::string>();
  std::stable_sort(ledger.problems_.begin(), ledger.problems_.end(), [](const Problem& a, const Problem& b) { return a.seen < b.seen; });
  ledger.bound();
  return ledger;
}

std::string observe_tool_results(std::string_view record_json, std::span<const std::string_view> events, LedgerLimits limits) {
  ProblemLedger ledger = record_json.empty() ? ProblemLedger(limits) : ProblemLedger::from_json(record_json, limits);
  for (std::string_view line : events) {
    const json event = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (event.is_discarded() || !event.is_object()) continue;
    const auto type = event.find("type");
    if (type == event.end() || !type->is_string() || type->get_ref<const std::string&>() != "tool_result") continue;
    const std::string id =
        event.contains("toolCallId") && event["toolCallId"].is_string() ? event["toolCallId"].get<std::string>() : std::string();
    const std::string tool =
        event.contains("toolName") && event["toolName"].is_string() ? event["toolName"].get<std::string>() : std::string();
    const std::string args =
        event.contains("args") ? event["args"].dump(-1, ' ', false, json::error_handler_t::replace) : std::string("null");
    const auto error = event.find("error");
    if (error != event.end() && error->is_string()) {
      ledger.observe({id, tool, args}, error->get_ref<const std::string&>(), true);
      continue;
    }
    const auto result = event.find("result");
    const std::string text = result == event.end() || result->is_null() ? std::string()
                             : result->is_string()                      ? result->get<std::string>()
                                                                        : result->dump(-1, ' ', false, json::error_handler_t::replace);
    ledger.observe({id, tool, args}, text);
  }
  return ledger.to_json();
}

namespace {

std::string what_failed(const Problem& p) { return p.test.empty() ? p.label : "test \"" + p.test + "\" (" + p.label + ")"; }

std::string without_indent(std::string_view line) {
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  return std::string(line);
}

}  // namespace

bool is_frame(std::string_view line) {
  const std::string bare = without_indent(line);
  return is_stack_frame(line) || bare.starts_with("File \"") || bare.starts_with("at ") ||
         bare.starts_with("Traceback (most recent call last)");
}

std::string describe_open_problem(const Problem& p) {
  std::string reasons;
  for (const auto& l : p.lines) {
    // The test's own mark line says nothing its heading does not, unless it says why.
    if (!p.test.empty() && test_mark(l).name == p.test && p.lines.size() > 1 && l.find(" - ") == std::string::npos) continue;
    reasons += (reasons.empty() ? " " : " | ") + without_indent(l);
  }
  std::string line = "- " + what_failed(p) + ":" + (reasons.empty() ? std::string(" failed") : reasons);
  if (!p.outcome.empty() && reasons.find(p.outcome) == std::string::npos) line += " (last output: " + p.outcome + ")";
  if (!p.id.empty()) line += " [id " + p.id + "]";
  return line;
}

std::string describe_resolved_problem(const Problem& p) {
  // The line that says what failed: not the test's own mark, nor a stack frame (a Python
  // traceback's frames come before its error).
  std::string first;
  std::string fallback;
  for (const auto& l : p.lines) {
    if (!p.test.empty() && test_mark(l).name == p.test && p.lines.size() > 1) continue;
    if (fallback.empty()) fallback = without_indent(l);
    if (is_frame(l)) continue;
    first = without_indent(l);
    break;
  }
  if (first.empty()) first = fallback;
  std::string line = "- " + what_failed(p) + ": " + (first.empty() ? std::string("failed") : first);
  line += " -> now " + (p.resolution.empty() ? std::string("passes") : p.resolution);
  if (!p.resolved_by.empty()) line += " [id " + p.resolved_by + "]";
  return line;
}

std::string describe_older_open_problems(std::span<const Problem* const> older) {
  std::string line = "- and " + std::to_string(older.size()) + " older open problems";
  std::vector<std::string_view> ids;
  for (const Problem* p : older) {
    if (ids.size() == kMaxOlderIds) break;
    // A test run's failures share its id: named once.
    if (!p->id.empty() && std::find(ids.begin(), ids.end(), p->id) == ids.end()) ids.push_back(p->id);
  }
  for (std::size_t i = 0; i < ids.size(); ++i) line.append(i == 0 ? " (recall by id: " : ", ").append(ids[i]);
  if (!ids.empty()) line.push_back(')');
  return line;
}

std::string describe_problems(const ProblemLedger& ledger, std::size_t max_open, std::size_t max_resolved) {
  std::string out;
  const auto open = ledger.open();
  if (!open.empty()) {
    out += "Open problems, newest first:";
    const std::size_t shown = std::min(open.size(), max_open);
    for (std::size_t i = 0; i < shown; ++i) out.append("\n").append(describe_open_problem(*open[i]));
    if (shown < open.size()) out.append("\n").append(describe_older_open_problems(std::span(open).subspan(shown)));
  }
  const auto resolved = ledger.resolved();
  if (!resolved.empty() && max_resolved > 0) {
    if (!out.empty()) out.push_back('\n');
    out.append("Resolved problems, newest first:");
    const std::size_t shown = std::min(resolved.size(), max_resolved);
    for (std::size_t i = 0; i < shown; ++i) out.append("\n").append(describe_resolved_problem(*resolved[i]));
  }
  return out;
}

}  // namespace ctxwin
