// A compiled PCRE2 pattern for the pre-tokenizer and normalizer regexes of tokenizer.json files
// that the hand-written pretokenizer does not recognize (DeepSeek's digit and CJK splits, Mistral
// tekken's pattern, any model's own). UTF mode with Unicode properties (PCRE2_UCP: \s is Unicode
// White_Space, so it matches U+0085 and not U+FEFF, as Oniguruma's does), JIT-compiled where the
// platform has a JIT (not on WebAssembly; the interpreter gives the same matches).
//
//   Regex re("\\p{N}{1,3}");
//   re.for_each_match(text, [](std::size_t start, std::size_t end) { ... });
//
// A Regex is immutable after construction and may be shared by threads: every search makes its own
// match data.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace ctxwin {

class Regex {
 public:
  // Throws ctxwin::Error (ERR_CTXWIN_UNSUPPORTED_TOKENIZER) naming the pattern when PCRE2 rejects it.
  explicit Regex(std::string_view pattern);
  ~Regex();
  Regex(Regex&&) noexcept;
  Regex& operator=(Regex&&) noexcept;
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  // Calls on_match(start, end) for each non-overlapping, non-empty match of valid UTF-8 `text`,
  // left to right (Oniguruma's find_iter: leftmost-first alternation, greedy quantifiers).
  void for_each_match(std::string_view text, const std::function<void(std::size_t, std::size_t)>& on_match) const;

  const std::string& pattern() const noexcept { return pattern_; }

 private:
  struct Code;
  std::string pattern_;
  std::unique_ptr<Code> code_;
};

}  // namespace ctxwin
