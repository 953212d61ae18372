#include "ctxwin/tokenizer/token_counter.hpp"

#include "ctxwin/error.hpp"
#include "ctxwin/tokenizer/utf8.hpp"

namespace ctxwin {

std::size_t TokenCounter::count(std::string_view text, CountCache* cache, SpecialTokens special) const {
  if (!is_valid_utf8(text)) return count_valid(repair_utf8(text), cache, special);
  return count_valid(text, cache, special);
}

void TokenCounter::count_many(std::span<const std::string> texts, std::span<std::uint32_t> counts, CountCache* cache) const {
  if (counts.size() != texts.size()) {
    throw Error::range(ErrorCode::OutOfRange,
                       "count_many: " + std::to_string(counts.size()) + " counts for " + std::to_string(texts.size()) + " texts");
  }
  CountCache* own = checked(cache);
  for (std::size_t i = 0; i < texts.size(); ++i) {
    counts[i] = static_cast<std::uint32_t>(count_utf8(texts[i], own, SpecialTokens::AsText));
  }
}

void TokenCounter::refuse_foreign_cache() {
  throw Error(ErrorKind::Other, ErrorCode::InvalidArgument, "the cache belongs to another tokenizer family");
}

}  // namespace ctxwin
