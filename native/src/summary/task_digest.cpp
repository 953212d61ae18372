#include "ctxwin/summary/task_digest.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "ctxwin/compaction/tool_outcome.hpp"
#include "ctxwin/summary/text_facts.hpp"

namespace ctxwin {

namespace {

using nlohmann::json;

constexpr std::size_t kShortList = 8;  // items per section unless `complete`

enum class Kind { Read, Change, Command, Other };

struct Call {
  std::string tool;
  std::string id;
  Kind kind = Kind::Other;
  std::string label;  // the command, or the tool with its arguments
  std::vector<std::string> paths;
  bool answered = false;
  std::string outcome;
  std::vector<std::string> errors;
};

struct Digest {
  std::vector<std::string> user;       // the user's messages
  std::vector<std::string> assistant;  // the assistant's statements
  std::vector<Call> calls;
  OrderedSet paths;
  OrderedSet figures;
  std::vector<std::string> loose_errors;  // error events not tied to a call
};

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool contains_any(const std::string& haystack, std::initializer_list<std::string_view> needles) {
  return std::any_of(needles.begin(), needles.end(),
                     [&](std::string_view n) { return haystack.find(n) != std::string::npos; });
}

Kind kind_of(std::string_view tool) {
  const std::string name = lower(tool);
  if (contains_any(name, {"write", "edit", "create", "patch", "replace", "delete", "remove", "rename",
                          "move", "insert", "save", "apply", "append", "update"})) {
    return Kind::Change;
  }
  if (contains_any(name, {"run", "bash", "shell", "exec", "command", "terminal", "test", "build", "lint",
                          "make", "npm", "git"})) {
    return Kind::Command;
  }
  if (contains_any(name, {"read", "view", "open", "cat", "list", "search", "grep", "find", "glob",
                          "fetch", "get", "ls"})) {
    return Kind::Read;
  }
  return Kind::Other;
}

// Whitespace collapsed, at most `max` code points (never half of one), "..." where cut.
std::string clip(std::string_view text, std::size_t max) {
  std::string out;
  std::size_t code_points = 0;
  bool space = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      space = !out.empty();
      continue;
    }
    const bool lead = (c & 0xC0) != 0x80;
    if (lead) {
      if (code_points + (space ? 1 : 0) >= max) {
        while (!out.empty() && out.back() == ' ') out.pop_back();
        return out + "...";
      }
      if (space) {
        out.push_back(' ');
        ++code_points;
        space = false;
      }
      ++code_points;
    }
    out.push_back(static_cast<char>(c));
  }
  return out;
}

std::string string_of(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

bool has_digit(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A line that reports how a run went: "Tests 3 failed | 209 passed (212)", "0 problems".
bool is_tally(std::string_view line) {
  if (!has_digit(line)) return false;
  const std::string l = lower(line);
  return contains_any(l, {"pass", "fail", "error", "problem", "warning", "changed", "tests", " ok", "succeeded",
                          "skipped", "insertion", "deletion"});
}

// Paths named by a call's arguments: the usual keys first, else any path in them.
std::vector<std::string> call_paths(const json& args) {
  OrderedSet paths;
  OrderedSet figures;
  if (args.is_object()) {
    for (const char* key : {"path", "file_path", "filePath", "file", "filename", "target_file", "target",
                            "source", "destination", "paths", "files"}) {
      auto it = args.find(key);
      if (it == args.end()) continue;
      if (it->is_string()) collect_paths_and_figures(it->get_ref<const std::string&>(), paths, figures);
      if (it->is_array()) {
        for (const auto& item : *it) {
          if (item.is_string()) collect_paths_and_figures(item.get_ref<const std::string&>(), paths, figures);
        }
      }
      // A value that is a bare file name without a known extension is still the file it names.
      if (it->is_string() && paths.empty() && !it->get_ref<const std::string&>().empty() &&
          it->get_ref<const std::string&>().size() < 200) {
        paths.add(it->get<std::string>());
      }
    }
  }
  return paths.items();
}

std::string call_label(const std::string& tool, const json& args, std::size_t max) {
  if (args.is_object()) {
    for (const char* key : {"command", "cmd", "script"}) {
      const std::string command = string_of(args, key);
      if (!command.empty()) return "`" + clip(command, max) + "`";
    }
  }
  if (args.is_null() || (args.is_object() && args.empty())) return tool;
  return tool + " " + clip(args.is_string() ? args.get<std::string>() : args.dump(), max);
}

void read_result(Call& call, std::string_view text, const TaskDigestOptions& options) {
  call.answered = true;
  std::string_view tally;
  std::string_view first;
  OrderedSet reasons;
  OrderedSet failures;
  for (std::string_view line : lines_of(text)) {
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    if (first.empty()) first = line;
    if (!reports_error(line)) {
      if (is_tally(line)) tally = line;
      continue;
    }
    // "FAIL test/x.ts" names what failed; a message such as "AssertionError: ..." says why: reasons first.
    const std::string l = lower(line.substr(line.find_first_not_of(" \t*-!>[#|")));
    (l.starts_with("fail") ? failures : reasons).add(clip(line, options.max_excerpt_code_points));
  }
  for (const auto& f : failures.items()) reasons.add(f);
  call.errors.assign(reasons.items().begin(), reasons.items().begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(3, reasons.size())));
  if (!tally.empty()) {
    call.outcome = clip(tally, options.max_excerpt_code_points);
  } else if (!call.errors.empty()) {
    call.outcome = "failed: " + call.errors.front();
  } else if (!first.empty()) {
    call.outcome = clip(first, options.max_excerpt_code_points / 2);
  }
}

Call* open_call(Digest& digest, const std::string& id) {
  if (!id.empty()) {
    for (auto it = digest.calls.rbegin(); it != digest.calls.rend(); ++it) {
      if (it->id == id) return &*it;
    }
  }
  for (auto& call : digest.calls) {
    if (!call.answered) return &call;
  }
  return nullptr;
}

void read_event(const json& event, Digest& digest, const TaskDigestOptions& options) {
  const std::string type = string_of(event, "type");
  if (type == "message") {
    const std::string role = string_of(event, "role");
    const std::string content = string_of(event, "content");
    if (content.empty()) return;
    if (role == "user") {
      digest.user.push_back(content);
    } else if (role == "assistant") {
      digest.assistant.push_back(content);
    }
    collect_paths_and_figures(content, digest.paths, digest.figures);
  } else if (type == "tool_call") {
    Call call;
    call.tool = string_of(event, "toolName");
    if (call.tool.empty()) call.tool = "an unnamed tool";
    call.id = string_of(event, "toolCallId");
    call.kind = kind_of(call.tool);
    const json args = event.contains("args") ? event["args"] : json();
    call.label = call_label(call.tool, args, options.max_excerpt_code_points);
    call.paths = call_paths(args);
    for (const auto& path : call.paths) digest.paths.add(path);
    if (args.is_object()) {
      for (auto it = args.begin(); it != args.end(); ++it) {
        if (it->is_number()) digest.figures.add(it.key() + " " + it->dump());
      }
    }
    digest.calls.push_back(std::move(call));
  } else if (type == "tool_result" || type == "error") {
    Call* call = open_call(digest, string_of(event, "toolCallId"));
    std::string text = string_of(event, "result");
    if (text.empty() && event.contains("result") && !event["result"].is_null()) text = event["result"].dump();
    const std::string error = string_of(event, "error");
    if (call == nullptr) {
      if (!error.empty()) digest.loose_errors.push_back(clip(error, options.max_excerpt_code_points));
      return;
    }
    read_result(*call, error.empty() ? std::string_view(text) : std::string_view(error), options);
    if (!error.empty() && call->errors.empty()) call->errors.push_back(clip(error, options.max_excerpt_code_points));
    // Paths and figures of short results (an error, a tally); long ones are file contents.
    if (text.size() <= 400) collect_paths_and_figures(text, digest.paths, digest.figures);
    for (const auto& e : call->errors) collect_paths_and_figures(e, digest.paths, digest.figures);
  }
}

std::string quoted(const std::vector<std::string>& items, std::size_t max_items) {
  std::vector<std::string> q;
  q.reserve(items.size());
  for (const auto& item : items) q.push_back("\"" + item + "\"");
  std::string out;
  const std::size_t shown = std::min(q.size(), max_items);
  for (std::size_t i = 0; i < shown; ++i) out += (i > 0 ? "; " : "") + q[i];
  if (shown < q.size()) out += " and " + std::to_string(q.size() - shown) + " more";
  return out;
}

std::string write(const Digest& d, const TaskDigestOptions& options) {
  const std::size_t many = options.complete ? static_cast<std::size_t>(-1) : kShortList;
  const std::size_t excerpt_max = options.max_excerpt_code_points;
  std::vector<std::string> lines;

  if (!d.user.empty()) lines.push_back("Goal (the user's words): \"" + clip(d.user.front(), options.max_goal_code_points) + "\"");

  OrderedSet changed;
  OrderedSet read;
  for (const auto& call : d.calls) {
    for (const auto& path : call.paths) {
      if (call.kind == Kind::Change) changed.add(path);
    }
  }
  for (const auto& call : d.calls) {
    for (const auto& path : call.paths) {
      if (call.kind != Kind::Change && !std::count(changed.items().begin(), changed.items().end(), path)) read.add(path);
    }
  }
  if (!changed.empty()) lines.push_back("Files changed: " + join_list(changed.items(), many));

  // A tool's failure stays open until a later call of the same tool succeeds.
  std::vector<std::pair<std::string, std::vector<std::string>>> open;  // tool, errors of its last failure
  std::vector<std::string> resolved;
  for (const auto& call : d.calls) {
    if (!call.answered) continue;
    auto it = std::find_if(open.begin(), open.end(), [&](const auto& entry) { return entry.first == call.tool; });
    if (call.errors.empty()) {
      if (it != open.end()) {
        for (const auto& e : it->second) resolved.push_back(e);
        open.erase(it);
      }
    } else {
      if (it != open.end()) {
        for (const auto& e : it->second) resolved.push_back(e);
        open.erase(it);
      }
      open.emplace_back(call.tool, call.errors);
    }
  }
  std::vector<std::string> open_errors;
  for (auto it = open.rbegin(); it != open.rend(); ++it) {  // the latest failure first
    for (const auto& e : it->second) open_errors.push_back("\"" + e + "\" (" + it->first + ")");
  }
  for (const auto& e : d.loose_errors) open_errors.push_back("\"" + e + "\"");
  if (!open_errors.empty()) {
    std::string line = "Errors still open: ";
    const std::size_t shown = std::min(open_errors.size(), many);
    for (std::size_t i = 0; i < shown; ++i) line += (i > 0 ? "; " : "") + open_errors[i];
    if (shown < open_errors.size()) line += " and " + std::to_string(open_errors.size() - shown) + " more";
    lines.push_back(line);
  }

  std::vector<std::string> commands;
  for (auto it = d.calls.rbegin(); it != d.calls.rend(); ++it) {
    if (it->kind != Kind::Command) continue;
    commands.push_back(it->label + (it->outcome.empty() ? std::string() : " -> \"" + it->outcome + "\""));
  }
  if (!commands.empty()) {
    std::string line = "Commands run, newest first: ";
    const std::size_t shown = std::min(commands.size(), many);
    for (std::size_t i = 0; i < shown; ++i) line += (i > 0 ? "; " : "") + commands[i];
    if (shown < commands.size()) line += " and " + std::to_string(commands.size() - shown) + " earlier";
    lines.push_back(line);
  }

  if (!d.assistant.empty()) lines.push_back("Next step (last stated): \"" + excerpt(d.assistant.back(), excerpt_max) + "\"");
  if (d.assistant.size() > 1) {
    // The statements before the last, newest first, without repeats.
    OrderedSet decisions;
    for (std::size_t i = d.assistant.size() - 1; i-- > 0;) decisions.add(excerpt(d.assistant[i], excerpt_max));
    // Bounded even when complete: the files, tools and errors after them must fit a summary too.
    lines.push_back("Decisions and findings, newest first: " + quoted(decisions.items(), kShortList));
  }
  if (!read.empty()) lines.push_back("Files read: " + join_list(read.items(), many));
  if (d.user.size() > 1) {
    std::vector<std::string> later;
    for (std::size_t i = d.user.size(); i-- > 1;) later.push_back(clip(d.user[i], excerpt_max));
    lines.push_back("The user also said, newest first: " + quoted(later, many));
  }
  std::vector<std::pair<std::string, std::size_t>> tools;
  for (const auto& call : d.calls) {
    auto it = std::find_if(tools.begin(), tools.end(), [&](const auto& t) { return t.first == call.tool; });
    if (it == tools.end()) {
      tools.emplace_back(call.tool, 1);
    } else {
      ++it->second;
    }
  }
  if (!tools.empty()) {
    std::vector<std::string> named;
    for (const auto& [name, count] : tools) named.push_back(name + " (" + std::to_string(count) + "x)");
    lines.push_back("Tools called: " + join_list(named, options.complete ? many : 12));
  }
  OrderedSet other;
  for (const auto& path : d.paths.items()) {
    if (!std::count(changed.items().begin(), changed.items().end(), path) &&
        !std::count(read.items().begin(), read.items().end(), path)) {
      other.add(path);
    }
  }
  if (!other.empty()) lines.push_back("Other paths mentioned: " + join_list(other.items(), options.complete ? many : 12));
  if (!d.figures.empty()) lines.push_back("Figures: " + join_list(d.figures.items(), 12));
  if (!resolved.empty()) {
    OrderedSet unique;
    for (const auto& e : resolved) unique.add(e);
    lines.push_back("Errors since resolved: " + quoted(unique.items(), options.complete ? many : 3));
  }
  if (lines.empty()) return "Nothing to carry over: no messages or tool calls.";
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) out += (i > 0 ? "\n" : "") + lines[i] + (lines[i].ends_with('.') || lines[i].ends_with('"') ? "" : ".");
  return out;
}

}  // namespace

std::string summarize_task(std::span<const std::string_view> texts, const TaskDigestOptions& options) {
  Digest digest;
  for (std::string_view text : texts) {
    json parsed = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!parsed.is_discarded() && parsed.is_object()) {
      read_event(parsed, digest, options);
    } else if (!text.empty()) {
      // Plain text is something the user or the caller said.
      digest.user.emplace_back(text);
      collect_paths_and_figures(text, digest.paths, digest.figures);
    }
  }
  return write(digest, options);
}

}  // namespace ctxwin
