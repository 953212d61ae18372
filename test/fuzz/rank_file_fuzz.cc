// Fuzzes the reader of the package's compact rank files (data/openai/*.bin, or a caller's
// rankDataDir holding `<encoding>.bin`): parse any bytes; what parses must answer lookups
// consistently, and an Encoding built on it must count and encode a text without crashing (or
// refuse it with a ctxwin::Error). Nothing may be sized by what the header claims.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ctxwin/error.hpp"
#include "ctxwin/tokenizer/bpe/encoding.hpp"
#include "ctxwin/tokenizer/bpe/rank_file.hpp"
#include "ctxwin/tokenizer/bpe/rank_table.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Most inputs get the magic, so that the fuzzer spends its time past it.
  std::string contents(reinterpret_cast<const char*>(data), size);
  if (size > 0 && (data[0] & 1) == 0) contents = std::string(ctxwin::kRankFileMagic) + contents.substr(1);
  try {
    ctxwin::RankTable ranks = ctxwin::parse_rank_file(contents, "fuzz.bin");
    for (std::uint32_t rank = 0; rank < 300; ++rank) {
      const std::string_view bytes = ranks.bytes_of(rank);
      if (!bytes.empty()) FUZZ_CHECK(ranks.rank_of(bytes) == rank);
    }
    const ctxwin::Encoding encoding("fuzz", ctxwin::Pattern::Cl100k, std::move(ranks), {});
    const std::string_view text = "Hello, world! 12345 héllo 日本語 \xF0\x9F\x99\x82";
    FUZZ_CHECK(encoding.count(text) == encoding.encode(text).size());
  } catch (const ctxwin::Error&) {
    // Malformed rank data is refused with an error.
  }
  return 0;
}
