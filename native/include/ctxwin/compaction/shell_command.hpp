// What a shell command line does, as far as its text says: the files it changes, whether it only
// reads, whether it runs tests, and whether the exit status a tool reports for it is the status of
// the work (not of a `| tail` after it). Coding agents act through a shell more than through edit
// tools (`sed -i`, `cat > f <<'EOF'`, `python - <<'PY'`, `git apply`, `apply_patch`, `mv`, `rm`), so a
// summary that reads only edit tools lists no file changed, and one that reads every output as the
// outcome of a run lists a `sed -n` of a file that prints `except KeyError:` as an open problem.
//
// The line is split as a POSIX shell splits it (quotes, backslashes, `$(...)` and backticks kept
// inside their word, heredocs with any delimiter, `&&`, `||`, `;`, `|`, `&`, newlines, redirections
// with their file descriptors, `( ... )` and `{ ...; }` groups, `bash -c '...'`), without expanding
// anything: a `$VAR` path stays as written. Never throws; work is linear in the line's length.
//
//   ShellReading r = read_shell_command("cd /testbed && sed -i 's/a/b/' src/x.py && python -m pytest tests -q | tail -5");
//   r.changes;          // {{FileChange::Edited, "src/x.py"}}
//   r.read_only;        // false
//   r.runs_tests;       // true
//   r.status_reliable;  // false: the status is tail's
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ctxwin/compaction/file_effect.hpp"

namespace ctxwin {

struct ShellRedirection {
  // ">", ">>", ">|", "&>", "&>>", "<", "<>", "<<", "<<-", "<<<", or ">&" / "<&" (a descriptor copied).
  std::string op;
  // The descriptor before the operator ("2>"), or -1.
  int fd = -1;
  // The file (quotes removed), the descriptor copied ("1"), a here-string's word, or a heredoc's delimiter.
  std::string target;
  // A heredoc's body (the lines up to its delimiter).
  std::string body;
};

struct SimpleCommand {
  // `NAME=value` words before the command.
  std::vector<std::string> assignments;
  // The command and its arguments, quotes removed.
  std::vector<std::string> words;
  std::vector<ShellRedirection> redirections;
  // The operator after it: "&&", "||", ";", "|", "|&", "&", or "" for the last.
  std::string next;
  // The directory an earlier `cd` of the same line moved to, as written ("" when none did).
  std::string cwd;
};

// The simple commands of `line`, in order (those of a `bash -c '...'` in place of it). At most
// kMaxSimpleCommands; the rest of a longer line is not read.
std::vector<SimpleCommand> parse_shell(std::string_view line);
inline constexpr std::size_t kMaxSimpleCommands = 512;

struct ShellReading {
  std::vector<FileEffect> changes;
  // Files it reads as a reader would (cat, head, tail, nl, sed -n, less, wc, diff, grep's files).
  std::vector<std::string> files_read;
  // Only reads: every command in it is a reader (cat, sed -n, grep, ls, find, git show, ...) or
  // changes nothing (cd, echo without a redirection), and nothing is written. What such a line
  // prints is content, not the outcome of a run.
  bool read_only = false;
  // Some command in it runs tests (pytest, unittest, runtests.py, tox, npm test, vitest, jest, mocha,
  // go test, cargo test, rspec, make test, ...).
  bool runs_tests = false;
  // The exit status of the line is that of a command that did work: false when the line ends in
  // a reader, a filter or `tee` after a command that did (`pytest | tail -5`, `make || true`).
  bool status_reliable = true;
  // The command that does the line's work, as a key that another run of it shares whatever `cd`,
  // flags, filters and redirections surround it: "python reproduce.py", "pytest tests/test_x.py".
  std::string run_key;
  // The files whose tests it runs (the path arguments of a test command, "tests/test_x.py").
  std::vector<std::string> test_paths;
  // Patch files it applies whose text the line does not hold (`git apply fix.patch`): a reader
  // that saw the patch written earlier knows what they change.
  std::vector<std::string> patch_files;
  // What heredocs wrote to files (`cat > fix.patch <<'EOF'`): the file and the body.
  std::vector<std::pair<std::string, std::string>> bodies_written;
};

ShellReading read_shell_command(std::string_view line);

// `line` as a reader wants it named: heredoc bodies replaced by "...", whitespace collapsed, at
// most `max_code_points` ("cat <<'EOF' > reproduce.py ... EOF && python reproduce.py").
std::string shell_label(std::string_view line, std::size_t max_code_points = 160);

}  // namespace ctxwin
