// A change a tool call makes to a file, as the call says it (a shell command, an edit tool's
// arguments, a patch): what a summary lists as "Files changed".
#pragma once

#include <string>

namespace ctxwin {

enum class FileChange { Edited, Created, Deleted, Moved };

struct FileEffect {
  FileChange change = FileChange::Edited;
  // The file as the call names it ("src/x.py", "/tmp/repro.py").
  std::string path;
  // A move's source.
  std::string from;

  bool operator==(const FileEffect&) const = default;
};

}  // namespace ctxwin
