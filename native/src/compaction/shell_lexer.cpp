#include "compaction/shell_lexer.hpp"

#include <array>

namespace ctxwin {

namespace {

constexpr std::size_t kMaxTokens = 1 << 16;

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
bool is_operator_char(char c) { return c == ';' || c == '&' || c == '|' || c == '<' || c == '>' || c == '(' || c == ')'; }

// Longest first, so that "&&" is not read as "&" twice.
constexpr std::array<std::string_view, 21> kOperators = {"&>>", "<<<", "<<-", "&&", "||", ";;", "|&", "&>", ">>", ">|", ">&",
                                                         "<<",  "<&",  "<>",  ";",  "|",  "&",  ">",  "<",  "(",  ")"};

bool is_redirection(std::string_view op) {
  return op == "&>>" || op == "<<<" || op == "<<-" || op == "&>" || op == ">>" || op == ">|" || op == ">&" || op == "<<" || op == "<&" ||
         op == "<>" || op == ">" || op == "<";
}

std::string_view operator_at(std::string_view s, std::size_t i) {
  for (std::string_view op : kOperators) {
    if (s.substr(i, op.size()) == op) return op;
  }
  return {};
}

// Copies `$(...)` (from its "$(") or `(...)` raw into `out`, quotes inside respected; returns the
// index after its closing parenthesis.
std::size_t copy_substitution(std::string_view s, std::size_t i, std::string& out) {
  int depth = 0;
  const std::size_t start = i;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '\\' && i + 1 < s.size()) {
      i += 2;
      continue;
    }
    if (c == '\'') {
      const std::size_t end = s.find('\'', i + 1);
      i = end == std::string_view::npos ? s.size() : end + 1;
      continue;
    }
    if (c == '"') {
      ++i;
      while (i < s.size() && s[i] != '"') i += s[i] == '\\' ? 2 : 1;
      ++i;
      continue;
    }
    if (c == '(') ++depth;
    if (c == ')' && --depth <= 0) {
      ++i;
      break;
    }
    ++i;
  }
  i = std::min(i, s.size());
  out.append(s.substr(start, i - start));
  return i;
}

// Copies a backquoted command substitution raw; returns the index after its closing backquote.
std::size_t copy_backquoted(std::string_view s, std::size_t i, std::string& out) {
  const std::size_t start = i++;
  while (i < s.size() && s[i] != '`') i += s[i] == '\\' ? 2 : 1;
  i = std::min(i + 1, s.size());
  out.append(s.substr(start, i - start));
  return i;
}

char ansi_c_escape(char c) {
  switch (c) {
    case 'n':
      return '\n';
    case 't':
      return '\t';
    case 'r':
      return '\r';
    default:
      return c;
  }
}

struct WordRead {
  std::string text;
  bool quoted_start = false;
  bool quoted = false;
};

WordRead read_word(std::string_view s, std::size_t& i) {
  WordRead w;
  const char first = s[i];
  w.quoted_start = first == '\'' || first == '"' || first == '\\' || (first == '$' && i + 1 < s.size() && s[i + 1] == '\'');
  while (i < s.size()) {
    const char c = s[i];
    if (is_blank(c) || c == '\n' || is_operator_char(c)) break;
    if (c == '\\') {
      if (i + 1 >= s.size()) {
        w.text.push_back(c);
        ++i;
        continue;
      }
      if (s[i + 1] != '\n') w.text.push_back(s[i + 1]);  // a backslash-newline joins lines
      w.quoted = true;
      i += 2;
      continue;
    }
    if (c == '\'') {
      const std::size_t end = s.find('\'', i + 1);
      const std::size_t stop = end == std::string_view::npos ? s.size() : end;
      w.text.append(s.substr(i + 1, stop - i - 1));
      i = stop == s.size() ? stop : stop + 1;
      w.quoted = true;
      continue;
    }
    if (c == '"') {
      ++i;
      while (i < s.size() && s[i] != '"') {
        const char d = s[i];
        if (d == '\\' && i + 1 < s.size()) {
          const char e = s[i + 1];
          if (e == '$' || e == '`' || e == '"' || e == '\\' || e == '\n') {
            if (e != '\n') w.text.push_back(e);
            i += 2;
            continue;
          }
        }
        if (d == '$' && i + 1 < s.size() && s[i + 1] == '(') {
          i = copy_substitution(s, i, w.text);
          continue;
        }
        if (d == '`') {
          i = copy_backquoted(s, i, w.text);
          continue;
        }
        w.text.push_back(d);
        ++i;
      }
      if (i < s.size()) ++i;
      w.quoted = true;
      continue;
    }
    if (c == '$' && i + 1 < s.size()) {
      const char d = s[i + 1];
      if (d == '(') {
        i = copy_substitution(s, i, w.text);
        continue;
      }
      if (d == '{') {
        const std::size_t end = s.find('}', i + 2);
        const std::size_t stop = end == std::string_view::npos ? s.size() : end + 1;
        w.text.append(s.substr(i, stop - i));
        i = stop;
        continue;
      }
      if (d == '\'') {
        // $'...': ANSI-C quoting, its common escapes read.
        i += 2;
        while (i < s.size() && s[i] != '\'') {
          if (s[i] == '\\' && i + 1 < s.size()) {
            w.text.push_back(ansi_c_escape(s[i + 1]));
            i += 2;
            continue;
          }
          w.text.push_back(s[i++]);
        }
        if (i < s.size()) ++i;
        w.quoted = true;
        continue;
      }
    }
    if (c == '`') {
      i = copy_backquoted(s, i, w.text);
      continue;
    }
    w.text.push_back(c);
    ++i;
  }
  return w;
}

bool all_digits(std::string_view text) {
  if (text.empty() || text.size() > 4) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace

std::vector<ShellToken> lex_shell(std::string_view s, std::vector<std::pair<std::size_t, std::size_t>>* bodies) {
  std::vector<ShellToken> out;
  struct Pending {
    std::size_t token;
    bool strip_tabs;
  };
  std::vector<Pending> heredocs;
  bool want_delimiter = false;
  bool strip_tabs = false;
  std::size_t i = 0;
  auto push_redirection = [&](std::string_view op, int fd) {
    ShellToken t;
    t.kind = ShellToken::Redirect;
    t.text = std::string(op);
    t.fd = fd;
    out.push_back(std::move(t));
    if (op == "<<" || op == "<<-") {
      want_delimiter = true;
      strip_tabs = op == "<<-";
    }
  };
  while (i < s.size() && out.size() < kMaxTokens) {
    const char c = s[i];
    if (is_blank(c)) {
      ++i;
      continue;
    }
    if (c == '\\' && i + 1 < s.size() && s[i + 1] == '\n') {
      i += 2;
      continue;
    }
    if (c == '\n') {
      out.push_back({ShellToken::Newline, "\n", -1, {}, false});
      ++i;
      // The bodies of the heredocs opened on the line just ended, in order.
      for (const Pending& h : heredocs) {
        const std::string& delimiter = out[h.token].text;
        const std::size_t start = i;
        std::string body;
        bool closed = false;  // an unclosed heredoc runs to the end of the line
        while (i < s.size()) {
          std::size_t end = s.find('\n', i);
          if (end == std::string_view::npos) end = s.size();
          std::string_view line = s.substr(i, end - i);
          if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
          std::string_view bare = line;
          if (h.strip_tabs) {
            while (!bare.empty() && bare.front() == '\t') bare.remove_prefix(1);
          }
          if (bare == delimiter) {
            if (bodies != nullptr) bodies->emplace_back(start, i);
            i = end < s.size() ? end + 1 : end;
            closed = true;
            break;
          }
          body.append(bare);
          body.push_back('\n');
          i = end < s.size() ? end + 1 : end;
        }
        if (!closed && bodies != nullptr) bodies->emplace_back(start, s.size());
        out[h.token].body = std::move(body);
      }
      heredocs.clear();
      continue;
    }
    if (c == '#') {  // a comment, where a word would begin
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    if (is_operator_char(c)) {
      const std::string_view op = operator_at(s, i);
      i += op.size();
      if (is_redirection(op)) {
        push_redirection(op, -1);
      } else {
        out.push_back({ShellToken::Operator, std::string(op), -1, {}, false});
      }
      continue;
    }
    WordRead word = read_word(s, i);
    // "2>" / "2>&1": digits against a redirection are its descriptor.
    if (!word.quoted && all_digits(word.text) && i < s.size() && (s[i] == '<' || s[i] == '>')) {
      const std::string_view op = operator_at(s, i);
      if (is_redirection(op) && op.front() != '&') {
        i += op.size();
        push_redirection(op, std::stoi(word.text));
        continue;
      }
    }
    if (want_delimiter) {
      heredocs.push_back({out.size(), strip_tabs});
      want_delimiter = false;
    }
    out.push_back({ShellToken::Word, std::move(word.text), -1, {}, word.quoted_start});
  }
  return out;
}

}  // namespace ctxwin
