// The tokens of a shell command line: words with their quotes removed, operators, redirections
// and line ends, with each heredoc's body attached to its delimiter word. Internal to
// shell_command.cpp; tested through parse_shell.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ctxwin {

struct ShellToken {
  enum Kind { Word, Operator, Redirect, Newline };
  Kind kind = Word;
  // A word without its quotes; an operator ("&&", "|", "(", ...) or a redirection (">>", "<<-", ...).
  std::string text;
  // A redirection's descriptor ("2>"), or -1.
  int fd = -1;
  // A heredoc delimiter's body.
  std::string body;
  // The word began with a quote or a backslash: never a reserved word or an assignment.
  bool quoted_start = false;
};

// The tokens of `line`. `bodies`, when given, receives where each heredoc body is in `line`
// ([start, end) byte offsets, in order). At most 65,536 tokens; the rest of the line is not read.
std::vector<ShellToken> lex_shell(std::string_view line, std::vector<std::pair<std::size_t, std::size_t>>* bodies = nullptr);

}  // namespace ctxwin
