#include "ctxwin/summary/task_digest.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "ctxwin/compaction/patch_text.hpp"
#include "ctxwin/compaction/problem_ledger.hpp"
#include "ctxwin/compaction/run_verdict.hpp"
#include "ctxwin/compaction/tool_call.hpp"
#include "ctxwin/compaction/tool_outcome.hpp"
#include "ctxwin/summary/text_facts.hpp"

namespace ctxwin {

namespace {

using nlohmann::json;

constexpr std::size_t kShortList = 8;           // items per section unless `complete`
constexpr std::size_t kMaxBodyBytes = 1 << 18;  // heredoc bodies kept to read a later `git apply`

using Kind = CallKind;

struct Call {
  std::string tool;
  std::string id;
  Kind kind = Kind::Other;
  std::string args;   // the arguments as JSON text
  std::string label;  // the command, or the tool with its arguments
  ToolCallReading reading;
  // The files it changed (as far as its result says: a patch's files from `patching file x`).
  std::vector<FileEffect> changes;
  bool answered = false;
  bool failed = false;
  std::string outcome;
};

// Something the assistant said; `acted` when tool calls followed it in the same turn (what it
// announced was done then, so it is not a step still to take).
struct Statement {
  std::string text;
  bool acted = false;
};

struct Digest {
  std::vector<std::string> user;  // the user's messages
  std::vector<Statement> assistant;
  std::vector<Call> calls;
  OrderedSet paths;
  ProblemLedger problems;
  // What heredocs wrote to files (`cat > fix.patch <<'EOF'`), so that a later `git apply fix.patch`
  // is read; bounded.
  std::vector<std::pair<std::string, std::string>> bodies;
  std::size_t body_bytes = 0;
  // The file an agent's viewer has open (SWE-agent's `open`), which its `edit` changes.
  std::string open_file;
  bool problems_given = false;  // the caller puts the session's record beside the digest
  bool last_was_assistant = false;
};

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool contains_any(const std::string& haystack, std::initializer_list<std::string_view> needles) {
  return std::any_of(needles.begin(), needles.end(), [&](std::string_view n) { return haystack.find(n) != std::string::npos; });
}

// Whitespace collapsed, at most `max` code points, "..." where cut. The cut falls after a whole
// word when one ends in the second half, so that a quote never ends inside a word or a number.
std::string clip(std::string_view text, std::size_t max) {
  std::string out;
  std::size_t code_points = 0;
  std::size_t word_end = std::string::npos;  // where the last whole word ended in `out`
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
        if (space) word_end = out.size();
        if (word_end != std::string::npos && word_end > out.size() / 2) out.resize(word_end);
        while (!out.empty() && std::string_view(" ,;:").find(out.back()) != std::string_view::npos) out.pop_back();
        return out + "...";
      }
      if (space) {
        word_end = out.size();
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

// The sentences of a text: split after ".", "!" or "?" before a space or the end, and at line breaks.
std::vector<std::string> sentences_of(std::string_view text) {
  std::vector<std::string> out;
  std::string current;
  auto flush = [&] {
    const auto first = current.find_first_not_of(" \t\r");
    if (first != std::string::npos) out.push_back(current.substr(first));
    current.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      flush();
      continue;
    }
    current.push_back(c);
    if ((c == '.' || c == '!' || c == '?') && (i + 1 == text.size() || text[i + 1] == ' ' || text[i + 1] == '\n')) flush();
  }
  flush();
  return out;
}

// A sentence that limits how the task may be done: "Do not change ...", "keep Node 18 support".
// Padded with spaces so that a needle " word " matches at either end (built by appending: GCC 12
// misreads `" " + string` as an overlapping copy).
std::string padded_lower(std::string_view text) {
  std::string s(1, ' ');
  s.append(lower(text));
  s.push_back(' ');
  return s;
}

bool is_constraint(std::string_view sentence) {
  const std::string s = padded_lower(sentence);
  return contains_any(s, {" don't ", " do not ", " never ", " without ", " must ", " only ", " keep ", " avoid ", " make sure ",
                          " instead of ", " not before ", " no later ", " at most ", " at least ", " exclude ", " not by "});
}

// A sentence that says what the agent will do: "Next I'll ...", "I will ...", "Then ...".
int plan_strength(std::string_view sentence) {
  const std::string s = padded_lower(sentence);
  if (contains_any(s, {" next", " then i ", " then we ", " still to do", " remaining step"})) return 2;
  if (contains_any(s, {" i'll ", " i will ", " let me ", " going to ", " now i ", " we'll ", " we will "})) return 1;
  return 0;
}

std::size_t word_count(std::string_view s) {
  std::size_t words = 0;
  bool in_word = false;
  for (char c : s) {
    const bool blank = c == ' ' || c == '\t' || c == '\n' || c == '\r';
    if (!blank && !in_word) ++words;
    in_word = !blank;
  }
  return words;
}

bool has_digit(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The file a viewer says it has open: SWE-agent's "[File: /repo/x.java (120 lines total)]" or
// "(Open file: /repo/x.java)", the last one in `output`; "" when none.
std::string open_file_in(std::string_view output) {
  std::string file;
  std::size_t start = 0;
  while (start < output.size()) {
    std::size_t end = output.find('\n', start);
    if (end == std::string_view::npos) end = output.size();
    std::string_view line = output.substr(start, end - start);
    start = end + 1;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    if (line.starts_with("[File: ") && line.ends_with(" lines total)]")) {
      const std::size_t open = line.rfind(" (");
      if (open != std::string_view::npos && open > 7) file = std::string(line.substr(7, open - 7));
    } else if (line.starts_with("(Open file: ") && line.ends_with(")") && line != "(Open file: n/a)") {
      file = std::string(line.substr(12, line.size() - 13));
    }
  }
  return file;
}

// "patching file src/x.py" (patch), "Applied patch src/x.py cleanly." (git apply -v).
std::vector<FileEffect> patched_files(std::string_view output) {
  std::vector<FileEffect> out;
  std::size_t start = 0;
  while (start < output.size() && out.size() < 64) {
    std::size_t end = output.find('\n', start);
    if (end == std::string_view::npos) end = output.size();
    std::string_view line = output.substr(start, end - start);
    start = end + 1;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    std::string_view path;
    if (line.starts_with("patching file ")) {
      path = line.substr(14);
    } else if (line.starts_with("Applied patch ") && line.ends_with(" cleanly.")) {
      path = line.substr(14, line.size() - 14 - 9);
    }
    if (path.size() > 1 && path.front() == '\'' && path.back() == '\'') path = path.substr(1, path.size() - 2);
    if (!path.empty() && path.size() < 400) out.push_back({FileChange::Edited, std::string(path), {}});
  }
  return out;
}

void add_paths(std::string_view text, Digest& digest) {
  OrderedSet figures;  // numbers stay in the sentences they came from
  collect_paths_and_figures(text, digest.paths, figures);
}

// How a run ended, in one line: its tally, else its first failure, else the line it ended with,
// with its exit code.
std::string outcome_of(const ToolOutcome& o, std::size_t max) {
  std::string out;
  if (!o.tally.empty() && (o.tally_failed || o.error_lines.empty())) {
    out = clip(o.tally, max);
  } else if (o.failed() && !o.error_lines.empty()) {
    // The line that says why: not a failing test's mark (which says which test), a stack frame
    // or the exit code.
    std::string_view first;
    for (const auto& line : o.error_lines) {
      if (!test_mark(line).name.empty() || is_frame(line) || line.starts_with("exit code")) continue;
      first = line;
      break;
    }
    if (!first.empty()) out = "failed: " + clip(first, max);
  } else if (!o.last_line.empty()) {
    out = clip(o.last_line, max);
  }
  if (o.exit_code.has_value() && out.find("exit code") == std::string::npos) {
    out += (out.empty() ? "" : "; ") + std::string("exit code ") + std::to_string(*o.exit_code);
  }
  return out;
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
  const bool after_assistant = digest.last_was_assistant;
  digest.last_was_assistant = false;
  if (type == "message") {
    const std::string role = string_of(event, "role");
    const std::string content = string_of(event, "content");
    if (content.empty()) return;
    if (role == "user") {
      digest.user.push_back(content);
    } else if (role == "assistant") {
      digest.assistant.push_back({content, false});
      digest.last_was_assistant = true;
    }
    add_paths(content, digest);
  } else if (type == "problems") {
    auto given = event.find("given");
    digest.problems_given = given != event.end() && given->is_boolean() && given->get<bool>();
  } else if (type == "tool_call") {
    if (after_assistant && !digest.assistant.empty()) digest.assistant.back().acted = true;
    digest.last_was_assistant = after_assistant;  // parallel calls of the same turn
    Call call;
    call.tool = string_of(event, "toolName");
    if (call.tool.empty()) call.tool = "an unnamed tool";
    call.id = string_of(event, "toolCallId");
    const json args = event.contains("args") ? event["args"] : json();
    call.args = args.dump(-1, ' ', false, json::error_handler_t::replace);
    call.reading = read_tool_call(call.tool, call.args, options.max_excerpt_code_points);
    call.kind = call.reading.kind;
    call.label = call.reading.label;
    call.changes = call.reading.changes;
    // A patch file written earlier and applied now.
    for (const auto& file : call.reading.shell_reading.patch_files) {
      for (auto it = digest.bodies.rbegin(); it != digest.bodies.rend(); ++it) {
        if (it->first != file) continue;
        for (auto& e : patch_changes(it->second)) call.changes.push_back(std::move(e));
        break;
      }
    }
    for (const auto& [file, body] : call.reading.shell_reading.bodies_written) {
      if (digest.body_bytes + body.size() > kMaxBodyBytes) break;
      digest.body_bytes += body.size();
      digest.bodies.emplace_back(file, body);
    }
    for (const auto& e : call.changes) digest.paths.add(e.path);
    for (const auto& path : call.reading.files_read) digest.paths.add(path);
    digest.calls.push_back(std::move(call));
  } else if (type == "tool_result" || type == "error") {
    Call* call = open_call(digest, string_of(event, "toolCallId"));
    std::string text = string_of(event, "result");
    if (text.empty() && event.contains("result") && !event["result"].is_null()) {
      text = event["result"].dump(-1, ' ', false, json::error_handler_t::replace);
    }
    const std::string error = string_of(event, "error");
    const std::string& output = error.empty() ? text : error;
    if (call == nullptr) {
      // A result whose call is not among the turns: its tool is unknown.
      Call orphan;
      orphan.tool = "an unnamed tool";
      orphan.id = string_of(event, "toolCallId");
      orphan.label = orphan.tool;
      digest.calls.push_back(std::move(orphan));
      call = &digest.calls.back();
    }
    call->answered = true;
    ToolOutcome outcome = read_tool_outcome(output);
    const RunVerdict verdict = judge_run(call->reading, outcome, output, !error.empty());
    call->failed = verdict.failed;
    call->outcome = outcome_of(outcome, options.max_excerpt_code_points);
    if (!error.empty() && !outcome.failed()) call->outcome = "failed: " + clip(error, options.max_excerpt_code_points);
    // SWE-agent's viewer: the file its `edit` changes is the one its results say is open.
    const std::string shown = open_file_in(output);
    if (call->reading.edits_open_file && !verdict.failed) {
      const std::string& file = shown.empty() ? digest.open_file : shown;
      if (!file.empty()) {
        call->changes.push_back({FileChange::Edited, file, {}});
        digest.paths.add(file);
      }
    }
    if (!shown.empty()) digest.open_file = shown;
    // `patch` and `git apply -v` name the files they changed.
    if (call->reading.shell && !call->reading.shell_reading.patch_files.empty()) {
      for (const auto& e : patched_files(output)) {
        call->changes.push_back(e);
        digest.paths.add(e.path);
      }
    }
    digest.problems.observe({call->id, call->tool, call->args}, output, !error.empty());
    // Paths of short results (an error, a tally); long ones are file contents.
    if (output.size() <= 400) add_paths(output, digest);
    for (const auto& e : outcome.error_lines) add_paths(e, digest);
  }
}

// A resolved problem in one short line: what failed, the line that said why, what shows it
// passing now. Shorter than the ledger's own description: what is fixed matters less than what
// is open, and the digest has a bound.
std::string resolved_line(const Problem& p) {
  std::string why;
  for (const auto& l : p.lines) {
    if ((!p.test.empty() && test_mark(l).name == p.test && p.lines.size() > 1) || is_frame(l) || l.starts_with("exit code")) continue;
    why = clip(l, 160);
    break;
  }
  if (why.empty() && !p.lines.empty()) why = clip(p.lines.front(), 160);
  const std::string what = p.test.empty() ? clip(p.label, 60) : "test \"" + p.test + "\"";
  std::string line = "- " + what + ": " + (why.empty() ? std::string("failed") : why);
  if (!p.resolution.empty()) line += " -> now " + clip(p.resolution, 60);
  return line;
}

std::string quoted(const std::vector<std::string>& items, std::size_t max_items) {
  std::string out;
  const std::size_t shown = std::min(items.size(), max_items);
  for (std::size_t i = 0; i < shown; ++i) out += (i > 0 ? "; \"" : "\"") + items[i] + "\"";
  if (shown < items.size()) out += " and " + std::to_string(items.size() - shown) + " more";
  return out;
}

std::string with_outcome(const Call& call) { return call.label + (call.outcome.empty() ? std::string() : " -> \"" + call.outcome + "\""); }

std::string write(const Digest& d, const TaskDigestOptions& options) {
  const std::size_t many = options.complete ? static_cast<std::size_t>(-1) : kShortList;
  const std::size_t excerpt_max = options.max_excerpt_code_points;
  std::vector<std::string> lines;

  // The task: the user's first message, in their words.
  if (!d.user.empty()) {
    const std::string task = clip(d.user.front(), options.max_goal_code_points);
    lines.push_back("Task (the user's words): \"" + task + "\"");
    // A task too long to quote whole keeps its constraints.
    if (task.ends_with("...")) {
      std::vector<std::string> constraints;
      for (const auto& s : sentences_of(d.user.front())) {
        if (is_constraint(s)) constraints.push_back(clip(s, excerpt_max));
      }
      if (!constraints.empty()) lines.push_back("Constraints (the user's words): " + quoted(constraints, many));
    }
  }
  // What the user said later: new requests and constraints, in their words.
  if (d.user.size() > 1) {
    std::vector<std::string> later;
    for (std::size_t i = d.user.size(); i-- > 1;) later.push_back(clip(d.user[i], excerpt_max));
    lines.push_back("The user later said, newest first: " + quoted(later, many));
  }

  // Files changed, in the order first changed, each with what happened to it last: an edit
  // plainly, "(created)", "(deleted)", "(moved from a.py)". A shell command's changes count
  // whatever its status (`sed -i ... && pytest` failed in its tests, not in its edit); another
  // tool's only when it did not fail (a str_replace whose text was not found changed nothing).
  std::vector<FileEffect> files;
  for (const auto& call : d.calls) {
    if (!call.reading.shell && call.failed) continue;
    for (const auto& e : call.changes) {
      if (e.change == FileChange::Moved) {
        files.erase(std::remove_if(files.begin(), files.end(), [&](const FileEffect& f) { return f.path == e.from; }), files.end());
      }
      auto it = std::find_if(files.begin(), files.end(), [&](const FileEffect& f) { return f.path == e.path; });
      if (it == files.end()) {
        files.push_back(e);
      } else if (e.change != FileChange::Edited || it->change == FileChange::Deleted) {
        // An edit after a creation or a move keeps that; a deletion, creation or move replaces it.
        *it = e;
      }
    }
  }
  OrderedSet changed;
  std::vector<std::string> changed_items;
  for (const auto& f : files) {
    changed.add(f.path);
    switch (f.change) {
      case FileChange::Edited:
        changed_items.push_back(f.path);
        break;
      case FileChange::Created:
        changed_items.push_back(f.path + " (created)");
        break;
      case FileChange::Deleted:
        changed_items.push_back(f.path + " (deleted)");
        break;
      case FileChange::Moved:
        changed_items.push_back(f.path + " (moved from " + f.from + ")");
        if (!f.from.empty()) changed.add(f.from);
        break;
    }
  }
  OrderedSet read;
  for (const auto& call : d.calls) {
    for (const auto& path : call.reading.files_read) {
      if (!std::count(changed.items().begin(), changed.items().end(), path)) read.add(path);
    }
  }
  if (!changed_items.empty())
    lines.push_back("Files changed: " + join_list(changed_items, options.complete ? many : std::max<std::size_t>(many, 24)));

  const auto open = d.problems_given ? std::vector<const Problem*>() : d.problems.open();
  if (!open.empty()) {
    lines.push_back("Open problems, newest first:");
    const std::size_t shown = std::min(open.size(), many);
    for (std::size_t i = 0; i < shown; ++i) lines.push_back(describe_open_problem(*open[i]));
    if (shown < open.size()) lines.push_back(describe_older_open_problems(std::span(open).subspan(shown)));
  }

  // The last command and its outcome: a command (a run, a test, a build), else the last tool call
  // that was not a read.
  const Call* last = nullptr;
  for (auto it = d.calls.rbegin(); it != d.calls.rend() && last == nullptr; ++it) {
    if (it->answered && it->kind == Kind::Command) last = &*it;
  }
  for (auto it = d.calls.rbegin(); it != d.calls.rend() && last == nullptr; ++it) {
    if (it->answered && it->kind != Kind::Read) last = &*it;
  }
  if (last != nullptr) lines.push_back("Last command: " + with_outcome(*last));

  // The next step: the newest step the agent said it would take and has not taken yet (no tool
  // call followed it), a sentence saying "next" before any other; else its last statement.
  std::string next;
  for (int strength = 2; strength >= 1 && next.empty(); --strength) {
    for (std::size_t i = d.assistant.size(); i-- > 0 && next.empty();) {
      if (d.assistant[i].acted) continue;
      for (const auto& s : sentences_of(d.assistant[i].text)) {
        if (plan_strength(s) >= strength) {
          next = clip(s, excerpt_max);
          break;
        }
      }
    }
  }
  if (next.empty() && !d.assistant.empty()) next = excerpt(d.assistant.back().text, excerpt_max);
  if (!next.empty()) lines.push_back("Next step (last stated): \"" + next + "\"");

  // The agent's findings and decisions, newest first: the first sentence of each statement that
  // says something (a bare "Running the tests." announces a call the commands already show).
  OrderedSet findings;
  for (std::size_t i = d.assistant.size(); i-- > 0;) {
    std::string finding = excerpt(d.assistant[i].text, excerpt_max);
    if (finding.empty() || next.starts_with(finding) || finding.ends_with("...")) continue;
    if (word_count(finding) < 5 && !has_digit(finding)) continue;
    // "Let me check the policy", followed by its call: an action the commands show, not a finding.
    if (d.assistant[i].acted && plan_strength(finding) > 0) continue;
    findings.add(std::move(finding));
  }
  if (!findings.empty()) lines.push_back("Findings and decisions, newest first: " + quoted(findings.items(), kShortList));

  const auto resolved = d.problems_given ? std::vector<const Problem*>() : d.problems.resolved();
  if (!resolved.empty()) {
    lines.push_back("Resolved problems, newest first:");
    const std::size_t shown = std::min(resolved.size(), options.complete ? many : std::size_t{4});
    for (std::size_t i = 0; i < shown; ++i) lines.push_back(resolved_line(*resolved[i]));
  }

  std::vector<std::string> commands;
  for (auto it = d.calls.rbegin(); it != d.calls.rend(); ++it) {
    if (it->kind == Kind::Read || &*it == last || !it->answered) continue;
    commands.push_back(with_outcome(*it));
  }
  if (!commands.empty()) {
    std::string line = "Earlier commands, newest first: ";
    const std::size_t shown = std::min(commands.size(), many);
    for (std::size_t i = 0; i < shown; ++i) line += (i > 0 ? "; " : "") + commands[i];
    if (shown < commands.size()) line += " and " + std::to_string(commands.size() - shown) + " earlier";
    lines.push_back(line);
  }
  if (!read.empty()) lines.push_back("Files read: " + join_list(read.items(), many));
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
    for (const auto& [name, count] : tools) named.push_back(name + (count == 1 ? " once" : " " + std::to_string(count) + " times"));
    lines.push_back("Tools called: " + join_list(named, options.complete ? many : 12));
  }
  OrderedSet other;
  for (const auto& path : d.paths.items()) {
    if (!std::count(changed.items().begin(), changed.items().end(), path) && !std::count(read.items().begin(), read.items().end(), path)) {
      other.add(path);
    }
  }
  if (!other.empty()) lines.push_back("Other paths mentioned: " + join_list(other.items(), options.complete ? many : 12));
  if (lines.empty()) return "Nothing to carry over: no messages or tool calls.";
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    const bool open_ended = line.starts_with("- ") || line.ends_with(':') || line.ends_with('.') || line.ends_with('"');
    out += (i > 0 ? "\n" : "") + line + (open_ended ? "" : ".");
  }
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
      add_paths(text, digest);
    }
  }
  return write(digest, options);
}

}  // namespace ctxwin
