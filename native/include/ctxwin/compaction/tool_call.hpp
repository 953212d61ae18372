// What a tool call is, read from its tool's name and its arguments: a shell command (read by
// read_shell_command), an edit tool's change (str_replace_editor, Claude Code's Edit / Write,
// apply_patch, a write_file), a read (read_file, an editor's `view`, `cat` through a shell) or another
// tool. The problem ledger, the cleared placeholder and the task digest read calls through it, so
// that a read never opens a problem, a run's status is judged the same everywhere, and every file a
// call changes is listed whatever tool changed it.
//
//   ToolCallReading c = read_tool_call("bash", R"({"command":"sed -i 's/a/b/' src/x.py && pytest -q"})");
//   c.kind;      // CallKind::Command
//   c.changes;   // {{FileChange::Edited, "src/x.py"}}
//   c.label;     // "`sed -i 's/a/b/' src/x.py && pytest -q`"
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "ctxwin/compaction/file_effect.hpp"
#include "ctxwin/compaction/shell_command.hpp"

namespace ctxwin {

enum class CallKind { Read, Change, Command, Other };

struct ToolCallReading {
  CallKind kind = CallKind::Other;
  // Its arguments hold a shell command (`command` / `cmd` / `commandLine`, a string or an argv array).
  bool shell = false;
  // That command (the script of ["bash", "-lc", "..."]).
  std::string command;
  // The command read (when `shell`).
  ShellReading shell_reading;
  std::vector<FileEffect> changes;
  std::vector<std::string> files_read;
  // Only reads: what it returns is content (a file, a listing, a search), not the outcome of a run.
  bool read_only = false;
  // Runs tests: a test command, or a tool whose name says so.
  bool runs_tests = false;
  // The exit status a result reports is the status of the call's work (see ShellReading).
  bool status_reliable = true;
  // The check its failure is about: "<tool>\n<subject>", the subject being the command's run key,
  // an editor's sub-command and path, else its path, test filter or first id argument.
  std::string check;
  // How a reader names it: "`npm run build`", "str_replace_editor str_replace src/a.py", run_tests {"filter":"x"}.
  std::string label;
  // The files whose tests it runs.
  std::vector<std::string> test_paths;
  // It changes the file an agent's viewer has open (SWE-agent's `edit N:M ... end_of_edit`): the
  // results say which ("[File: /repo/x.java (120 lines total)]", "(Open file: /repo/x.java)").
  bool edits_open_file = false;
};

// `args_json`: the arguments as JSON text (an object; a string or anything else names no
// subject, save for an apply_patch tool, whose raw text is its patch). `max_label_code_points`
// bounds the label.
ToolCallReading read_tool_call(std::string_view tool, std::string_view args_json, std::size_t max_label_code_points = 160);

}  // namespace ctxwin
