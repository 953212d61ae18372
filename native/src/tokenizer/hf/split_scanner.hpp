// Hand-written matchers for the Split regexes of known tokenizer.json files that the BPE
// pretokenizer's patterns (cl100k, o200k, GPT-2, Qwen's) do not cover: DeepSeek V3's (and R1's,
// V2's) three steps, which ran on PCRE2. Natively PCRE2 JIT-compiles them, but the WebAssembly
// build has no JIT and its interpreter made DeepSeek count at a quarter of native's speed (issue
// 40). Each matcher gives the matches PCRE2 gives (UTF + UCP: leftmost-first alternation, greedy
// quantifiers; \s is Unicode White_Space, \p{..} general categories from utf8proc), checked against
// it in test/native/tokenizer/hf/split_scanner_test.cc. Internal to the core.
//
//   DigitsUpTo3     \p{N}{1,3}
//   KanaAndCjk      [\x{4E00}-\x{9FA5}\x{3040}-\x{309F}\x{30A0}-\x{30FF}]+
//   DeepSeekWords   [!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+
//                   | ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ctxwin::hf {

enum class SplitScanner : std::uint8_t { DigitsUpTo3, KanaAndCjk, DeepSeekWords };

// The scanner for `regex` when it is exactly one of the patterns above, as tokenizer.json files
// spell them.
std::optional<SplitScanner> recognized_split_scanner(std::string_view regex);

// The first match of `scanner` in valid UTF-8 `text` starting at or after `from`: true with
// [start, end), non-empty; false when there is none.
bool next_scanned_match(SplitScanner scanner, std::string_view text, std::size_t from, std::size_t& start, std::size_t& end) noexcept;

// Calls on(start, end) for each match, left to right, as Regex::for_each_match does.
template <typename On>
void for_each_scanned_match(SplitScanner scanner, std::string_view text, On&& on) {
  std::size_t start = 0;
  std::size_t end = 0;
  for (std::size_t at = 0; next_scanned_match(scanner, text, at, start, end); at = end) on(start, end);
}

}  // namespace ctxwin::hf
