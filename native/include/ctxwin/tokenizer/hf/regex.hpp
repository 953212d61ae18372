// A compiled PCRE2 pattern for the pre-tokenizer and normalizer regexes of tokenizer.json files
// that neither the hand-written pretokenizer nor the hand-written Split scanners recognize (Mistral
// tekken's pattern, any model's own). UTF mode with Unicode properties (PCRE2_UCP: \s is Unicode
// White_Space, so it matches U+0085 and not U+FEFF, as Oniguruma's does), JIT-compiled where the
// platform has a JIT (not on WebAssembly; the interpreter gives the same matches).
//
//   Regex re("\\p{N}{1,3}");
//   RegexBudget budget(text.size());                      // one per count, shared by its searches
//   re.for_each_match(text, budget, [](std::size_t start, std::size_t end) { ... });
//
// A pattern comes from a file anyone may write, and a backtracking engine can take exponential
// time on a short text (`(?:(?:a|a){1,21}b)|.` took 20 ms a character) or quadratic time on a long
// one (`a*b|.`). The budget bounds both: each match attempt may take at most
// kBaseSteps + kStepsPerByte x (the bytes left to search) backtracking steps, and all the searches
// of one count at most kBudgetBaseMs + kBudgetNsPerByte x (the text's bytes) of the thread's CPU
// time (kWallClockFactor times that in wall time where there is no thread clock); past either,
// ctxwin::Error with ERR_CTXWIN_REGEX_BUDGET naming the pattern. The patterns
// of real tokenizers stay far inside both (a few steps per match, well under a microsecond a byte).
// The clock starts at the budget's first search, so a count that runs no regex never reads it.
//
// A Regex is immutable after construction and may be shared by threads; a budget belongs to one
// count on one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace ctxwin {

class Regex;

class RegexBudget {
 public:
  // Backtracking steps (PCRE2's match limit) one match attempt may take: a base, and more per byte
  // it may still read (a greedy class over a long run gives back one step per character).
  static constexpr std::uint32_t kBaseSteps = 100'000;
  static constexpr std::uint32_t kStepsPerByte = 8;
  // CPU time all searches of one count may take: a base, and more per byte of the text counted.
  static constexpr std::uint64_t kBudgetBaseMs = 250;
  static constexpr std::uint64_t kBudgetNsPerByte = 2'000;
  // Where the platform has no per-thread CPU clock (WebAssembly), the budget runs on the wall clock,
  // which also counts the time the thread waits for a CPU on a loaded machine (10x and more at a
  // load of 12 on 2 cores), so it is this many times larger. It still catches what it is for: an
  // exponential or quadratic pattern runs orders of magnitude past the CPU budget, not 20x.
  static constexpr std::uint64_t kWallClockFactor = 20;
  // Memory PCRE2's interpreter may take for one attempt's backtracking frames.
  static constexpr std::uint32_t kHeapLimitKib = 64 * 1024;

  // The budget of a count of `text_bytes` bytes.
  explicit RegexBudget(std::size_t text_bytes) noexcept;
  ~RegexBudget();
  RegexBudget(const RegexBudget&) = delete;
  RegexBudget& operator=(const RegexBudget&) = delete;

 private:
  friend class Regex;
  struct Scratch;
  // Throws ERR_CTXWIN_REGEX_BUDGET naming `re` when the CPU time is spent; reads the clock on the
  // first call and then every kCallsPerCheck calls (a read is a system call).
  void charge(const Regex& re);
  // The match data and match context of this budget's searches, made on first use.
  Scratch& scratch();

  static constexpr std::uint32_t kCallsPerCheck = 32;
  std::size_t text_bytes_;
  std::uint64_t deadline_ns_ = 0;  // 0: not started
  std::uint32_t calls_since_check_ = 0;
  std::unique_ptr<Scratch> scratch_;
};

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
  // left to right (Oniguruma's find_iter: leftmost-first alternation, greedy quantifiers), within
  // `budget` (else ctxwin::Error, ERR_CTXWIN_REGEX_BUDGET).
  void for_each_match(std::string_view text, RegexBudget& budget, const std::function<void(std::size_t, std::size_t)>& on_match) const;
  // The same with a budget of its own for `text`.
  void for_each_match(std::string_view text, const std::function<void(std::size_t, std::size_t)>& on_match) const;

  const std::string& pattern() const noexcept { return pattern_; }

 private:
  friend class RegexBudget;
  struct Code;
  [[noreturn]] void over_budget(const std::string& what) const;
  std::string pattern_;
  std::unique_ptr<Code> code_;
};

}  // namespace ctxwin
