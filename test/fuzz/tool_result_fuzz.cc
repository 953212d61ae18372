// Fuzzes the tool-result compactor: two bytes pick the token bound (1..4096) and the encoding, the
// rest is the result (often JSON, from the seeds). Invariants: the output fits the bound (unless
// it is the input unchanged, already under it), counts are the encoding's, and JSON stays JSON.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ctxwin/compaction/tool_result_compactor.hpp"
#include "ctxwin/error.hpp"
#include "ctxwin/tokenizer/bpe/encoding.hpp"
#include "ctxwin/tokenizer/utf8.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::size_t bound = 1 + ((static_cast<std::size_t>(data[0]) << 4) | (data[1] >> 4));
  const char* name = (data[1] & 1) != 0 ? "o200k_base" : "cl100k_base";
  const ctxwin::Encoding& encoding = ctxwin::Encoding::get(name, ctxwin::fuzz::rank_data_dir());
  const std::string_view text(reinterpret_cast<const char*>(data + 2), size - 2);
  ctxwin::ToolResultLimits limits;
  limits.max_tokens = bound;
  ctxwin::CompactedResult out;
  try {
    out = ctxwin::compact_tool_result(text, encoding, limits);
  } catch (const ctxwin::Error& error) {
    // Documented: a bound that cannot hold the truncation message is a RangeError.
    FUZZ_CHECK(error.kind() == ctxwin::ErrorKind::Range);
    return 0;
  }
  FUZZ_CHECK(out.original_tokens == encoding.count(text));
  FUZZ_CHECK(out.tokens == encoding.count(out.text));
  if (out.changed) {
    FUZZ_CHECK(out.tokens <= bound);
  } else {
    FUZZ_CHECK(out.text == text || out.text == ctxwin::repair_utf8(text));
  }
  if (out.json && out.changed) FUZZ_CHECK(nlohmann::json::accept(out.text));
  return 0;
}
