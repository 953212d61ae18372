#include "ctxwin/compaction/tool_call.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <initializer_list>

#include "ctxwin/compaction/collapsed_text.hpp"
#include "ctxwin/compaction/patch_text.hpp"

namespace ctxwin {

namespace {

using nlohmann::json;

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool contains_any(std::string_view haystack, std::initializer_list<std::string_view> needles) {
  return std::any_of(needles.begin(), needles.end(), [&](std::string_view n) { return haystack.find(n) != std::string_view::npos; });
}

std::string text_of(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_array()) {
    std::string out;
    for (const auto& item : value) {
      if (!item.is_string()) return value.dump(-1, ' ', false, json::error_handler_t::replace);
      if (!out.empty()) out.push_back(' ');
      out.append(item.get<std::string>());
    }
    return out;
  }
  return value.is_null() ? std::string() : value.dump(-1, ' ', false, json::error_handler_t::replace);
}

bool is_id_key(std::string_view key) { return key == "id" || key.ends_with("_id") || (key.size() > 2 && key.ends_with("Id")); }

const json* field(const json& args, std::initializer_list<const char*> keys) {
  if (!args.is_object()) return nullptr;
  for (const char* key : keys) {
    auto it = args.find(key);
    if (it != args.end() && !it->is_null()) return &*it;
  }
  return nullptr;
}

std::string string_field(const json& args, std::initializer_list<const char*> keys) {
  const json* value = field(args, keys);
  return value != nullptr && value->is_string() ? value->get<std::string>() : std::string();
}

// The subject of a call that is neither a shell command nor an editor's: its path, else its test
// filter, else its first id argument.
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
      if (it != args.end() && !it->is_null()) return collapsed_text(text_of(*it), 400);
    }
  }
  for (auto it = args.begin(); it != args.end(); ++it) {
    if (is_id_key(it.key()) && (it->is_string() || it->is_number())) return collapsed_text(text_of(*it), 200);
  }
  return {};
}

CallKind kind_by_name(std::string_view tool) {
  const std::string name = lower(tool);
  if (contains_any(name, {"write", "edit", "create", "patch", "replace", "delete", "remove", "rename", "move", "insert", "save", "apply",
                          "append", "update"})) {
    return CallKind::Change;
  }
  if (contains_any(name,
                   {"run", "bash", "shell", "exec", "command", "terminal", "test", "build", "lint", "make", "npm", "git", "python"})) {
    return CallKind::Command;
  }
  if (contains_any(name,
                   {"read", "view", "open", "cat", "list", "search", "grep", "find", "glob", "fetch", "get", "ls", "lookup", "check"})) {
    return CallKind::Read;
  }
  return CallKind::Other;
}

// Paths named by the usual keys.
std::vector<std::string> call_paths(const json& args) {
  std::vector<std::string> out;
  if (!args.is_object()) return out;
  for (const char* key : {"path", "file_path", "filePath", "file", "filename", "target_file", "notebook_path", "absolute_path", "target",
                          "source", "destination", "paths", "files"}) {
    auto it = args.find(key);
    if (it == args.end()) continue;
    auto take = [&](const json& v) {
      if (!v.is_string()) return;
      const std::string& s = v.get_ref<const std::string&>();
      if (s.empty() || s.size() > 400 || s.find('\n') != std::string::npos) return;
      if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
    };
    if (it->is_array()) {
      for (const auto& item : *it) take(item);
    } else {
      take(*it);
    }
  }
  return out;
}

// An editor tool's sub-commands (str_replace_editor, str_replace_based_edit_tool, a text_editor).
bool is_editor_command(std::string_view c) {
  return c == "view" || c == "create" || c == "str_replace" || c == "insert" || c == "undo_edit" || c == "write" || c == "append" ||
         c == "edit" || c == "delete" || c == "rename" || c == "replace" || c == "read";
}

// One argv word as a shell reads it back.
std::string shell_quoted(std::string_view word) {
  if (!word.empty() && word.find_first_of(" \t\n'\"\\$`|&;<>()*?[]{}#~") == std::string_view::npos) return std::string(word);
  std::string out = "'";
  for (char c : word) {
    if (c == '\'')
      out += "'\\''";
    else
      out.push_back(c);
  }
  out.push_back('\'');
  return out;
}

// The shell command of a call: `command` / `cmd` / `commandLine` as a string, or an argv array
// (["bash", "-lc", "script"] is the script).
bool shell_command_of(const json& args, std::string& out) {
  const json* value = field(args, {"command", "cmd", "commandLine"});
  if (value == nullptr) return false;
  if (value->is_string()) {
    out = value->get<std::string>();
    return true;
  }
  if (!value->is_array() || value->empty() || !std::all_of(value->begin(), value->end(), [](const json& v) { return v.is_string(); }))
    return false;
  const auto& argv = *value;
  const std::string first = argv[0].get<std::string>();
  const std::string program = first.substr(first.rfind('/') == std::string::npos ? 0 : first.rfind('/') + 1);
  if ((program == "bash" || program == "sh" || program == "zsh") && argv.size() >= 3) {
    const std::string flag = argv[argv.size() - 2].get<std::string>();
    if (flag.starts_with('-') && flag.find('c') != std::string::npos) {
      out = argv.back().get<std::string>();
      return true;
    }
  }
  out.clear();
  for (const auto& word : argv) {
    if (!out.empty()) out.push_back(' ');
    out += shell_quoted(word.get_ref<const std::string&>());
  }
  return true;
}

void read_shell(ToolCallReading& c, std::string_view tool, std::size_t max_label) {
  c.shell = true;
  c.shell_reading = read_shell_command(c.command);
  const ShellReading& s = c.shell_reading;
  c.changes = s.changes;
  c.files_read = s.files_read;
  c.read_only = s.read_only;
  c.runs_tests = s.runs_tests;
  c.status_reliable = s.status_reliable;
  c.test_paths = s.test_paths;
  c.kind = s.read_only ? CallKind::Read : CallKind::Command;
  c.check = std::string(tool) + "\n" + (s.run_key.empty() ? collapsed_text(c.command, 400) : s.run_key);
  // Built by appending: GCC 12 misreads `"`" + string` as an overlapping copy.
  c.label.assign(1, '`');
  c.label.append(shell_label(c.command, max_label));
  c.label.push_back('`');
}

void read_editor(ToolCallReading& c, std::string_view tool, const std::string& sub, const json& args) {
  const std::vector<std::string> paths = call_paths(args);
  const std::string path = paths.empty() ? std::string() : paths.front();
  c.check = std::string(tool) + "\n" + sub + " " + path;
  c.label = std::string(tool) + " " + sub;
  if (!path.empty()) c.label.append(" ").append(path);
  if (sub == "view" || sub == "read") {
    c.kind = CallKind::Read;
    c.read_only = true;
    if (!path.empty()) c.files_read.push_back(path);
    return;
  }
  c.kind = CallKind::Change;
  if (path.empty()) return;
  if (sub == "create") {
    c.changes.push_back({FileChange::Created, path, {}});
  } else if (sub == "delete") {
    c.changes.push_back({FileChange::Deleted, path, {}});
  } else if (sub == "rename") {
    const std::string to = string_field(args, {"new_path", "newPath", "destination", "to"});
    if (!to.empty())
      c.changes.push_back({FileChange::Moved, to, path});
    else
      c.changes.push_back({FileChange::Edited, path, {}});
  } else {
    c.changes.push_back({FileChange::Edited, path, {}});
  }
}

// A call named for a change (write_file, Edit, MultiEdit, delete_file, apply_patch, rename_file):
// what it changes, by its name and its arguments.
void read_change(ToolCallReading& c, std::string_view tool, const json& args, std::string_view raw) {
  const std::string name = lower(tool);
  // A patch: in an argument, or the raw arguments of a freeform apply_patch.
  if (name.find("patch") != std::string::npos || name.find("diff") != std::string::npos) {
    std::string text = string_field(args, {"input", "patch", "diff", "content", "patch_text", "patchText"});
    if (text.empty() && args.is_string()) text = args.get<std::string>();
    if (text.empty() && args.is_discarded()) text = std::string(raw);
    c.changes = patch_changes(text);
    if (!c.changes.empty()) return;
  }
  const std::vector<std::string> paths = call_paths(args);
  if (contains_any(name, {"delete", "remove", "unlink"})) {
    for (const auto& p : paths) c.changes.push_back({FileChange::Deleted, p, {}});
    return;
  }
  if (contains_any(name, {"rename", "move"})) {
    const std::string from = string_field(args, {"source", "from", "old_path", "oldPath", "path", "file_path"});
    const std::string to = string_field(args, {"destination", "to", "new_path", "newPath", "target"});
    if (!from.empty() && !to.empty() && from != to) {
      c.changes.push_back({FileChange::Moved, to, from});
      return;
    }
  }
  const FileChange kind = contains_any(name, {"create", "new_file", "add_file"}) ? FileChange::Created : FileChange::Edited;
  for (const auto& p : paths) c.changes.push_back({kind, p, {}});
}

}  // namespace

ToolCallReading read_tool_call(std::string_view tool, std::string_view args_json, std::size_t max_label_code_points) {
  ToolCallReading c;
  const json args = json::parse(args_json, nullptr, /*allow_exceptions=*/false);
  const std::string tool_name = tool.empty() ? std::string("an unnamed tool") : std::string(tool);
  const std::string editor_sub = string_field(args, {"command"});
  const bool has_path = !call_paths(args).empty();
  if (is_editor_command(editor_sub) && has_path) {
    read_editor(c, tool, editor_sub, args);
    return c;
  }
  if (shell_command_of(args, c.command)) {
    // SWE-agent's `edit 12:14` ... `end_of_edit`: its lines are the file's new text, not commands;
    // it changes the file its viewer has open, which only its results name.
    if (c.command.starts_with("edit ") && c.command.find("end_of_edit") != std::string::npos) {
      c.kind = CallKind::Change;
      c.edits_open_file = true;
      const std::string range = c.command.substr(0, c.command.find('\n'));
      c.check = std::string(tool) + "\n" + range;
      c.label.assign(1, '`');
      c.label.append(collapsed_text(range, max_label_code_points));
      c.label.push_back('`');
      return c;
    }
    read_shell(c, tool, max_label_code_points);
    return c;
  }
  c.kind = kind_by_name(tool);
  c.check = std::string(tool) + "\n" + (args.is_discarded() ? std::string() : subject_of(args));
  // How a call is written without a command: the tool and its arguments.
  if (args.is_discarded() || args.is_null() || (args.is_object() && args.empty())) {
    c.label = tool_name;
  } else {
    c.label = tool_name + " " +
              collapsed_text(args.is_string() ? args.get<std::string>() : args.dump(-1, ' ', false, json::error_handler_t::replace),
                             max_label_code_points);
  }
  const std::string name = lower(tool);
  c.runs_tests = name.find("test") != std::string::npos;
  if (c.kind == CallKind::Change) {
    read_change(c, tool, args, args_json);
  } else if (c.kind == CallKind::Read) {
    c.read_only = true;
    c.files_read = call_paths(args);
  }
  return c;
}

}  // namespace ctxwin
