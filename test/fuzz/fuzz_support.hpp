// Shared by the libFuzzer targets: the rank data folder and a check that aborts with a message
// (libFuzzer reports the abort as a finding and keeps the input that caused it).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#ifndef CTXWIN_RANK_DATA_DIR
#error "CTXWIN_RANK_DATA_DIR must name the folder of the .tiktoken files"
#endif

namespace ctxwin::fuzz {

inline const std::string& rank_data_dir() {
  static const std::string dir = CTXWIN_RANK_DATA_DIR;
  return dir;
}

[[noreturn]] inline void fail(const char* what, const char* file, int line) {
  std::fprintf(stderr, "fuzz invariant broken at %s:%d: %s\n", file, line, what);
  std::abort();
}

}  // namespace ctxwin::fuzz

#define FUZZ_CHECK(condition)                                               \
  do {                                                                      \
    if (!(condition)) ::ctxwin::fuzz::fail(#condition, __FILE__, __LINE__); \
  } while (0)
