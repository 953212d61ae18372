// The files a short Python or JavaScript program writes, as far as its string literals say. Agents
// edit files with `python - <<'PY'` programs (read, replace, write back) and `python -c` / `node -e`
// one-liners; a summary lists what they changed, and a program that writes nothing and only prints
// a file is a read.
//
//   bool writes = false;
//   script_changes("p = Path('src/x.py')\ns = p.read_text()\np.write_text(s.replace('a', 'b'))", &writes);
//   // {{Edited, "src/x.py"}}, writes == true
#pragma once

#include <string_view>
#include <vector>

#include "ctxwin/compaction/file_effect.hpp"

namespace ctxwin {

// Recognised: `open('f', 'w' | 'a' | 'x' | 'r+', ...)` (a name bound to a path literal as well),
// `Path('f').write_text(...)` / `.write_bytes(...)` / `.unlink()` and a name bound to `Path('f')`,
// `shutil.copy*` / `shutil.move`, `os.rename` / `os.replace` / `os.remove` / `os.unlink`,
// `fileinput.input('f', inplace=True)`, `fs.writeFileSync('f', ...)` and its append, rename, copy
// and unlink kin. `writes` (optional) is set when the program writes at all: when it does but no
// literal names the file, the files it reads (`Path('f').read_text()`, `open('f')`) are taken to be
// the ones it writes back, else every path literal in it.
std::vector<FileEffect> script_changes(std::string_view code, bool* writes = nullptr);

// A string literal that names a file: no blanks or braces, and a directory separator or an extension.
bool looks_like_file_literal(std::string_view text);

}  // namespace ctxwin
