// Splits text into the pieces that byte-pair encoding then tokenizes, exactly as OpenAI's
// tiktoken does with its regular expressions, but written by hand: no regex engine, one forward
// pass with bounded look-ahead.
//
// The patterns (tiktoken_ext/openai_public.py), with \s = Unicode White_Space, \p{..} = Unicode
// general categories (utf8proc), and the leftmost-first, backtracking semantics of fancy-regex:
//
//   r50k / p50k  's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//   cl100k       (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}
//                | ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//   o200k        [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|...)?
//                |[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|...)?
//                |\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// Case-insensitive contractions match the Unicode simple case folds too: 'ſ' (U+017F) is an 's'.
//
//   Pretokenizer pieces(Pattern::Cl100k, "Hello world");
//   for (std::string_view piece; pieces.next(piece);) { ... }   // "Hello", " world"
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ctxwin {

// Cl100kSingleDigit is cl100k with \p{N} for \p{N}{1,3}: Qwen 2.5 / 3's tokenizer.json pattern.
enum class Pattern { R50k, Cl100k, O200k, Cl100kSingleDigit };

// How pieces are matched: with the quick paths for ASCII words, numbers and punctuation first (the
// default; they read eight bytes at a time and hand anything they cannot decide alone to the
// general matcher), or with the general matcher alone, which tests compare them against.
enum class Matching : std::uint8_t { WithAsciiQuickPaths, GeneralOnly };

class Pretokenizer {
 public:
  // `text` must be valid UTF-8 (see utf8.hpp) and outlive the pretokenizer.
  Pretokenizer(Pattern pattern, std::string_view text, Matching matching = Matching::WithAsciiQuickPaths) noexcept
      : pattern_(pattern), quick_(matching == Matching::WithAsciiQuickPaths), text_(text) {}

  // The next piece, or false at the end of the text. Pieces are never empty and cover the text.
  bool next(std::string_view& piece) noexcept;
  // Bytes of the contraction ('s, 't, 're, ...) that ends the last piece: o200k's word
  // alternatives take one in; 0 when there is none, and always with the other patterns.
  std::size_t contraction_length() const noexcept { return contraction_; }

 private:
  std::size_t match_r50k(std::size_t at) const noexcept;
  std::size_t match_cl100k(std::size_t at, int max_digits) const noexcept;
  std::size_t match_o200k(std::size_t at) noexcept;  // sets contraction_

  Pattern pattern_;
  bool quick_;
  std::string_view text_;
  std::size_t position_ = 0;
  std::size_t contraction_ = 0;
};

}  // namespace ctxwin
