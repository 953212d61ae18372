// One interface for every tokenizer family ctxwin counts with: OpenAI's byte-pair encodings
// (Encoding), Claude's families (claude::ClaudeTokenizer) and tokenizer.json models (HfTokenizer).
// What any caller needs of any family (the addon's one counter binding, tool-result compaction)
// is here; what only some families have (encode and decode, Claude's message frame) stays on
// their classes.
//
//   const TokenCounter& counter = Encoding::get("cl100k_base", rank_data_dir);
//   std::unique_ptr<CountCache> cache = counter.new_cache();   // one per thread, kept and reused
//   std::size_t n = counter.count("hello world", cache.get());  // 2
//   counter.count_many(texts, counts, cache.get());
//
// Counters are immutable once built, and any number of threads may count with one at once; a
// cache belongs to one thread at a time. The call is virtual once per text, never per piece: each
// family runs its own loop inside count_utf8.
//
// A new family implements count_utf8 and new_cache (and, if it remembers something other than
// pieces or segments, adds a CountCache kind); the binding, the worker-pool counting and the
// compactor then work with it unchanged.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace ctxwin {

// What a counter remembers between counts, so that text seen again costs a lookup: the pieces a
// byte-pair family merged (PieceCache) or the word segments the Claude tiler tiled
// (claude::SegmentCache). Made by the counter that uses it (TokenCounter::new_cache) and bounded;
// not synchronized. A cache never changes a count. It remembers counts of one counter: giving it
// to another counter of the same kind (another encoding) is a misuse that counts wrong.
class CountCache {
 public:
  enum class Kind : std::uint8_t { Pieces, Segments };

  virtual ~CountCache() = default;
  Kind kind() const noexcept { return kind_; }
  // Forgets everything and frees what it can; counts stay the same, only speed changes.
  virtual void clear() = 0;

 protected:
  explicit CountCache(Kind kind) noexcept : kind_(kind) {}
  CountCache(const CountCache&) = default;
  CountCache& operator=(const CountCache&) = default;

 private:
  Kind kind_;
};

// Whether text that spells a special token (such as "<|endoftext|>") is that one token or ordinary
// text. Ordinary unless the caller says otherwise: user text must not smuggle control tokens in.
// Families without special tokens (Claude) count both ways the same.
enum class SpecialTokens : std::uint8_t { AsText, AsTokens };

class TokenCounter {
 public:
  virtual ~TokenCounter() = default;
  TokenCounter(const TokenCounter&) = delete;
  TokenCounter& operator=(const TokenCounter&) = delete;

  // A new, empty cache for this counter's counts.
  virtual std::unique_ptr<CountCache> new_cache() const = 0;

  // Tokens in UTF-8 `text`; invalid UTF-8 is repaired first, each maximal invalid sequence
  // becoming U+FFFD. `cache`: null, or one of this counter's (else ctxwin::Error).
  std::size_t count(std::string_view text, CountCache* cache = nullptr, SpecialTokens special = SpecialTokens::AsText) const;
  // count() of text known to be valid UTF-8 (such as append_utf16_as_utf8's output).
  std::size_t count_valid(std::string_view text, CountCache* cache = nullptr, SpecialTokens special = SpecialTokens::AsText) const {
    return count_utf8(text, checked(cache), special);
  }
  // count_valid() of each of `texts` into counts[i] (as many as texts), special tokens as text.
  void count_many(std::span<const std::string> texts, std::span<std::uint32_t> counts, CountCache* cache = nullptr) const;

 protected:
  explicit TokenCounter(CountCache::Kind cache_kind) noexcept : cache_kind_(cache_kind) {}

  // The family's count of valid UTF-8 `text`, through `cache` (null, or of this family's kind).
  virtual std::size_t count_utf8(std::string_view text, CountCache* cache, SpecialTokens special) const = 0;

  // `cache`, checked to be of this family's kind (a cast to the family's cache type is then safe).
  CountCache* checked(CountCache* cache) const {
    if (cache != nullptr && cache->kind() != cache_kind_) refuse_foreign_cache();
    return cache;
  }

 private:
  [[noreturn]] static void refuse_foreign_cache();

  CountCache::Kind cache_kind_;
};

}  // namespace ctxwin
