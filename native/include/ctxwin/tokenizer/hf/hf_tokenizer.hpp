// A Hugging Face tokenizer.json, loaded and run natively: added tokens, normalizer, pre-tokenizer
// and BPE model, giving the Rust `tokenizers` crate's tokens (without the post-processor's
// template: counts are of the text itself, like `encode(text, add_special_tokens=False)`).
//
// Supported, as the files of Llama 2/3, Qwen 2.5/3, DeepSeek V3, gpt-oss, Gemma 2/3 and Mistral
// use them: model BPE (byte-level or with byte fallback); normalizers NFC, NFD, NFKC, NFKD,
// Replace, Prepend, Sequence; pre-tokenizers Split (regex or string, every behavior), ByteLevel,
// Metaspace, Digits, Sequence. Anything else is an error naming it (ERR_CTXWIN_UNSUPPORTED_TOKENIZER),
// never a silently different count. Split regexes that are tiktoken's cl100k / o200k / GPT-2
// patterns (or Qwen's cl100k with single digits) run on the hand-written pretokenizer; any other
// pattern runs on PCRE2.
//
// Added tokens are matched as the crate matches them (leftmost-longest, before normalization
// unless `normalized`; lstrip / rstrip / single_word honoured). Tokens marked `special` are
// ordinary text unless SpecialTokens::AsTokens (the crate's encode_special_tokens, inverted).
//
//   auto tok = HfTokenizer::from_json(json_text);        // throws ctxwin::Error
//   std::size_t n = tok->count("Hello world");
//   std::vector<std::uint32_t> ids = tok->encode("<|im_start|>user", SpecialTokens::AsTokens);
//
// An HfTokenizer is a TokenCounter (token_counter.hpp), immutable once built, and may be shared by
// threads (each with its own PieceCache from new_cache(), if any).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ctxwin/tokenizer/bpe/piece_cache.hpp"
#include "ctxwin/tokenizer/token_counter.hpp"

namespace ctxwin {

class HfTokenizer final : public TokenCounter {
 public:
  // Parses tokenizer.json text. Throws ctxwin::Error: ERR_CTXWIN_INVALID_TOKENIZER for text that
  // is not a tokenizer.json, ERR_CTXWIN_UNSUPPORTED_TOKENIZER naming a component it does not run.
  static std::unique_ptr<const HfTokenizer> from_json(std::string_view json);
  // from_json of a file's contents; ERR_CTXWIN_TOKENIZER_UNAVAILABLE when it cannot be read.
  static std::unique_ptr<const HfTokenizer> from_file(const std::string& path);

  // A file load that keeps the tokenizer's prepared form in `cache_dir` (none when empty): a
  // load whose file is there, made from the same bytes and intact, copies the tables back (tens
  // of milliseconds where a parse takes seconds); otherwise it parses and writes the file anew
  // (through a temporary file and a rename, so concurrent loaders never see half a file). The
  // cache is keyed and checked by the tokenizer.json's content hash, never by its path or time.
  struct FileLoad {
    enum class Origin { Parsed, ParsedAndCached, Cache };
    std::unique_ptr<const HfTokenizer> tokenizer;
    Origin origin;
  };
  static FileLoad load_file(const std::string& path, const std::string& cache_dir);

  // The prepared form: the loaded tables behind a header with a format version, the source's
  // hash and size (source_hash() of the tokenizer.json text), and a checksum.
  std::string prepared_form(std::uint64_t hash, std::uint64_t size) const;
  // The tokenizer of a prepared form made from that source; nullptr when `file` is not one
  // (another version or source, truncated, damaged): the caller parses the tokenizer.json instead.
  static std::unique_ptr<const HfTokenizer> from_prepared(std::string_view file, std::uint64_t hash, std::uint64_t size);
  static std::uint64_t source_hash(std::string_view text) noexcept;

  ~HfTokenizer() override;

  // A PieceCache: the model's pieces counted once are looked up there first.
  std::unique_ptr<CountCache> new_cache() const override;
  // The token ids of `text` (repaired first when invalid UTF-8).
  std::vector<std::uint32_t> encode(std::string_view text, SpecialTokens special = SpecialTokens::AsText) const;

  // The id of an added token's content, else of a vocabulary token (as tokenizer.json spells it);
  // -1 when neither.
  std::int64_t token_to_id(std::string_view token) const;
  // "BPE (byte-level), 128000 tokens, 280147 merges, 256 added tokens"
  std::string summary() const;
  // Bytes of the tables kept resident.
  std::size_t memory_bytes() const noexcept;

  struct Impl;

 protected:
  std::size_t count_utf8(std::string_view text, CountCache* cache, SpecialTokens special) const override;

 private:
  explicit HfTokenizer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ctxwin
