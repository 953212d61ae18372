#include "ctxwin/compaction/patch_text.hpp"

#include <algorithm>
#include <string>

namespace ctxwin {

namespace {

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// The path of a `--- a/x` / `+++ b/x` line: its timestamp after a tab gone, the a/ or b/ prefix off.
std::string diff_path(std::string_view rest) {
  rest = trimmed(rest);
  const std::size_t tab = rest.find('\t');
  if (tab != std::string_view::npos) rest = trimmed(rest.substr(0, tab));
  if (rest.size() > 1 && rest.front() == '"' && rest.back() == '"') rest = rest.substr(1, rest.size() - 2);
  if (rest.starts_with("a/") || rest.starts_with("b/")) rest.remove_prefix(2);
  return std::string(rest);
}

void add(std::vector<FileEffect>& out, FileEffect effect) {
  if (effect.path.empty() || effect.path == "/dev/null") return;
  for (auto& e : out) {
    if (e.path == effect.path) {
      if (effect.change != FileChange::Edited) e = std::move(effect);
      return;
    }
  }
  out.push_back(std::move(effect));
}

}  // namespace

std::vector<FileEffect> patch_changes(std::string_view patch) {
  std::vector<FileEffect> out;
  std::string minus;  // the `---` path of the file being read
  std::string rename_from;
  std::string envelope_update;  // an apply_patch `*** Update File:` waiting for a `*** Move to:`
  std::size_t start = 0;
  while (start < patch.size()) {
    std::size_t end = patch.find('\n', start);
    if (end == std::string_view::npos) end = patch.size();
    const std::string_view line = patch.substr(start, end - start);
    start = end + 1;
    if (line.starts_with("*** ")) {
      const std::string_view rest = line.substr(4);
      if (rest.starts_with("Update File:")) {
        envelope_update = std::string(trimmed(rest.substr(12)));
        add(out, {FileChange::Edited, envelope_update, {}});
      } else if (rest.starts_with("Add File:")) {
        add(out, {FileChange::Created, std::string(trimmed(rest.substr(9))), {}});
      } else if (rest.starts_with("Delete File:")) {
        add(out, {FileChange::Deleted, std::string(trimmed(rest.substr(12))), {}});
      } else if (rest.starts_with("Move to:") && !envelope_update.empty()) {
        const std::string to(trimmed(rest.substr(8)));
        out.erase(std::remove_if(out.begin(), out.end(), [&](const FileEffect& e) { return e.path == envelope_update; }), out.end());
        add(out, {FileChange::Moved, to, envelope_update});
        envelope_update.clear();
      }
      continue;
    }
    if (line.starts_with("--- ")) {
      minus = diff_path(line.substr(4));
    } else if (line.starts_with("+++ ") && !minus.empty()) {
      const std::string plus = diff_path(line.substr(4));
      if (plus == "/dev/null")
        add(out, {FileChange::Deleted, minus, {}});
      else if (minus == "/dev/null")
        add(out, {FileChange::Created, plus, {}});
      else if (minus != plus)
        add(out, {FileChange::Moved, plus, minus});
      else
        add(out, {FileChange::Edited, plus, {}});
      minus.clear();
    } else if (line.starts_with("rename from ")) {
      rename_from = std::string(trimmed(line.substr(12)));
    } else if (line.starts_with("rename to ") && !rename_from.empty()) {
      add(out, {FileChange::Moved, std::string(trimmed(line.substr(10))), rename_from});
      rename_from.clear();
    } else if (line.starts_with("deleted file mode") || line.starts_with("new file mode")) {
      // the --- / +++ lines that follow say which file
    }
  }
  return out;
}

}  // namespace ctxwin
