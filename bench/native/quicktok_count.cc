// quicktok (https://github.com/dmatth1/quicktok, MIT, built from a clone: docs/benchmarks.md) counting
// files the way ctxwin_count.cc does. quicktok keeps a memo of token-pair validity inside its
// Tokenizer, filled as it encodes; a pass starts with a freshly loaded Tokenizer so that the memo
// is as cold as ctxwin's piece cache (the load is not timed).
//
//   build-bench/quicktok_count <cl100k_base|o200k_base> <clone>/data <passes> <file>...
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "count_driver.hpp"
#include "quicktok.hpp"

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s <encoding> <quicktok data dir> <passes> <file>...\n", argv[0]);
    return 2;
  }
  try {
    const std::string encoding = argv[1];
    const std::string data = argv[2];
    std::optional<quicktok::Tokenizer> tokenizer;
    tokenizer.emplace(quicktok::Tokenizer::load_dir(data, encoding));
    bench::Counter counter{
        [&] {
          tokenizer.reset();
          tokenizer.emplace(quicktok::Tokenizer::load_dir(data, encoding));
        },
        [&](std::string_view text) { return tokenizer->count(text); },
    };
    return bench::run(std::vector<std::string>(argv + 4, argv + argc), std::atoi(argv[3]), counter);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
}
