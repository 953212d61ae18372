// Fuzzes counting and encoding in every OpenAI encoding: the first byte picks the encoding and
// whether special tokens are allowed, the rest is the text (any bytes: invalid UTF-8 is repaired).
// Invariants: count == encode().size() with and without a piece cache, decode(encode(text))
// gives back the repaired text, and the text taken whole as one piece gets the same tokens from
// the backtracking search as from the merge loop (any bytes, not only what a pretokenizer cuts).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ctxwin/error.hpp"
#include "ctxwin/tokenizer/bpe/bpe.hpp"
#include "ctxwin/tokenizer/bpe/encoding.hpp"
#include "ctxwin/tokenizer/bpe/piece_cache.hpp"
#include "ctxwin/tokenizer/utf8.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static const char* const kNames[] = {"r50k_base", "p50k_base", "cl100k_base", "o200k_base"};
  const std::size_t which = data[0] % 4;
  const ctxwin::Encoding& encoding = ctxwin::Encoding::get(kNames[which], ctxwin::fuzz::rank_data_dir());
  const auto special = (data[0] & 0x80) != 0 ? ctxwin::SpecialTokens::AsTokens : ctxwin::SpecialTokens::AsText;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);

  const std::size_t count = encoding.count(text, nullptr, special);
  const auto tokens = encoding.encode(text, special);
  FUZZ_CHECK(count == tokens.size());
  // One cache per encoding, kept across inputs, as a thread's caches are (a cache remembers
  // pieces, not encodings: sharing one between encodings would be a misuse).
  static ctxwin::PieceCache caches[4];
  ctxwin::PieceCache& cache = caches[which];
  FUZZ_CHECK(encoding.count(text, &cache, special) == count);
  FUZZ_CHECK(encoding.count(text, &cache, special) == count);
  const std::string repaired = ctxwin::repair_utf8(text);
  FUZZ_CHECK(encoding.count_valid(repaired, nullptr, special) == count);
  FUZZ_CHECK(encoding.decode(tokens) == repaired);
  std::vector<std::uint32_t> merged;
  ctxwin::bpe_encode(text, encoding.ranks(), merged);
  std::vector<std::uint32_t> searched;
  ctxwin::bpe_backtrack_encode(text, encoding.ranks(), searched);
  FUZZ_CHECK(searched == merged);
  FUZZ_CHECK(ctxwin::bpe_backtrack_count(text, encoding.ranks()) == merged.size());
  return 0;
}
