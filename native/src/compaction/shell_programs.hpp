// What one simple command of a shell line does, by its program: the files it changes or reads,
// whether it only reads, filters or does work, whether it runs tests. The table of programs
// coding agents run (readers such as cat, sed -n, grep, git show; editors such as sed -i, perl -pi,
// ed, tee, cp, mv, rm, touch, patch, git apply, apply_patch, formatters; interpreters given a
// program; test runners). Internal to shell_command.cpp.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ctxwin/compaction/file_effect.hpp"
#include "ctxwin/compaction/shell_command.hpp"

namespace ctxwin {

enum class ProgramClass {
  Reader,  // prints what it reads, changes nothing (cat, grep, ls, git diff, cd, echo)
  Filter,  // passes its input on and writes it too (tee): not the work whose status matters
  Worker,  // anything else: runs code, builds, installs, tests, edits
};

struct ProgramReading {
  ProgramClass kind = ProgramClass::Worker;
  std::vector<FileEffect> changes;
  std::vector<std::string> files_read;
  std::vector<std::pair<std::string, std::string>> bodies_written;
  std::vector<std::string> patch_files;
  bool runs_tests = false;
  std::vector<std::string> test_paths;
};

// `written`: what heredocs wrote earlier in the line, so that a patch file written and applied in
// one line is read.
ProgramReading read_program(const SimpleCommand& command, const std::vector<std::pair<std::string, std::string>>& written);

// The key another run of the same work shares: the program and its non-option words, a stdin
// program's text by a hash ("python - <<3f2a91c0").
std::string run_key(const SimpleCommand& command);

// "python3.11" -> "python3.11"; "/usr/bin/env" -> "env": the last path component.
std::string program_name(std::string_view word);

// `path` relative to `directory` ("django" + "db/models.py"); absolute and home paths as they are.
std::string joined(std::string_view directory, std::string_view path);

}  // namespace ctxwin
