// Exact Claude token counts, offline: Anthropic publishes no tokenizer for Claude 3 and later, and
// its count_tokens endpoint is the authority. The open-source project ctok (MIT, github
// sanderland/ctok) measured each family's vocabulary through that endpoint; this is ctxwin's own
// implementation of the count over those vocabularies:
//
//   normalize (NFC, controls and private use removed, unusual spaces, v3 quote folding)
//   -> marked stream (runs by character class, word-boundary and case markers, absorbed spaces)
//   -> minimum-cost tiling over the pieces (a double-array trie, a DP over stream positions),
//      with UTF-8 byte fallback for characters no piece covers
//   -> the family's message frame (fixed overhead, leading-space and trailing-whitespace rules).
//
// Families load once per process (lazily, thread-safe) and are immutable and shared. A family is a
// TokenCounter (token_counter.hpp), whose caches are SegmentCaches:
//
//   const ClaudeTokenizer& t = ClaudeTokenizer::get("v3", "<package>/data/claude");
//   t.count_message("hello")   // 8: what count_tokens returns for one user message "hello"
//   t.count("hello")           // 1: the content's share of that
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "ctxwin/tokenizer/claude/segment_cache.hpp"
#include "ctxwin/tokenizer/token_counter.hpp"

namespace ctxwin::claude {

class Vocabulary;

class ClaudeTokenizer final : public TokenCounter {
 public:
  // The family named `name` ("v3", "v4.7" or "v5"), loading its vocabulary from `data_dir` the
  // first time. Throws ctxwin::Error: RangeError (ERR_CTXWIN_UNKNOWN_ENCODING) naming the valid
  // families; Error (ERR_CTXWIN_RANK_DATA_UNAVAILABLE) when the file cannot be read (a later call
  // tries again).
  static const ClaudeTokenizer& get(std::string_view name, const std::string& data_dir);
  // The same, the vocabulary parsed the first time from the file's contents that
  // `read_vocabulary` returns (on Node, from the package's data modules, which the web entry
  // imports too). Called only while that vocabulary is not loaded.
  static const ClaudeTokenizer& get(std::string_view name, const std::function<std::string()>& read_vocabulary);
  // "v3, v4.7, v5"
  static std::string valid_names();

  ClaudeTokenizer(std::string_view name, const Vocabulary& vocabulary, std::uint32_t message_overhead, bool frame_bow, bool free_tail);

  std::string_view name() const noexcept { return name_; }
  // Tokens of a request holding one user message whose content is `text`, beyond the content.
  std::uint32_t message_overhead() const noexcept { return message_overhead_; }

  // count() (TokenCounter) is the content's tokens when `text` is a message's content:
  // count_message(text) minus the frame. The empty string counts 0 (a request with empty content
  // is rejected by the API). With a cache, word segments already tiled are looked up there and new
  // ones remembered (the count is the same).

  // A SegmentCache of up to 16 MB.
  std::unique_ptr<CountCache> new_cache() const override;
  // count_tokens of a request holding one user message whose content is `text` (repaired first
  // when invalid UTF-8). `cache`: null, or one of this family's.
  std::size_t count_message(std::string_view text, CountCache* cache = nullptr) const;
  // The marked stream of `text`, markers spelled ⟨bow⟩ ⟨eow⟩ ⟨shift⟩ ⟨caps⟩ as in ctok's files:
  // for tests and for explaining a count.
  std::string marked_stream(std::string_view text) const;
  // Bytes held by this family's vocabulary index (shared with a family of the same vocabulary).
  std::size_t memory_bytes() const noexcept;

 protected:
  std::size_t count_utf8(std::string_view text, CountCache* cache, SpecialTokens special) const override;

 private:
  std::size_t content_tokens(std::string_view valid_utf8, SegmentCache* cache) const;

  std::string name_;
  const Vocabulary& vocabulary_;
  std::uint32_t message_overhead_;
  bool frame_bow_;  // the frame ends in ⟨bow⟩, which absorbs one leading space (v3, v4.7)
  bool free_tail_;  // trailing ASCII whitespace is free (v5); else the newline ladder applies
};

}  // namespace ctxwin::claude
