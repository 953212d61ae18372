#include "ctxwin/compaction/problem_ledger.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>

#include "ctxwin/compaction/cleared_result.hpp"
#include "ctxwin/error.hpp"

namespace ctxwin {

namespace {

using nlohmann::json;

// Whitespace collapsed, at most `max` code points, "..." where cut.
std::string collapsed(std::string_view text, std::size_t max) {
  std::string out;
  std::size_t code_points = 0;
  bool space = false;
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if ((c & 0xC0) != 0x80) {
      if (code_points + (space ? 1 : 0) >= max) return out + "...";
      if (space) {
        out.push_back(' ');
        ++code_points;
        space = false;
      }
      ++code_points;
    }
    out.push_back(ch);
  }
  return out;
}

json parse_args(std::string_view args_json) {
  json parsed = json::parse(args_json, nullptr, /*allow_exceptions=*/false);
  return parsed.is_discarded() ? json() : parsed;
}

std::string text_of(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_array()) {
    std::string out;
    for (const auto& item : value) {
      if (!item.is_string()) return value.dump();
      if (!out.empty()) out.push_back(' ');
      out.append(item.get<std::string>());
    }
    return out;
  }
  return value.is_null() ? std::string() : value.dump();
}

bool is_id_key(std::string_view key) {
  return key == "id" || key.ends_with("_id") || (key.size() > 2 && key.ends_with("Id"));
}

std::string subject_of(const json& args) {
  if (!args.is_object()) return {};
  static constexpr std::array<std::array<std::string_view, 8>, 3> kKeys = {{
      {"command", "cmd", "script", "commandLine", "shell", "", "", ""},
      {"path", "file", "file_path", "filePath", "filename", "target_file", "url", "uri"},
      {"filter", "test", "tests", "testNamePattern", "grep", "spec", "", ""},
  }};
  for (const auto& keys : kKeys) {
    for (std::string_view key : keys) {
      if (key.empty()) continue;
      auto it = args.find(std::string(key));
      if (it != args.end() && !it->is_null()) return collapsed(text_of(*it), 400);
    }
  }
  for (auto it = args.begin(); it != args.end(); ++it) {
    if (is_id_key(it.key()) && (it->is_string() || it->is_number())) return collapsed(text_of(*it), 200);
  }
  return {};
}

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

std::string check_of_call(std::string_view tool, std::string_view args_json) {
  return std::string(tool) + "\n" + subject_of(parse_args(args_json));
}

std::string describe_call(std::string_view tool, std::string_view args_json, std::size_t max_code_points) {
  const json args = parse_args(args_json);
  if (args.is_object()) {
    for (const char* key : {"command", "cmd", "script"}) {
      auto it = args.find(key);
      if (it != args.end() && !it->is_null()) return "`" + collapsed(text_of(*it), max_code_points) + "`";
    }
  }
  const std::string name = tool.empty() ? std::string("an unnamed tool") : std::string(tool);
  if (args.is_null() || (args.is_object() && args.empty())) return name;
  return name + " " + collapsed(args.is_string() ? args.get<std::string>() : args.dump(-1, ' ', false, json::error_handler_t::replace), max_code_points);
}

void ProblemLedger::observe(const ToolCallRef& call, std::string_view result, bool reported_error) {
  observed_through_ = std::string(call.id);
  const bool cleared = is_cleared_tool_result(result);
  ToolOutcome outcome = read_tool_outcome(kept_error_text(result), limits_.lines);
  if (reported_error && !outcome.failed()) {
    // Its first line is the error, whatever words it uses ("permission denied").
    const std::size_t end = result.find('\n');
    const std::string first = collapsed(result.substr(0, end), limits_.lines.max_line_bytes);
    outcome.error_lines.push_back(first.empty() ? std::string("failed") : first);
  }
  // A cleared result keeps only its error lines: it shows no check passing.
  if (cleared && !outcome.failed()) return;
  const std::uint64_t seq = ++seen_;
  const std::string command = check_of_call(call.tool, call.args_json);
  const std::string label = describe_call(call.tool, call.args_json);
  if (!cleared) {
    for (const auto& name : outcome.passed_tests) {
      for (auto& p : problems_) {
        if (!p.resolved && p.test == name) resolve(p, call.id, "passed: " + name);
      }
    }
    if (!outcome.failed()) {
      std::string line = !outcome.tally.empty() ? outcome.tally : outcome.last_line;
      if (outcome.exit_code.has_value()) line += (line.empty() ? "" : "; ") + std::string("exit code ") + std::to_string(*outcome.exit_code);
      for (auto& p : problems_) {
        if (!p.resolved && (p.check == command || p.command == command)) resolve(p, call.id, line.empty() ? "succeeded" : line);
      }
      std::stable_sort(problems_.begin(), problems_.end(), [](const Problem& a, const Problem& b) { return a.seen < b.seen; });
      bound();
      return;
    }
  }
  std::string how = outcome.tally_failed ? outcome.tally : std::string();
  if (outcome.exit_code.has_value() && *outcome.exit_code != 0) how += (how.empty() ? "" : "; ") + std::string("exit code ") + std::to_string(*outcome.exit_code);
  auto record = [&](const std::string& check, std::string test, const std::vector<std::string>& lines) {
    Problem& p = upsert(check);
    // A run that only marks the test as failing ("× name", a summary list) says less than the
    // run before it that said why: the reason stays.
    const bool only_marks = !test.empty() && std::all_of(lines.begin(), lines.end(), [&](const std::string& l) { return test_mark(l).name == test; });
    if (!lines.empty() && !(only_marks && !p.lines.empty())) p.lines = lines;
    p.test = std::move(test);
    p.label = label;
    p.id = std::string(call.id);
    p.outcome = how;
    p.command = command;
    p.seen = seq;
  };
  if (!outcome.failed_tests.empty()) {
    for (const auto& failed : outcome.failed_tests) record("test\n" + failed.name, failed.name, failed.lines);
  } else {
    std::vector<std::string> lines = outcome.error_lines;
    if (lines.empty() && outcome.tally_failed) lines.push_back(outcome.tally);
    record(command, std::string(), lines);
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
  problem.resolution = collapsed(line, limits_.lines.max_line_bytes);
  problem.seen = seen_;
}

void ProblemLedger::bound() {
  for (bool resolved : {false, true}) {
    const std::size_t max = resolved ? limits_.max_resolved : limits_.max_open;
    std::size_t count = static_cast<std::size_t>(std::count_if(problems_.begin(), problems_.end(), [&](const Problem& p) { return p.resolved == resolved; }));
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
  if (auto seen = parsed.find("seen"); seen != parsed.end() && seen->is_number_unsigned()) ledger.seen_ = std::max(ledger.seen_, seen->get<std::uint64_t>());
  if (auto through = parsed.find("observedThrough"); through != parsed.end() && through->is_string()) ledger.observed_through_ = through->get<std::string>();
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
    const std::string id = event.contains("toolCallId") && event["toolCallId"].is_string() ? event["toolCallId"].get<std::string>() : std::string();
    const std::string tool = event.contains("toolName") && event["toolName"].is_string() ? event["toolName"].get<std::string>() : std::string();
    const std::string args = event.contains("args") ? event["args"].dump(-1, ' ', false, json::error_handler_t::replace) : std::string("null");
    const auto error = event.find("error");
    if (error != event.end() && error->is_string()) {
      ledger.observe({id, tool, args}, error->get_ref<const std::string&>(), true);
      continue;
    }
    const auto result = event.find("result");
    const std::string text = result == event.end() || result->is_null() ? std::string()
                             : result->is_string() ? result->get<std::string>()
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
  return is_stack_frame(line) || bare.starts_with("File \"") || bare.starts_with("at ") || bare.starts_with("Traceback (most recent call last)");
}

std::string describe_open_problem(const Problem& p) {
  std::string reasons;
  for (const auto& l : p.lines) {
    // The test's own mark line says nothing its heading does not.
    if (!p.test.empty() && test_mark(l).name == p.test && p.lines.size() > 1) continue;
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

std::string describe_problems(const ProblemLedger& ledger, std::size_t max_open, std::size_t max_resolved) {
  std::string out;
  const auto open = ledger.open();
  if (!open.empty()) {
    out += "Open problems, newest first:";
    const std::size_t shown = std::min(open.size(), max_open);
    for (std::size_t i = 0; i < shown; ++i) out.append("\n").append(describe_open_problem(*open[i]));
    if (shown < open.size()) out += "\n- and " + std::to_string(open.size() - shown) + " older open problems";
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
