// Fuzzes the loader of outside rank data (a `.tiktoken` file, as a custom rankDataDir supplies):
// parse any bytes; what parses must answer lookups consistently, and an Encoding built on it must
// count and encode a text without crashing (or refuse it with a ctxwin::Error).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ctxwin/error.hpp"
#include "ctxwin/tokenizer/bpe/encoding.hpp"
#include "ctxwin/tokenizer/bpe/rank_table.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view contents(reinterpret_cast<const char*>(data), size);
  try {
    ctxwin::RankTable ranks = ctxwin::RankTable::parse(contents, "fuzz.tiktoken");
    for (std::uint32_t rank = 0; rank < 64; ++rank) {
      const std::string_view bytes = ranks.bytes_of(rank);
      if (!bytes.empty()) FUZZ_CHECK(ranks.rank_of(bytes) == rank);
    }
    const ctxwin::Encoding encoding("fuzz", ctxwin::Pattern::Cl100k, std::move(ranks), {});
    const std::string_view text = "Hello, world! 12345 héllo 日本語 \xF0\x9F\x99\x82";
    const std::size_t count = encoding.count(text);
    FUZZ_CHECK(count == encoding.encode(text).size());
  } catch (const ctxwin::Error&) {
    // Malformed rank data is refused with an error: what a caller's rankDataDir gets.
  }
  return 0;
}
