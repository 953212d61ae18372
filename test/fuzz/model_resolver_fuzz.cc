// Fuzzes model-id parsing (ids come from callers and configuration files): normalize_model_id and
// find_model_limits on any bytes. Invariants: a match is a known key with a positive window whose
// output limit fits in it, and normalizing is idempotent.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ctxwin/error.hpp"
#include "ctxwin/history/model_limits.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view id(reinterpret_cast<const char*>(data), size);
  try {
    const std::string normalized = ctxwin::normalize_model_id(id);
    FUZZ_CHECK(ctxwin::normalize_model_id(normalized) == normalized);
    const auto limits = ctxwin::find_model_limits(id);
    if (limits) {
      FUZZ_CHECK(!limits->key.empty());
      FUZZ_CHECK(limits->context_window > 0);
      FUZZ_CHECK(limits->max_output <= limits->context_window);
    }
  } catch (const ctxwin::Error&) {
  }
  return 0;
}
