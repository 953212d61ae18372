// How a FileEffect prints in a failed expectation ("moved src/b.py from src/a.py").
#pragma once

#include <ostream>

#include "ctxwin/compaction/file_effect.hpp"

namespace ctxwin {

inline void PrintTo(const FileEffect& e, std::ostream* os) {
  static constexpr const char* kNames[] = {"edited", "created", "deleted", "moved"};
  *os << kNames[static_cast<int>(e.change)] << " " << e.path << (e.from.empty() ? "" : " from " + e.from);
}

}  // namespace ctxwin
