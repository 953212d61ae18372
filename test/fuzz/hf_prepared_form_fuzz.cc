// Fuzzes the reader of tokenizer.json prepared forms (HfTokenizer::from_prepared,
// native/src/tokenizer/hf/prepared_form.hpp), which reads files from a cache folder: untrusted
// input. Any bytes must be refused (nullptr) or load a tokenizer that counts as hf_tokenizer.hpp
// promises (count = encode().size(), with and without a piece cache), never crash, hang or
// allocate what the input does not justify.
//
// The first byte picks how the rest is read:
//   even: the rest is a whole file, checked against a source hash it would have to match;
//   odd:  the rest is a list of edits (4-byte offset, 1-byte xor) to the payload of a real prepared
//         form, then resealed with a valid checksum: this reaches the table checks behind the
//         checksum, which random files almost never pass.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "ctxwin/tokenizer/bpe/piece_cache.hpp"
#include "ctxwin/tokenizer/hf/hf_tokenizer.hpp"
#include "fuzz_support.hpp"
#include "tokenizer/hf/prepared_form.hpp"

namespace {

constexpr std::string_view kTexts[] = {
    "Hello, world! The quick brown fox 12345",
    "h\xC3\xA9llo \xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E \xF0\x9F\x99\x82 <|end|> <s>",
    "  x\t\tif (a == 1) { return 0; }\n\n\n",
};

// A small byte-level tokenizer with a regex pre-tokenizer, a normalizer and an added token.
constexpr std::string_view kSource = R"({"version":"1.0","added_tokens":[{"id":40,"content":"<|end|>","special":true}],
"normalizer":{"type":"NFC"},"pre_tokenizer":{"type":"Sequence","pretokenizers":[
{"type":"Split","pattern":{"Regex":"\\s+|\\w+|[^\\s\\w]+"},"behavior":"Isolated","invert":false},
{"type":"ByteLevel","add_prefix_space":false,"use_regex":false}]},
"model":{"type":"BPE","vocab":{"a":0,"b":1,"c":2,"d":3,"e":4,"h":5,"l":6,"o":7,"r":8,"w":9,"Ġ":10,"he":11,"ll":12,"llo":13,"hello":14,"Ġw":15,"or":16,"Ġwor":17},
"merges":["h e","l l","ll o","he llo","Ġ w","o r","Ġw or"]}})";

struct Base {
  std::uint64_t hash;
  std::string payload;
};

const Base& base() {
  static const Base b = [] {
    const std::uint64_t hash = ctxwin::HfTokenizer::source_hash(kSource);
    const std::string file = ctxwin::HfTokenizer::from_json(kSource)->prepared_form(hash, kSource.size());
    return Base{hash, std::string(ctxwin::hf::open_prepared(file, hash, kSource.size()))};
  }();
  return b;
}

void check(const ctxwin::HfTokenizer& tokenizer) {
  const std::unique_ptr<ctxwin::CountCache> cache = tokenizer.new_cache();
  for (const ctxwin::SpecialTokens special : {ctxwin::SpecialTokens::AsText, ctxwin::SpecialTokens::AsTokens}) {
    for (const std::string_view text : kTexts) {
      const std::size_t count = tokenizer.count(text, nullptr, special);
      FUZZ_CHECK(tokenizer.encode(text, special).size() == count);
      FUZZ_CHECK(tokenizer.count(text, cache.get(), special) == count);
    }
  }
  (void)tokenizer.summary();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const Base& b = base();
  std::unique_ptr<const ctxwin::HfTokenizer> tokenizer;
  if ((data[0] & 1) == 0) {
    tokenizer = ctxwin::HfTokenizer::from_prepared(rest, b.hash, kSource.size());
  } else {
    std::string payload = b.payload;
    for (std::size_t at = 0; at + 5 <= rest.size(); at += 5) {
      std::uint32_t offset;
      std::memcpy(&offset, rest.data() + at, sizeof offset);
      if (offset == 0xFFFFFFFFu) {  // an edit that truncates
        payload.resize(payload.size() / 2);
        continue;
      }
      if (payload.empty()) break;
      payload[offset % payload.size()] ^= rest[at + 4];
    }
    tokenizer = ctxwin::HfTokenizer::from_prepared(ctxwin::hf::seal_prepared(payload, b.hash, kSource.size()), b.hash, kSource.size());
  }
  if (tokenizer != nullptr) check(*tokenizer);
  return 0;
}
