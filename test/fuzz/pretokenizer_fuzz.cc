// Fuzzes the three pretokenizer patterns (r50k/p50k, cl100k, o200k) on repaired UTF-8: pieces are
// never empty, follow each other without gaps, and cover the text exactly.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ctxwin/tokenizer/bpe/pretokenizer.hpp"
#include "ctxwin/tokenizer/utf8.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = ctxwin::repair_utf8(std::string_view(reinterpret_cast<const char*>(data), size));
  for (const auto pattern : {ctxwin::Pattern::R50k, ctxwin::Pattern::Cl100k, ctxwin::Pattern::O200k}) {
    ctxwin::Pretokenizer pretokenizer(pattern, text);
    std::string_view piece;
    std::size_t covered = 0;
    while (pretokenizer.next(piece)) {
      FUZZ_CHECK(!piece.empty());
      FUZZ_CHECK(piece.data() == text.data() + covered);  // contiguous, in order
      covered += piece.size();
      FUZZ_CHECK(covered <= text.size());
    }
    FUZZ_CHECK(covered == text.size());
  }
  return 0;
}
