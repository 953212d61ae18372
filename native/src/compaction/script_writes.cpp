#include "ctxwin/compaction/script_writes.hpp"

#include <algorithm>
#include <initializer_list>
#include <iterator>
#include <string>

namespace ctxwin {

namespace {

bool is_ident(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

struct Literal {
  std::size_t start = 0;  // its prefix or opening quote
  std::size_t end = 0;    // after its closing quote
  std::string value;
};

// The string literals of a Python or JavaScript program, comments skipped: '...', "...", '''...''',
// """...""", `...`, with r / b / f / u prefixes. Escapes are kept as written (a path has none).
std::vector<Literal> literals_of(std::string_view code) {
  std::vector<Literal> out;
  std::size_t i = 0;
  while (i < code.size() && out.size() < 4096) {
    const char c = code[i];
    if (c == '#') {
      // A Python comment (`#` in JavaScript is a private name: rare in an agent's one-liner).
      while (i < code.size() && code[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < code.size() && code[i + 1] == '/' && (i == 0 || code[i - 1] != ':')) {
      while (i < code.size() && code[i] != '\n') ++i;
      continue;
    }
    if (c != '\'' && c != '"' && c != '`') {
      ++i;
      continue;
    }
    std::size_t start = i;
    while (start > 0 && start + 2 >= i && std::string_view("rRbBfFuU").find(code[start - 1]) != std::string_view::npos) --start;
    if (start > 0 && is_ident(code[start - 1])) start = i;  // `x'` is not a prefix
    const bool triple = i + 2 < code.size() && code[i + 1] == c && code[i + 2] == c;
    const std::string_view quote = code.substr(i, triple ? 3 : 1);
    std::size_t j = i + quote.size();
    std::string value;
    while (j < code.size()) {
      if (code.substr(j, quote.size()) == quote) break;
      if (code[j] == '\\' && j + 1 < code.size()) {
        value.push_back(code[j]);
        value.push_back(code[j + 1]);
        j += 2;
        continue;
      }
      if (!triple && c != '`' && code[j] == '\n') break;  // an unclosed one-line string
      value.push_back(code[j++]);
    }
    const std::size_t end = std::min(code.size(), j + quote.size());
    out.push_back({start, end, std::move(value)});
    i = end;
  }
  return out;
}

bool has_known_extension(std::string_view text) {
  const std::size_t dot = text.rfind('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 >= text.size()) return false;
  const std::string_view ext = text.substr(dot + 1);
  for (std::string_view known :
       {"py",   "pyi",  "js",  "mjs",  "cjs",  "ts",  "tsx",  "jsx", "json", "md",  "rst", "txt", "cfg",    "toml", "yaml", "yml",
        "ini",  "html", "css", "scss", "c",    "h",   "cc",   "cpp", "hpp",  "go",  "rs",  "rb",  "java",   "kt",   "sh",   "patch",
        "diff", "csv",  "xml", "sql",  "lock", "env", "conf", "in",  "pyx",  "pxd", "tex", "vue", "svelte", "php",  "swift"}) {
    if (ext == known) return true;
  }
  return false;
}

class Scanner {
 public:
  explicit Scanner(std::string_view code) : code_(code), literals_(literals_of(code)) { bind_names(); }

  std::vector<FileEffect> run(bool* writes) {
    method_calls({".write_text(", ".write_bytes(", ".write("}, FileChange::Edited, /*mode_arg=*/false);
    method_calls({".unlink("}, FileChange::Deleted, false);
    method_calls({".open("}, FileChange::Edited, true);
    open_calls();
    two_path_calls({"shutil.copyfile(", "shutil.copy2(", "shutil.copy(", "copyFileSync(", "fs.copyFile("}, FileChange::Created);
    two_path_calls({"shutil.move(", "os.rename(", "os.replace(", "renameSync(", "fs.rename("}, FileChange::Moved);
    one_path_calls({"os.remove(", "os.unlink(", "unlinkSync(", "rmSync(", "fs.unlink(", "fs.rm("}, FileChange::Deleted);
    one_path_calls({"writeFileSync(", "appendFileSync(", "fs.writeFile(", "fs.appendFile(", "writeFile("}, FileChange::Edited);
    inplace_calls();
    if (writes_ && changes_.empty()) {
      // It writes, but through a name no literal binds: a read-modify-write program writes back what it read.
      for (const auto& path : read_) add(0, FileChange::Edited, path);
      if (changes_.empty()) {
        for (const auto& l : literals_) {
          if (looks_like_file_literal(l.value)) add(l.start, FileChange::Edited, l.value);
        }
      }
    }
    if (writes != nullptr) *writes = writes_;
    std::stable_sort(changes_.begin(), changes_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<FileEffect> out;
    for (auto& [at, effect] : changes_) out.push_back(std::move(effect));
    return out;
  }

 private:
  const Literal* literal_at(std::size_t pos) const {
    while (pos < code_.size() && is_space(code_[pos])) ++pos;
    auto it = std::lower_bound(literals_.begin(), literals_.end(), pos, [](const Literal& l, std::size_t p) { return l.start < p; });
    return it != literals_.end() && it->start == pos ? &*it : nullptr;
  }

  std::string identifier_at(std::size_t pos, std::size_t* end = nullptr) const {
    while (pos < code_.size() && is_space(code_[pos])) ++pos;
    std::size_t e = pos;
    while (e < code_.size() && is_ident(code_[e])) ++e;
    if (end != nullptr) *end = e;
    return std::string(code_.substr(pos, e - pos));
  }

  bool in_literal(std::size_t pos) const {
    // The last literal starting at or before `pos` (literals are in order and do not overlap).
    auto it = std::upper_bound(literals_.begin(), literals_.end(), pos, [](std::size_t p, const Literal& l) { return p < l.start; });
    return it != literals_.begin() && pos < std::prev(it)->end;
  }

  // A path literal at `pos`, or a name bound to one: `'x.py'`, `Path('x.py')`, `p`.
  std::string path_at(std::size_t pos, std::size_t* after = nullptr, int depth = 0) const {
    while (pos < code_.size() && is_space(code_[pos])) ++pos;
    if (const Literal* l = literal_at(pos)) {
      if (after != nullptr) *after = l->end;
      return looks_like_file_literal(l->value) ? l->value : std::string();
    }
    std::size_t end = pos;
    const std::string name = identifier_at(pos, &end);
    if (name.empty()) return {};
    if ((name == "Path" || name == "pathlib") && end < code_.size() && depth < 2) {
      // Path('x') / pathlib.Path('x')
      const std::size_t open = code_.substr(end, 8).find('(');
      if (open != std::string_view::npos) return path_at(end + open + 1, after, depth + 1);
    }
    if (after != nullptr) *after = end;
    for (const auto& [bound, path] : names_) {
      if (bound == name) return path;
    }
    return {};
  }

  // `name = 'x.py'`, `name = Path('x.py')`, `name = pathlib.Path("x.py")`.
  void bind_names() {
    for (std::size_t i = 0; i < code_.size(); ++i) {
      if (code_[i] != '=' || (i + 1 < code_.size() && code_[i + 1] == '=') ||
          (i > 0 && std::string_view("=!<>+-*/%&|^:").find(code_[i - 1]) != std::string_view::npos))
        continue;
      if (in_literal(i)) continue;
      std::size_t k = i;
      while (k > 0 && is_space(code_[k - 1])) --k;
      std::size_t s = k;
      while (s > 0 && is_ident(code_[s - 1])) --s;
      if (s == k) continue;
      const std::string name(code_.substr(s, k - s));
      const std::string path = path_at(i + 1);
      if (!path.empty()) names_.emplace_back(name, path);
      if (names_.size() >= 256) return;
    }
  }

  // `at`: where in the program the change is made; the changes are listed in that order.
  void add(std::size_t at, FileChange change, const std::string& path, const std::string& from = {}) {
    if (path.empty()) return;
    for (const auto& [where, c] : changes_) {
      if (c.path == path && c.change == change) return;
    }
    changes_.emplace_back(at, FileEffect{change, path, from});
  }

  void note_read(const std::string& path) {
    if (!path.empty() && std::find(read_.begin(), read_.end(), path) == read_.end()) read_.push_back(path);
  }

  // Where each `needle` occurs outside string literals (the first kMaxCalls: a program that
  // writes more files than that is not an edit a summary lists one by one).
  std::vector<std::size_t> occurrences(std::string_view needle) const {
    static constexpr std::size_t kMaxCalls = 256;
    std::vector<std::size_t> out;
    for (std::size_t at = code_.find(needle); at != std::string_view::npos && out.size() < kMaxCalls; at = code_.find(needle, at + 1)) {
      if (!in_literal(at)) out.push_back(at);
    }
    return out;
  }

  // A mode literal after the call's first argument: `open(p, 'w')`, `open(p, mode="a")`, `p.open("w")`.
  std::string mode_after(std::size_t pos) const {
    while (pos < code_.size() && is_space(code_[pos])) ++pos;
    if (pos < code_.size() && code_[pos] == ',') ++pos;
    while (pos < code_.size() && is_space(code_[pos])) ++pos;
    if (code_.substr(pos, 5) == "mode=") pos += 5;
    const Literal* l = literal_at(pos);
    return l != nullptr && l->value.size() <= 4 ? l->value : std::string();
  }

  static bool writes_mode(std::string_view mode) { return mode.find_first_of("wax+") != std::string_view::npos; }

  // The receiver of `.method(` at `dot`: `Path('x')`, `p`.
  std::string receiver(std::size_t dot) const {
    std::size_t k = dot;
    if (k > 0 && code_[k - 1] == ')') {
      int depth = 0;
      std::size_t j = k;
      const std::size_t floor = k > 400 ? k - 400 : 0;  // a receiver is short; bounded on hostile input
      while (j > floor) {
        --j;
        if (code_[j] == ')') ++depth;
        if (code_[j] == '(' && --depth == 0) break;
      }
      std::size_t s = j;
      while (s > 0 && (is_ident(code_[s - 1]) || code_[s - 1] == '.')) --s;
      const std::string_view callee = code_.substr(s, j - s);
      if (callee.ends_with("Path")) return path_at(j + 1);
      return {};
    }
    std::size_t s = k;
    while (s > 0 && is_ident(code_[s - 1])) --s;
    if (s == k) return {};
    return path_at(s);
  }

  void method_calls(std::initializer_list<std::string_view> needles, FileChange change, bool mode_arg) {
    for (std::string_view needle : needles) {
      for (std::size_t at : occurrences(needle)) {
        if (mode_arg && !writes_mode(mode_after(at + needle.size()))) {
          note_read(receiver(at));
          continue;
        }
        // `.write(` on a file object opened elsewhere: it writes; open() names the file.
        writes_ = true;
        if (needle != ".write(") add(at, change, receiver(at));
      }
    }
    for (std::size_t at : occurrences(".read_text(")) note_read(receiver(at));
    for (std::size_t at : occurrences(".read_bytes(")) note_read(receiver(at));
  }

  void open_calls() {
    for (std::size_t at : occurrences("open(")) {
      if (at > 0 && (is_ident(code_[at - 1]))) continue;  // fopen(, reopen(
      if (at > 0 && code_[at - 1] == '.') {
        const bool module = (at >= 3 && code_.substr(at - 3, 3) == "io.") || (at >= 7 && code_.substr(at - 7, 7) == "codecs.");
        if (!module) continue;  // a method: handled with `.open(`
      }
      std::size_t after = at + 5;
      const std::string path = path_at(at + 5, &after);
      const std::string mode = mode_after(after);
      if (writes_mode(mode)) {
        writes_ = true;
        add(at, FileChange::Edited, path);
      } else {
        note_read(path);
      }
    }
  }

  void two_path_calls(std::initializer_list<std::string_view> needles, FileChange change) {
    for (std::string_view needle : needles) {
      for (std::size_t at : occurrences(needle)) {
        if (at > 0 && is_ident(code_[at - 1]) && needle.front() != '.') continue;
        writes_ = true;
        std::size_t after = at + needle.size();
        const std::string from = path_at(after, &after);
        while (after < code_.size() && is_space(code_[after])) ++after;
        if (after < code_.size() && code_[after] == ',') ++after;
        const std::string to = path_at(after);
        if (change == FileChange::Moved) {
          if (!to.empty()) add(at, change, to, from);
        } else {
          add(at, change, to);
        }
      }
    }
  }

  void one_path_calls(std::initializer_list<std::string_view> needles, FileChange change) {
    for (std::string_view needle : needles) {
      for (std::size_t at : occurrences(needle)) {
        if (at > 0 && is_ident(code_[at - 1])) continue;
        writes_ = true;
        add(at, change, path_at(at + needle.size()));
      }
    }
  }

  // fileinput.input('x.py', inplace=True) / FileInput(['a.py', 'b.py'], inplace=True)
  void inplace_calls() {
    for (std::string_view needle : {"fileinput.input(", "FileInput("}) {
      for (std::size_t at : occurrences(needle)) {
        const std::size_t close = code_.substr(0, std::min(code_.size(), at + 600)).find(')', at);
        const std::string_view call = code_.substr(at, close == std::string_view::npos ? std::string_view::npos : close - at);
        if (call.find("inplace=True") == std::string_view::npos && call.find("inplace=1") == std::string_view::npos) continue;
        writes_ = true;
        for (const auto& l : literals_) {
          if (l.start > at && l.end <= at + call.size() && looks_like_file_literal(l.value)) add(at, FileChange::Edited, l.value);
        }
        std::size_t after = at + needle.size();
        const std::string bound = path_at(after);
        if (!bound.empty()) add(at, FileChange::Edited, bound);
      }
    }
  }

  std::string_view code_;
  std::vector<Literal> literals_;
  std::vector<std::pair<std::string, std::string>> names_;
  std::vector<std::pair<std::size_t, FileEffect>> changes_;
  std::vector<std::string> read_;
  bool writes_ = false;
};

}  // namespace

bool looks_like_file_literal(std::string_view text) {
  if (text.empty() || text.size() > 300 || text.starts_with("http:") || text.starts_with("https:")) return false;
  for (char c : text) {
    if (is_space(c) || std::string_view("{}$*?\\\"'`()[]|,;<>=^").find(c) != std::string_view::npos || static_cast<unsigned char>(c) < 0x20)
      return false;
  }
  if (text.find('/') != std::string_view::npos) {
    // A directory alone, a fraction or a date is not a file.
    return !text.ends_with('/') &&
           std::any_of(text.begin(), text.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); });
  }
  return has_known_extension(text);
}

std::vector<FileEffect> script_changes(std::string_view code, bool* writes) {
  if (code.size() > (1u << 20)) code = code.substr(0, 1u << 20);
  return Scanner(code).run(writes);
}

}  // namespace ctxwin
