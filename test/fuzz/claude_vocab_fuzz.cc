// Fuzzes the loader of the Claude vocabulary files (data/claude/*.bin, made by
// scripts/claude-vocab.mjs): any bytes must be refused with a ctxwin::Error or indexed, without a
// crash, a hang or an allocation the file's size does not justify (libFuzzer's -rss_limit_mb and
// ASan's allocation-size check report those). What loads must count: a tokenizer on it counts a
// few texts, and the promises of vocabulary.hpp hold on their marked streams: tiling segment by
// segment, with or without a cache, gives the same count as tiling the whole stream.
// Seeds: test/fuzz/corpus/claude_vocab_fuzz/ (small valid vocabularies and a truncated real one).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "ctxwin/error.hpp"
#include "ctxwin/tokenizer/claude/claude_tokenizer.hpp"
#include "ctxwin/tokenizer/claude/segment_cache.hpp"
#include "fuzz_support.hpp"
#include "tokenizer/claude/marked_stream.hpp"
#include "tokenizer/claude/vocabulary.hpp"

namespace {

constexpr std::string_view kTexts[] = {
    "Hello, world! THE QUICK brown Fox jumps",
    "h\xC3\xA9llo \xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E \xF0\x9F\x99\x82 ABC's \xE2\x80\x9Cquoted\xE2\x80\x9D",
    "  x\t\tif (a == 1) { return 0; }\n\n\n",
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::unique_ptr<const ctxwin::claude::Vocabulary> vocabulary;
  try {
    vocabulary = ctxwin::claude::Vocabulary::parse(std::string(reinterpret_cast<const char*>(data), size), "fuzz.bin");
  } catch (const ctxwin::Error&) {
    return 0;  // refused with an error: what a damaged data/claude file gets
  }
  using ctxwin::claude::ClaudeTokenizer;
  for (const bool v5_frame : {false, true}) {
    const ClaudeTokenizer tokenizer("fuzz", *vocabulary, vocabulary->message_overhead(), !v5_frame, v5_frame);
    const ctxwin::claude::StreamOptions options{vocabulary->fold_quotes(), vocabulary->allcaps_min(), !v5_frame, v5_frame};
    ctxwin::claude::SegmentCache cache;
    for (const std::string_view text : kTexts) {
      const std::size_t count = tokenizer.count(text);
      FUZZ_CHECK(tokenizer.count(text, &cache) == count);
      FUZZ_CHECK(tokenizer.count(text, &cache) == count);
      const ctxwin::claude::MarkedStream stream = ctxwin::claude::build_marked_stream(text, options);
      const std::size_t whole = vocabulary->tile(stream.bytes);
      FUZZ_CHECK(vocabulary->tile_segments(stream.bytes, nullptr) == whole);
      FUZZ_CHECK(whole + vocabulary->newline_tail(stream.tail_newlines) == count);
    }
  }
  return 0;
}
