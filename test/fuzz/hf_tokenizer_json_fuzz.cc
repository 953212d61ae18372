// Fuzzes the tokenizer.json loader (HfTokenizer::from_json, native/src/tokenizer/hf/): any bytes
// must be refused with a ctxwin::Error (ERR_CTXWIN_INVALID_TOKENIZER or
// ERR_CTXWIN_UNSUPPORTED_TOKENIZER) or loaded, without a crash, a hang or an allocation the input
// does not justify. What loads must count as hf_tokenizer.hpp promises: count = encode().size(),
// with and without a piece cache, special tokens allowed or not.
// Seeds: test/fuzz/corpus/hf_tokenizer_json_fuzz/ (small valid files like those of the unit tests).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "ctxwin/error.hpp"
#include "ctxwin/tokenizer/bpe/piece_cache.hpp"
#include "ctxwin/tokenizer/hf/hf_tokenizer.hpp"
#include "fuzz_support.hpp"

namespace {

constexpr std::string_view kTexts[] = {
    "Hello, world! The quick brown fox 12345",
    "h\xC3\xA9llo \xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E \xF0\x9F\x99\x82 <|endoftext|> <s>[INST]",
    "  x\t\tif (a == 1) { return 0; }\n\n\n",
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::unique_ptr<const ctxwin::HfTokenizer> tokenizer;
  try {
    tokenizer = ctxwin::HfTokenizer::from_json(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const ctxwin::Error&) {
    return 0;  // refused with an error: what a damaged tokenizer.json gets
  }
  const std::unique_ptr<ctxwin::CountCache> cache = tokenizer->new_cache();
  for (const ctxwin::SpecialTokens special : {ctxwin::SpecialTokens::AsText, ctxwin::SpecialTokens::AsTokens}) {
    for (const std::string_view text : kTexts) {
      const std::size_t count = tokenizer->count(text, nullptr, special);
      FUZZ_CHECK(tokenizer->encode(text, special).size() == count);
      FUZZ_CHECK(tokenizer->count(text, cache.get(), special) == count);
      FUZZ_CHECK(tokenizer->count(text, cache.get(), special) == count);
    }
  }
  (void)tokenizer->summary();
  return 0;
}
