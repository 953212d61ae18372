// Fuzzes counting in every Claude family (v3, v4.7, v5): the first byte picks the family, the rest
// is the text (any bytes: invalid UTF-8 is repaired, as ClaudeTokenizer::count documents).
// Invariants the core promises (claude_tokenizer.hpp, segment_cache.hpp):
//   - a segment cache never changes a count: no cache, a warm cache kept across inputs, and a tiny
//     cache that keeps starting over all give the same count;
//   - count(text) = count_valid(repair_utf8(text)) (invalid UTF-8 is repaired first);
//   - count_message(text) = message_overhead() + count(text) for non-empty text (the frame);
//   - the marked stream of any text is built without a crash and is valid UTF-8 (markers render as text).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ctxwin/tokenizer/claude/claude_tokenizer.hpp"
#include "ctxwin/tokenizer/claude/segment_cache.hpp"
#include "ctxwin/tokenizer/utf8.hpp"
#include "fuzz_support.hpp"

#ifndef CTXWIN_CLAUDE_DATA_DIR
#error "CTXWIN_CLAUDE_DATA_DIR must name data/claude"
#endif

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static const char* const kFamilies[] = {"v3", "v4.7", "v5"};
  const std::size_t which = data[0] % 3;
  const auto& tokenizer = ctxwin::claude::ClaudeTokenizer::get(kFamilies[which], CTXWIN_CLAUDE_DATA_DIR);
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);

  const std::size_t count = tokenizer.count(text);
  // One warm cache per family, kept across inputs as the binding keeps one per counter object (a
  // cache remembers one family's segments: sharing one between families would be a misuse).
  static ctxwin::claude::SegmentCache warm[3];
  FUZZ_CHECK(tokenizer.count(text, &warm[which]) == count);
  FUZZ_CHECK(tokenizer.count(text, &warm[which]) == count);
  ctxwin::claude::SegmentCache tiny(256);  // smaller than its own table: it starts over on every put
  FUZZ_CHECK(tokenizer.count(text, &tiny) == count);

  const std::string repaired = ctxwin::repair_utf8(text);
  FUZZ_CHECK(ctxwin::is_valid_utf8(repaired));
  FUZZ_CHECK(tokenizer.count_valid(repaired) == count);
  FUZZ_CHECK(tokenizer.count(repaired) == count);
  if (!text.empty())
    FUZZ_CHECK(tokenizer.count_message(text) == tokenizer.message_overhead() + count);
  else
    FUZZ_CHECK(count == 0);
  FUZZ_CHECK(ctxwin::is_valid_utf8(tokenizer.marked_stream(text)));
  return 0;
}
