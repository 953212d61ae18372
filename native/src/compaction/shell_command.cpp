#include "ctxwin/compaction/shell_command.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "ctxwin/compaction/collapsed_text.hpp"
#include "compaction/shell_lexer.hpp"
#include "compaction/shell_programs.hpp"

namespace ctxwin {

namespace {

// `bash -c '...'` inside `bash -c '...'`: deep enough for what agents write, bounded for what they could.
constexpr int kMaxNesting = 4;

bool is_name_char(char c, bool first) {
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (!first && c >= '0' && c <= '9');
}

bool is_assignment(std::string_view word) {
  const std::size_t eq = word.find('=');
  if (eq == std::string_view::npos || eq == 0) return false;
  for (std::size_t i = 0; i < eq; ++i) {
    if (!is_name_char(word[i], i == 0)) return false;
  }
  return true;
}

// Words that open, continue or close a compound command: the simple command starts after them.
bool is_reserved_prefix(std::string_view word) {
  static constexpr std::array<std::string_view, 13> kWords = {"if", "then", "else", "elif", "do",     "while", "until",
                                                              "!",  "{",    "time", "(",    "coproc", "exec"};
  return std::find(kWords.begin(), kWords.end(), word) != kWords.end();
}

bool is_reserved_end(std::string_view word) { return word == "fi" || word == "done" || word == "esac" || word == "}" || word == "))"; }

// Builds simple commands from tokens.
class Builder {
 public:
  explicit Builder(int depth) : depth_(depth) {}

  void run(const std::vector<ShellToken>& tokens) {
    for (std::size_t t = 0; t < tokens.size() && out_.size() < kMaxSimpleCommands; ++t) {
      const ShellToken& token = tokens[t];
      if (token.kind == ShellToken::Word) {
        word(token);
      } else if (token.kind == ShellToken::Redirect) {
        pending_ = ShellRedirection{token.text, token.fd, {}, {}};
        has_pending_ = true;
      } else {
        separator(token.kind == ShellToken::Newline ? std::string(";") : token.text);
      }
    }
    separator("");
    if (!out_.empty()) out_.back().next.clear();
  }

  std::vector<SimpleCommand> take() { return std::move(out_); }

 private:
  void word(const ShellToken& token) {
    if (has_pending_) {
      pending_.target = token.text;
      pending_.body = token.body;
      current_.redirections.push_back(std::move(pending_));
      has_pending_ = false;
      return;
    }
    if (current_.words.empty()) {
      if (is_assignment(token.text) && !token.quoted_start) {
        current_.assignments.push_back(token.text);
        return;
      }
      if (!token.quoted_start && (is_reserved_prefix(token.text) || is_reserved_end(token.text))) return;
    }
    current_.words.push_back(token.text);
  }

  void separator(std::string op) {
    if (has_pending_) {
      current_.redirections.push_back(std::move(pending_));
      has_pending_ = false;
    }
    if (current_.words.empty() && current_.redirections.empty()) {
      // `a &&` then a newline, or `( ... )` then `&&`: the operator belongs to the command before.
      if (!out_.empty() && !op.empty() && op != ";") out_.back().next = op;
      current_.assignments.clear();
      return;
    }
    current_.next = op;
    current_.cwd = cwd_;
    finish(std::move(current_));
    current_ = SimpleCommand{};
  }

  void finish(SimpleCommand command) {
    if (out_.size() >= kMaxSimpleCommands) return;
    // `cd dir`: what follows on the line runs there.
    if (!command.words.empty() && (command.words[0] == "cd" || command.words[0] == "pushd")) {
      std::string target;
      for (std::size_t i = 1; i < command.words.size(); ++i) {
        if (!command.words[i].starts_with('-') || command.words[i] == "-") {
          target = command.words[i];
          break;
        }
      }
      if (target.empty() || target == "-" || target == "~") {
        cwd_.clear();
      } else if (target.starts_with('/') || target.starts_with('~') || cwd_.empty()) {
        cwd_ = target;
      } else {
        cwd_ = joined(cwd_, target);
      }
    }
    // `bash -c 'script'`: its commands in its place.
    if (depth_ < kMaxNesting && !command.words.empty()) {
      const std::string program = program_name(command.words[0]);
      if (program == "bash" || program == "sh" || program == "zsh" || program == "dash" || program == "ksh") {
        for (std::size_t i = 1; i + 1 < command.words.size(); ++i) {
          const std::string& flag = command.words[i];
          if (!flag.starts_with('-')) break;
          if (flag.find('c') != std::string::npos && !flag.starts_with("--")) {
            Builder inner(depth_ + 1);
            inner.cwd_ = command.cwd;
            inner.run(lex_shell(command.words[i + 1]));
            std::vector<SimpleCommand> nested = inner.take();
            if (nested.empty()) break;
            nested.back().next = command.next;
            for (auto& n : nested) {
              if (out_.size() >= kMaxSimpleCommands) return;
              out_.push_back(std::move(n));
            }
            cwd_ = inner.cwd_;
            return;
          }
        }
      }
    }
    out_.push_back(std::move(command));
  }

  int depth_;
  std::vector<SimpleCommand> out_;
  SimpleCommand current_;
  ShellRedirection pending_;
  bool has_pending_ = false;
  std::string cwd_;
};

}  // namespace

std::vector<SimpleCommand> parse_shell(std::string_view line) {
  Builder builder(0);
  builder.run(lex_shell(line));
  return builder.take();
}

std::string shell_label(std::string_view line, std::size_t max_code_points) {
  std::vector<std::pair<std::size_t, std::size_t>> bodies;
  lex_shell(line, &bodies);
  std::string raw;
  std::size_t at = 0;
  for (const auto& [start, end] : bodies) {
    if (start < at) continue;
    raw.append(line.substr(at, start - at));
    raw.append(" ... ");
    at = end;
  }
  if (at < line.size()) raw.append(line.substr(at));
  return collapsed_text(raw, max_code_points);
}

ShellReading read_shell_command(std::string_view line) {
  ShellReading reading;
  const std::vector<SimpleCommand> commands = parse_shell(line);
  if (commands.empty()) return reading;
  // The bodies heredocs wrote to files earlier in the line: a patch file written and applied in one go.
  std::vector<std::pair<std::string, std::string>> written;
  bool all_read = true;
  const SimpleCommand* worker = nullptr;
  ProgramClass last_class = ProgramClass::Worker;
  for (const SimpleCommand& command : commands) {
    const ProgramReading program = read_program(command, written);
    for (const auto& change : program.changes) reading.changes.push_back(change);
    for (const auto& path : program.files_read) {
      if (std::find(reading.files_read.begin(), reading.files_read.end(), path) == reading.files_read.end())
        reading.files_read.push_back(path);
    }
    for (const auto& body : program.bodies_written) {
      written.push_back(body);
      reading.bodies_written.push_back(body);
    }
    for (const auto& path : program.test_paths) reading.test_paths.push_back(path);
    for (const auto& path : program.patch_files) reading.patch_files.push_back(path);
    reading.runs_tests = reading.runs_tests || program.runs_tests;
    const bool did_work = program.kind == ProgramClass::Worker || !program.changes.empty();
    if (did_work) {
      all_read = false;
      worker = &command;
    }
    last_class = program.kind == ProgramClass::Filter ? ProgramClass::Filter : did_work ? ProgramClass::Worker : program.kind;
  }
  reading.read_only = all_read && reading.changes.empty();
  // The status a tool reports is the last command's: a reader or a filter after the work is not the work.
  reading.status_reliable = reading.read_only || commands.size() == 1 || last_class == ProgramClass::Worker;
  reading.run_key = run_key(worker != nullptr ? *worker : commands.back());
  return reading;
}

}  // namespace ctxwin
