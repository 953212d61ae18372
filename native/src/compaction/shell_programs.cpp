#include "compaction/shell_programs.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <initializer_list>

#include "ctxwin/compaction/patch_text.hpp"
#include "ctxwin/compaction/script_writes.hpp"

namespace ctxwin {

namespace {

using Words = std::vector<std::string>;

bool one_of(std::string_view value, std::initializer_list<std::string_view> set) {
  return std::find(set.begin(), set.end(), value) != set.end();
}

bool is_option(std::string_view word) { return word.size() > 1 && word.front() == '-'; }

// "python3", "python3.11", "pypy3" -> "python"; "pip3" -> "pip"; "node" stays.
std::string normalized_program(std::string_view word) {
  std::string name = program_name(word);
  for (std::string_view base : {"python", "pypy", "pip", "perl", "ruby", "node"}) {
    if (name.starts_with(base) && name.find_first_not_of("0123456789.", base.size()) == std::string::npos)
      return std::string(base == "pypy" ? "python" : base);
  }
  return name;
}

// The words after the options, `--` ending them. `valued`: options that take the next word.
Words operands(const Words& args, std::size_t from, std::initializer_list<std::string_view> valued = {}) {
  Words out;
  bool options = true;
  for (std::size_t i = from; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (options && a == "--") {
      options = false;
      continue;
    }
    if (options && is_option(a)) {
      if (a.find('=') == std::string::npos && one_of(a, valued)) ++i;
      continue;
    }
    out.push_back(a);
  }
  return out;
}

// A word that names a file as written: not an unexpanded variable, a glob or a process substitution.
bool is_plain_path(std::string_view word) {
  if (word.empty() || word.size() > 400) return false;
  for (char c : word) {
    if (c == '$' || c == '*' || c == '?' || c == '`' || c == '\n' || c == '{' || c == '[') return false;
  }
  return word != "." && word != "..";
}

bool is_device(std::string_view path) { return path.starts_with("/dev/") || path == "-"; }

std::string basename_of(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  const std::size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

struct Reader {
  const SimpleCommand& command;
  ProgramReading& out;

  // A path as the reading names it: joined to a relative `cd` directory (`cd django && sed -i ... db/x.py`
  // names django/db/x.py); after an absolute one, as written (the paths an agent writes are relative
  // to its workspace, which is where it moves).
  std::string at(std::string_view path) const {
    const std::string& cwd = command.cwd;
    if (cwd.empty() || cwd.starts_with('/') || cwd.starts_with('~')) return std::string(path);
    return joined(cwd, path);
  }
  void change(FileChange kind, std::string_view path, std::string_view from = {}) const {
    if (!is_plain_path(path) || is_device(path)) return;
    out.changes.push_back({kind, at(path), from.empty() ? std::string() : at(from)});
  }
  void read(std::string_view path) const {
    if (!is_plain_path(path) || is_device(path)) return;
    std::string p = at(path);
    if (std::find(out.files_read.begin(), out.files_read.end(), p) == out.files_read.end()) out.files_read.push_back(std::move(p));
  }
  void changes(FileChange kind, const Words& paths) const {
    for (const auto& p : paths) change(kind, p);
  }
  void reads(const Words& paths) const {
    for (const auto& p : paths) read(p);
  }
  void patch(std::string_view text) const {
    for (const FileEffect& e : patch_changes(text)) change(e.change, e.path, e.from);
  }
  void script(std::string_view code) const {
    bool writes = false;
    for (const FileEffect& e : script_changes(code, &writes)) change(e.change, e.path, e.from);
  }
};

// What comes on the command's standard input from its own text: a heredoc's body or a here-string.
std::string stdin_text(const SimpleCommand& command) {
  for (const auto& r : command.redirections) {
    if ((r.op == "<<" || r.op == "<<-") && (r.fd == -1 || r.fd == 0)) return r.body;
    if (r.op == "<<<") return r.target;
  }
  return {};
}

std::string stdin_file(const SimpleCommand& command) {
  for (const auto& r : command.redirections) {
    if (r.op == "<" && (r.fd == -1 || r.fd == 0)) return r.target;
  }
  return {};
}

const std::string* body_written(const std::vector<std::pair<std::string, std::string>>& written, std::string_view path) {
  for (auto it = written.rbegin(); it != written.rend(); ++it) {
    if (it->first == path) return &it->second;
  }
  return nullptr;
}

// Wrappers that run the command after them: `sudo`, `env X=1`, `timeout 60`, `nice -n 5`, `xargs`,
// `npx`, `uv run`, `poetry run`, `bundle exec`, `conda run -n env`.
std::size_t unwrapped(const Words& w) {
  std::size_t i = 0;
  for (int guard = 0; guard < 8 && i < w.size(); ++guard) {
    const std::string name = program_name(w[i]);
    std::size_t next = i;
    if (one_of(name, {"sudo", "nohup", "nice", "ionice", "stdbuf", "command", "builtin", "exec", "time", "unbuffer", "chronic", "xargs",
                      "npx", "pnpx", "bunx"})) {
      next = i + 1;
      // Their options, and the values of those that take one.
      while (next < w.size() && is_option(w[next])) {
        const bool valued =
            one_of(w[next], {"-n", "-u", "-g", "-I", "-i", "-L", "-P", "-d", "-o", "-e", "-c", "-p", "-s"}) && name != "npx";
        next += valued ? 2 : 1;
      }
    } else if (name == "env") {
      next = i + 1;
      while (next < w.size() && (is_option(w[next]) || w[next].find('=') != std::string::npos)) ++next;
    } else if (name == "timeout") {
      next = i + 1;
      while (next < w.size() && is_option(w[next])) next += one_of(w[next], {"-s", "-k"}) ? 2 : 1;
      if (next < w.size()) ++next;  // the duration
    } else if ((name == "uv" || name == "poetry" || name == "pipenv" || name == "pdm" || name == "hatch" || name == "rye") &&
               i + 1 < w.size() && w[i + 1] == "run") {
      next = i + 2;
      while (next < w.size() && is_option(w[next])) ++next;
    } else if (name == "bundle" && i + 1 < w.size() && w[i + 1] == "exec") {
      next = i + 2;
    } else if ((name == "conda" || name == "mamba" || name == "micromamba") && i + 1 < w.size() && w[i + 1] == "run") {
      next = i + 2;
      while (next < w.size() && is_option(w[next])) next += one_of(w[next], {"-n", "-p", "--name", "--prefix"}) ? 2 : 1;
    }
    if (next == i || next >= w.size()) break;
    i = next;
  }
  return i;
}

bool is_reader_program(std::string_view p) {
  return one_of(p, {"cat", "tac", "head", "tail", "less", "more", "nl", "wc", "grep", "egrep", "fgrep", "rg", "ag", "ack", "ls", "ll",
                    "tree", "locate", "file", "stat", "du", "df", "pwd", "echo", "printf", "which", "whereis", "type", "diff", "cmp",
                    "comm", "uniq", "cut", "tr", "jq", "yq", "column", "fold", "xxd", "hexdump", "od", "strings", "basename", "dirname",
                    "realpath", "readlink", "printenv", "date", "whoami", "id", "uname", "hostname", "true", "false", "test", "[", "[[",
                    "sleep", "seq", "expr", "bc", "man", "help", "md5sum", "sha1sum", "sha256sum", "cksum", "paste", "join", "look", "cd",
                    "pushd", "popd", "export", "unset", "set", "alias", "shopt", "ulimit", "umask", "wait", "read", "history", "clear",
                    "exit", "return", "local", "declare", "typeset", "readonly", "shift", ":",
                    // the header of a compound command: `for f in a b`, `case $x in`
                    "for", "case", "select", "function", "in"});
}

// Readers whose operands are the files they print.
bool prints_its_files(std::string_view p) {
  return one_of(
      p, {"cat", "tac", "head", "tail", "less", "more", "nl", "wc", "file", "stat", "xxd", "hexdump", "od", "strings", "diff", "cmp"});
}

bool is_test_program(std::string_view p) {
  return one_of(p, {"pytest", "py.test", "tox", "nox",   "nosetests", "nose2",       "trial",    "behave",  "phpunit", "rspec", "jest",
                    "vitest", "mocha",   "ava", "karma", "ctest",     "runtests.py", "runtests", "jasmine", "tap",     "pest"});
}

// A test command's operands that name what it tests: "tests/test_x.py" of "tests/test_x.py::test_a",
// a module label ("auth_tests", "auth_tests.test_validators") or a package.
Words test_targets(const Words& args, std::size_t from) {
  Words out;
  for (const auto& a : operands(args, from, {"-k", "-m", "-p", "-c", "-n", "-t", "--settings", "--parallel", "-j", "--run", "-r"})) {
    std::string t = a.substr(0, a.find("::"));
    if (t.empty() || t.size() > 300 || !is_plain_path(t)) continue;
    out.push_back(t);
  }
  return out;
}

void note_tests(ProgramReading& out, const Words& args, std::size_t from) {
  out.runs_tests = true;
  for (auto& t : test_targets(args, from)) out.test_paths.push_back(std::move(t));
}

void read_python(const Reader& r, const Words& w, std::size_t i) {
  ProgramReading& out = r.out;
  for (std::size_t k = i + 1; k < w.size(); ++k) {
    const std::string& a = w[k];
    if (a == "-c" && k + 1 < w.size()) {
      const std::string& code = w[k + 1];
      bool writes = false;
      const auto changes = script_changes(code, &writes);
      for (const auto& e : changes) r.change(e.change, e.path, e.from);
      // A one-liner that prints a file (`print(open('x.py').read()[:2000])`) is a read.
      const bool prints_file = code.find("open(") != std::string::npos || code.find("read_text(") != std::string::npos ||
                               code.find("readlines(") != std::string::npos;
      const bool runs_more = code.find("subprocess") != std::string::npos || code.find("os.system") != std::string::npos ||
                             code.find("import ") != std::string::npos;
      if (!writes && prints_file && !runs_more) out.kind = ProgramClass::Reader;
      return;
    }
    if (a == "-m" && k + 1 < w.size()) {
      const std::string& module = w[k + 1];
      if (one_of(module, {"pytest", "unittest", "nose", "nose2", "tox", "test", "trial"})) note_tests(out, w, k + 2);
      if (module == "django" && k + 2 < w.size() && w[k + 2] == "test") note_tests(out, w, k + 3);
      if (module == "json.tool") out.kind = ProgramClass::Reader;
      if (one_of(module, {"black", "isort", "autopep8", "yapf", "ruff"})) {
        const Words files = operands(w, k + 2);
        const bool writes = module == "black" || module == "isort"
                                ? std::none_of(w.begin(), w.end(), [](const std::string& x) { return x == "--check" || x == "--diff"; })
                                : std::any_of(w.begin(), w.end(), [](const std::string& x) {
                                    return x == "-i" || x == "--in-place" || x == "--fix" || x == "format";
                                  });
        if (writes) {
          for (const auto& f : files) {
            if (f != "format" && f != "check") r.change(FileChange::Edited, f);
          }
        }
      }
      return;
    }
    if (a == "-" || !is_option(a)) {
      // `python - <<'PY'` or `python <<'PY'`: the program is the heredoc.
      if (a == "-") {
        r.script(stdin_text(r.command));
        return;
      }
      const std::string script = program_name(a);
      if (script == "runtests.py" || script.starts_with("test_") || script.ends_with("_test.py") || script == "tests.py")
        note_tests(out, w, k + 1);
      if (script == "manage.py" && k + 1 < w.size() && w[k + 1] == "test") note_tests(out, w, k + 2);
      if (script == "setup.py" && k + 1 < w.size() && w[k + 1] == "test") out.runs_tests = true;
      return;
    }
    if (one_of(a, {"-W", "-X", "-O", "-Q"}) && k + 1 < w.size() && a.size() == 2) ++k;
  }
  // No script named: the program comes on standard input.
  r.script(stdin_text(r.command));
}

void read_node(const Reader& r, const Words& w, std::size_t i) {
  for (std::size_t k = i + 1; k + 1 < w.size(); ++k) {
    if (w[k] == "-e" || w[k] == "--eval" || w[k] == "-p" || w[k] == "--print") {
      r.script(w[k + 1]);
      return;
    }
  }
  if (w.size() == i + 1 || (i + 1 < w.size() && w[i + 1] == "-")) r.script(stdin_text(r.command));
}

void read_sed(const Reader& r, const Words& w, std::size_t i) {
  bool in_place = false;
  bool has_script = false;
  Words rest;
  for (std::size_t k = i + 1; k < w.size(); ++k) {
    const std::string& a = w[k];
    if (a == "--in-place" || a.starts_with("--in-place=")) {
      in_place = true;
    } else if (a == "-e" || a == "--expression" || a == "-f" || a == "--file" || a == "-l" || a == "--line-length") {
      has_script = has_script || a != "-l";
      ++k;
    } else if (a.starts_with("--")) {
      has_script = has_script || a.starts_with("--expression=") || a.starts_with("--file=");
    } else if (is_option(a)) {
      // A bundle ("-ni", "-Ei", "-i.bak"): after `i` the rest is a backup suffix; `e` and `f` take the next word.
      for (std::size_t c = 1; c < a.size(); ++c) {
        if (a[c] == 'i') {
          in_place = true;
          break;
        }
        if (a[c] == 'e' || a[c] == 'f') {
          has_script = true;
          if (c + 1 == a.size()) ++k;
          break;
        }
      }
    } else {
      rest.push_back(a);
    }
  }
  if (!has_script && !rest.empty()) rest.erase(rest.begin());  // the script
  if (in_place) {
    r.changes(FileChange::Edited, rest);
  } else {
    r.out.kind = ProgramClass::Reader;
    r.reads(rest);
  }
}

void read_perl(const Reader& r, const Words& w, std::size_t i) {
  bool in_place = false;
  bool filter = false;
  bool has_code = false;
  Words rest;
  for (std::size_t k = i + 1; k < w.size(); ++k) {
    const std::string& a = w[k];
    if (is_option(a) && !a.starts_with("--")) {
      for (std::size_t c = 1; c < a.size(); ++c) {
        if (a[c] == 'i') {
          in_place = true;
          break;  // the rest of the bundle is a backup suffix
        }
        if (a[c] == 'p' || a[c] == 'n') filter = true;
        if (a[c] == 'e' || a[c] == 'E') {
          has_code = true;
          if (c + 1 == a.size()) ++k;
          break;
        }
        if (a[c] == 'M' || a[c] == 'I' || a[c] == 'l' || a[c] == '0') break;
      }
    } else if (!is_option(a)) {
      rest.push_back(a);
    }
  }
  if (!has_code && !rest.empty()) rest.erase(rest.begin());  // the program file
  if (in_place) {
    r.changes(FileChange::Edited, rest);
  } else if (filter) {
    r.out.kind = ProgramClass::Reader;
    r.reads(rest);
  }
}

// cp / mv / ln: sources and a destination (`-t DIR` names the destination first).
void read_copy(const Reader& r, const Words& w, std::size_t i, FileChange kind) {
  std::string target;
  Words args;
  bool options = true;
  for (std::size_t k = i + 1; k < w.size(); ++k) {
    const std::string& a = w[k];
    if (options && a == "--") {
      options = false;
    } else if (options && (a == "-t" || a == "--target-directory") && k + 1 < w.size()) {
      target = w[++k];
    } else if (options && a.starts_with("--target-directory=")) {
      target = a.substr(19);
    } else if (options && (a == "-S" || a == "--suffix") && k + 1 < w.size()) {
      ++k;
    } else if (!(options && is_option(a))) {
      args.push_back(a);
    }
  }
  if (!target.empty()) {
    if (!target.ends_with('/')) target += "/";
  } else {
    if (args.size() < 2) return;
    target = args.back();
    args.pop_back();
    if (args.size() > 1 && !target.ends_with('/')) target += "/";
  }
  for (const auto& source : args) {
    const std::string destination = target.ends_with('/') ? target + basename_of(source) : target;
    if (kind == FileChange::Moved) {
      if (is_plain_path(source)) r.change(FileChange::Moved, destination, source);
    } else {
      r.change(kind, destination);
    }
  }
}

void read_git(const Reader& r, const Words& w, std::size_t i, const std::vector<std::pair<std::string, std::string>>& written) {
  std::size_t k = i + 1;
  while (k < w.size() && is_option(w[k])) k += one_of(w[k], {"-C", "-c", "--git-dir", "--work-tree", "--namespace"}) ? 2 : 1;
  if (k >= w.size()) {
    r.out.kind = ProgramClass::Reader;
    return;
  }
  const std::string& sub = w[k];
  const Words ops = operands(w, k + 1);
  auto has = [&](std::string_view flag) { return std::find(w.begin() + static_cast<std::ptrdiff_t>(k), w.end(), flag) != w.end(); };
  if (one_of(sub, {"show",      "diff",     "log",      "status",     "blame",    "grep",        "ls-files", "ls-tree",
                   "rev-parse", "describe", "shortlog", "cat-file",   "reflog",   "whatchanged", "show-ref", "help",
                   "version",   "rev-list", "name-rev", "merge-base", "annotate", "check-ignore"})) {
    r.out.kind = ProgramClass::Reader;
  } else if (sub == "branch" || sub == "tag" || sub == "remote" || sub == "stash" || sub == "config") {
    const bool lists = ops.empty() || has("--list") || has("-l") || has("-a") || has("-r") || has("-v") || has("--get") ||
                       (sub == "stash" && (ops.front() == "list" || ops.front() == "show"));
    if (lists && !(sub == "stash" && ops.empty())) r.out.kind = ProgramClass::Reader;
  } else if (sub == "apply" || sub == "am") {
    if (has("--check") || has("--stat") || has("--numstat") || has("--summary")) {
      r.out.kind = ProgramClass::Reader;
      return;
    }
    const Words patches = operands(w, k + 1, {"-p", "-C", "--directory", "--exclude", "--include"});
    if (patches.empty() || patches.front() == "-") {
      r.patch(stdin_text(r.command));
      const std::string file = stdin_file(r.command);
      if (!file.empty()) {
        if (const std::string* body = body_written(written, r.at(file)))
          r.patch(*body);
        else
          r.out.patch_files.push_back(r.at(file));
      }
    }
    for (const auto& p : patches) {
      if (p == "-") continue;
      if (const std::string* body = body_written(written, r.at(p)))
        r.patch(*body);
      else
        r.out.patch_files.push_back(r.at(p));
    }
  } else if (sub == "mv") {
    read_copy(r, w, k, FileChange::Moved);
  } else if (sub == "rm") {
    if (!has("--cached")) r.changes(FileChange::Deleted, operands(w, k + 1));
  } else if (sub == "checkout" || sub == "restore") {
    // Files put back as they were: `git checkout -- a.py`, `git checkout HEAD -- a.py`, `git restore a.py`.
    const auto dashes = std::find(w.begin() + static_cast<std::ptrdiff_t>(k), w.end(), std::string("--"));
    if (dashes != w.end()) {
      for (auto it = dashes + 1; it != w.end(); ++it) r.change(FileChange::Edited, *it);
    } else if (sub == "restore" && !has("--staged")) {
      r.changes(FileChange::Edited, operands(w, k + 1, {"-s", "--source"}));
    }
  }
}

// Formatters and fixers that rewrite the files they are given.
bool read_formatter(const Reader& r, std::string_view p, const Words& w, std::size_t i) {
  auto has = [&](std::initializer_list<std::string_view> flags) {
    return std::any_of(w.begin() + static_cast<std::ptrdiff_t>(i), w.end(), [&](const std::string& a) { return one_of(a, flags); });
  };
  bool writes = false;
  if (one_of(p, {"black", "isort", "rustfmt"}))
    writes = !has({"--check", "--diff"});
  else if (one_of(p, {"autopep8", "yapf", "clang-format"}))
    writes = has({"-i", "--in-place"});
  else if (one_of(p, {"prettier"}))
    writes = has({"--write", "-w"});
  else if (one_of(p, {"eslint"}))
    writes = has({"--fix"});
  else if (one_of(p, {"gofmt", "goimports"}))
    writes = has({"-w"});
  else if (p == "ruff")
    writes = has({"format", "--fix"}) && !has({"--check", "--diff"});
  else
    return false;
  if (writes) {
    for (const auto& f : operands(w, i + 1, {"-l", "--line-length", "--config", "-c"})) {
      if (f != "format" && f != "check" && f != "." && f.find('.') != std::string::npos) r.change(FileChange::Edited, f);
    }
  }
  return true;
}

void read_find(const Reader& r, const Words& w, std::size_t i) {
  for (std::size_t k = i + 1; k < w.size(); ++k) {
    if (w[k] == "-delete" || w[k] == "-fprint" || w[k] == "-fls") return;  // a worker
    if ((w[k] == "-exec" || w[k] == "-execdir" || w[k] == "-ok" || w[k] == "-okdir") && k + 1 < w.size()) {
      const std::string p = normalized_program(w[k + 1]);
      if (p == "sed" || p == "perl") {
        const bool in_place = std::any_of(w.begin() + static_cast<std::ptrdiff_t>(k), w.end(), [](const std::string& a) {
          return a.starts_with("-i") || a.starts_with("--in-place") ||
                 (a.starts_with("-") && a.find('i') != std::string::npos && !a.starts_with("--"));
        });
        if (in_place) return;
      } else if (!is_reader_program(p)) {
        return;
      }
    }
  }
  r.out.kind = ProgramClass::Reader;
}

std::uint32_t fnv1a(std::string_view text) {
  std::uint32_t hash = 0x811c9dc5u;
  for (char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x01000193u;
  }
  return hash;
}

}  // namespace

std::string program_name(std::string_view word) {
  const std::size_t slash = word.rfind('/');
  return std::string(slash == std::string_view::npos ? word : word.substr(slash + 1));
}

std::string joined(std::string_view directory, std::string_view path) {
  if (directory.empty() || path.empty() || path.starts_with('/') || path.starts_with('~')) return std::string(path);
  std::string out(directory);
  while (path.starts_with("./")) path.remove_prefix(2);
  if (path == ".") return out;
  if (!out.ends_with('/')) out.push_back('/');
  out.append(path);
  return out;
}

ProgramReading read_program(const SimpleCommand& command, const std::vector<std::pair<std::string, std::string>>& written) {
  ProgramReading out;
  const Reader r{command, out};
  // Where its output goes: a file written (`> f`, `>> f`, `&> f`, `>& f`), never /dev/null or a descriptor.
  for (const auto& redirection : command.redirections) {
    const std::string& op = redirection.op;
    const bool to_file = op == ">" || op == ">|" || op == "&>" || op == ">>" || op == "&>>" || op == "<>" ||
                         (op == ">&" && redirection.target.find_first_not_of("0123456789-") != std::string::npos);
    if (!to_file || !is_plain_path(redirection.target) || is_device(redirection.target)) continue;
    r.change(FileChange::Edited, redirection.target);
    const std::string body = stdin_text(command);
    if ((op == ">" || op == ">|") && !body.empty()) out.bodies_written.emplace_back(r.at(redirection.target), body);
  }
  const Words& w = command.words;
  if (w.empty()) {
    out.kind = out.changes.empty() ? ProgramClass::Reader : ProgramClass::Worker;
    return out;
  }
  const std::size_t i = unwrapped(w);
  const std::string p = normalized_program(w[i]);
  if (w[0] == "command" && w.size() > 1 && one_of(w[1], {"-v", "-V"})) {
    out.kind = ProgramClass::Reader;  // `command -v tool` says where a tool is
  } else if (p == "python") {
    read_python(r, w, i);
  } else if (p == "node" || p == "deno" || p == "bun") {
    if (i + 1 < w.size() && w[i + 1] == "test")
      note_tests(out, w, i + 2);
    else
      read_node(r, w, i);
  } else if (p == "sed") {
    read_sed(r, w, i);
  } else if (p == "perl") {
    read_perl(r, w, i);
  } else if (p == "awk" || p == "gawk") {
    const bool in_place = std::find(w.begin(), w.end(), std::string("inplace")) != w.end();
    if (in_place) {
      Words files = operands(w, i + 1, {"-i", "-f", "-v", "-F"});
      if (!files.empty()) files.erase(files.begin());  // the program
      r.changes(FileChange::Edited, files);
    } else {
      out.kind = ProgramClass::Reader;
    }
  } else if (one_of(p, {"ed", "ex", "vi", "vim", "nvim", "nano", "emacs"})) {
    const Words files = operands(w, i + 1, {"-c", "-u"});
    if (!files.empty()) r.change(FileChange::Edited, files.front());
  } else if (p == "tee") {
    out.kind = ProgramClass::Filter;
    r.changes(FileChange::Edited, operands(w, i + 1));
    const std::string body = stdin_text(command);
    if (!body.empty()) {
      for (const auto& f : operands(w, i + 1)) out.bodies_written.emplace_back(r.at(f), body);
    }
  } else if (p == "cp" || p == "install") {
    read_copy(r, w, i, FileChange::Created);
  } else if (p == "mv") {
    read_copy(r, w, i, FileChange::Moved);
  } else if (p == "ln") {
    const Words ops = operands(w, i + 1, {"-t", "-S"});
    if (ops.size() >= 2) r.change(FileChange::Created, ops.back());
  } else if (p == "rm" || p == "unlink" || p == "rmdir") {
    r.changes(FileChange::Deleted, operands(w, i + 1));
  } else if (p == "touch") {
    r.changes(FileChange::Created, operands(w, i + 1, {"-d", "-t", "-r"}));
  } else if (p == "truncate") {
    r.changes(FileChange::Edited, operands(w, i + 1, {"-s", "-r", "--size", "--reference"}));
  } else if (p == "patch") {
    const Words ops = operands(w, i + 1, {"-p", "-i", "--input", "-d", "--directory", "-o", "--output", "-F", "-B", "-r"});
    std::string file;
    for (std::size_t k = i + 1; k + 1 < w.size(); ++k) {
      if (w[k] == "-i" || w[k] == "--input") file = w[k + 1];
    }
    if (file.empty()) file = stdin_file(command);
    if (!ops.empty()) r.change(FileChange::Edited, ops.front());
    r.patch(stdin_text(command));
    if (!file.empty()) {
      if (const std::string* body = body_written(written, r.at(file)))
        r.patch(*body);
      else
        out.patch_files.push_back(r.at(file));
    }
  } else if (p == "apply_patch" || p == "applypatch") {
    r.patch(i + 1 < w.size() ? std::string_view(w[i + 1]) : std::string_view(stdin_text(command)));
  } else if (one_of(p, {"open", "goto", "scroll_up", "scroll_down", "search_dir", "search_file", "find_file"})) {
    // SWE-agent's interface: its file viewer and searches read.
    out.kind = ProgramClass::Reader;
    if (p == "open" && i + 1 < w.size()) r.read(w[i + 1]);
  } else if (p == "create" && i + 1 < w.size() && w.size() <= i + 2) {
    r.change(FileChange::Created, w[i + 1]);  // SWE-agent's `create path`
  } else if (p == "git") {
    read_git(r, w, i, written);
  } else if (p == "find") {
    read_find(r, w, i);
  } else if (p == "sort") {
    const auto o = std::find(w.begin(), w.end(), std::string("-o"));
    if (o != w.end() && o + 1 != w.end())
      r.change(FileChange::Edited, *(o + 1));
    else
      out.kind = ProgramClass::Reader;
  } else if (p == "pip" || p == "npm" || p == "yarn" || p == "pnpm" || p == "go" || p == "cargo" || p == "make" || p == "mvn" ||
             p == "gradle" || p == "gradlew" || p == "dotnet" || p == "rake" || p == "mix" || p == "swift") {
    if (p == "pip" && i + 1 < w.size() && one_of(w[i + 1], {"show", "list", "freeze", "search", "index"})) out.kind = ProgramClass::Reader;
    const std::string sub = i + 1 < w.size() ? w[i + 1] : std::string();
    const bool test = sub == "test" || sub == "tests" || sub == "check" || sub == "nextest" || sub == "verify" || sub == "spec" ||
                      (sub == "run" && i + 2 < w.size() && w[i + 2].starts_with("test"));
    if (test && p != "pip") note_tests(out, w, sub == "run" ? i + 3 : i + 2);
  } else if (is_test_program(p) || (p == "test" && w[i].find('/') != std::string::npos)) {
    note_tests(out, w, i + 1);
  } else if (read_formatter(r, p, w, i)) {
    // a formatter: a worker, its files changed when it writes them
  } else if (is_reader_program(p)) {
    // An echo or printf into a file is the redirection's change; the program itself reads.
    out.kind = ProgramClass::Reader;
    if (prints_its_files(p)) r.reads(operands(w, i + 1, {"-n", "-c", "-s", "-w", "-C", "-B", "-A", "-L", "--lines", "--bytes"}));
    if (p == "grep" || p == "egrep" || p == "fgrep") {
      Words ops = operands(w, i + 1, {"-e", "-f", "-m", "-A", "-B", "-C", "--include", "--exclude", "--exclude-dir", "-d", "-D"});
      const bool pattern_given =
          std::any_of(w.begin() + static_cast<std::ptrdiff_t>(i), w.end(), [](const std::string& a) { return a == "-e" || a == "-f"; });
      if (!pattern_given && !ops.empty()) ops.erase(ops.begin());
      for (const auto& f : ops) {
        if (f.find('.') != std::string::npos && f.back() != '/') r.read(f);
      }
    }
  }
  // A command whose only output is a file it writes (echo "x" > f) did work.
  if (!out.changes.empty() && out.kind == ProgramClass::Reader) out.kind = ProgramClass::Worker;
  return out;
}

std::string run_key(const SimpleCommand& command) {
  const Words& w = command.words;
  std::string key;
  if (w.empty()) return key;
  const std::size_t i = unwrapped(w);
  key = normalized_program(w[i]);
  for (std::size_t k = i + 1; k < w.size() && key.size() < 400; ++k) {
    if (is_option(w[k])) continue;
    key.push_back(' ');
    key.append(w[k]);
  }
  const std::string body = stdin_text(command);
  if (!body.empty()) {
    char hash[16];
    std::snprintf(hash, sizeof hash, " <<%08x", static_cast<unsigned>(fnv1a(body)));
    key.append(hash);
  }
  // Whitespace inside a word (a -c program) collapsed, so that the key is one line.
  std::string out;
  bool space = false;
  for (char c : key) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = !out.empty();
      continue;
    }
    // Bounded, and cut before a code point's first byte.
    if (out.size() >= 400 && (static_cast<unsigned char>(c) & 0xC0) != 0x80) break;
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

}  // namespace ctxwin
