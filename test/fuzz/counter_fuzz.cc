// Fuzzes the one counter interface (TokenCounter) across every family: the first byte picks an
// OpenAI encoding, a Claude family or a tokenizer.json model, the rest is the text (any bytes).
// Invariants the interface promises, whatever the family:
//   - count(text) = count_valid(repair_utf8(text)) (invalid UTF-8 is repaired first);
//   - a cache never changes a count: none, a warm one kept across inputs, a cleared one;
//   - count_many gives each text's count, in order;
//   - a cache of another family's kind is refused with ctxwin::Error, never used.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ctxwin/error.hpp"
#include "ctxwin/tokenizer/bpe/encoding.hpp"
#include "ctxwin/tokenizer/claude/claude_tokenizer.hpp"
#include "ctxwin/tokenizer/hf/hf_tokenizer.hpp"
#include "ctxwin/tokenizer/token_counter.hpp"
#include "ctxwin/tokenizer/utf8.hpp"
#include "fuzz_support.hpp"

#ifndef CTXWIN_CLAUDE_DATA_DIR
#error "CTXWIN_CLAUDE_DATA_DIR must name data/claude"
#endif
#ifndef CTXWIN_NODE_MODULES_DIR
#error "CTXWIN_NODE_MODULES_DIR must name node_modules"
#endif

namespace {

struct Family {
  const ctxwin::TokenCounter* counter;
  std::unique_ptr<ctxwin::CountCache> warm;  // kept across inputs, as a thread's cache is
};

std::vector<Family> load_families() {
  static std::vector<std::unique_ptr<const ctxwin::HfTokenizer>> models;
  std::vector<const ctxwin::TokenCounter*> counters;
  for (const char* name : {"r50k_base", "cl100k_base", "o200k_base"}) {
    counters.push_back(&ctxwin::Encoding::get(name, ctxwin::fuzz::rank_data_dir()));
  }
  for (const char* name : {"v3", "v4.7", "v5"}) counters.push_back(&ctxwin::claude::ClaudeTokenizer::get(name, CTXWIN_CLAUDE_DATA_DIR));
  for (const char* name : {"llama3", "llama2"}) {
    models.push_back(
        ctxwin::HfTokenizer::from_file(std::string(CTXWIN_NODE_MODULES_DIR) + "/@lenml/tokenizer-" + name + "/models/tokenizer.json"));
    counters.push_back(models.back().get());
  }
  std::vector<Family> families;
  for (const ctxwin::TokenCounter* counter : counters) families.push_back({counter, counter->new_cache()});
  return families;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static const std::vector<Family> families = load_families();
  const Family& family = families[data[0] % families.size()];
  const ctxwin::TokenCounter& counter = *family.counter;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);

  const std::size_t count = counter.count(text);
  const std::string repaired = ctxwin::repair_utf8(text);
  FUZZ_CHECK(counter.count_valid(repaired) == count);
  FUZZ_CHECK(counter.count(text, family.warm.get()) == count);
  FUZZ_CHECK(counter.count(text, family.warm.get()) == count);
  const std::unique_ptr<ctxwin::CountCache> fresh = counter.new_cache();
  FUZZ_CHECK(counter.count_valid(repaired, fresh.get()) == count);
  fresh->clear();
  FUZZ_CHECK(counter.count_valid(repaired, fresh.get()) == count);

  const std::vector<std::string> texts = {repaired, std::string(), repaired};
  std::vector<std::uint32_t> counts(texts.size());
  counter.count_many(texts, counts, family.warm.get());
  FUZZ_CHECK(counts[0] == count && counts[1] == 0 && counts[2] == count);

  const Family& other = families[(data[0] + 3) % families.size()];
  if (other.warm->kind() != family.warm->kind()) {
    bool refused = false;
    try {
      (void)counter.count(text, other.warm.get());
    } catch (const ctxwin::Error&) {
      refused = true;
    }
    FUZZ_CHECK(refused);
  }
  return 0;
}
