// ctxwin's core counting files the way bench/held-out.ts counts them through Node, without Node:
// the native-vs-native comparison beside quicktok_count. A pass starts with an empty piece cache
// ("unseen text", as TiktokenCounter.clearPieceCaches() makes it in Node).
//
//   build-bench/ctxwin_count <cl100k_base|o200k_base> data/openai <passes> <file>...
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "count_driver.hpp"
#include "ctxwin/tokenizer/bpe/encoding.hpp"

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s <encoding> <rank data dir> <passes> <file>...\n", argv[0]);
    return 2;
  }
  try {
    const ctxwin::Encoding& encoding = ctxwin::Encoding::get(argv[1], argv[2]);
    std::unique_ptr<ctxwin::CountCache> cache = encoding.new_cache();
    bench::Counter counter{
        [&] { cache->clear(); },
        [&](std::string_view text) { return encoding.count(text, cache.get()); },
    };
    return bench::run(std::vector<std::string>(argv + 4, argv + argc), std::atoi(argv[3]), counter);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
}
