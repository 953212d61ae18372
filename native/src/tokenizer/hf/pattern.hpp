// The "pattern" of a Split pre-tokenizer or a Replace normalizer ({"String": ...} or
// {"Regex": ...}), as the crate's tokenizer/pattern.rs reads it, and its matches in a text.
// Regexes that are tiktoken's cl100k / o200k / GPT-2 patterns (or Qwen's cl100k with single
// digits) run on the hand-written pretokenizer, DeepSeek's three on the hand-written scanners of
// split_scanner.hpp; any other on PCRE2. Internal to the core.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ctxwin/tokenizer/bpe/pretokenizer.hpp"
#include "ctxwin/tokenizer/hf/regex.hpp"
#include "tokenizer/hf/split_scanner.hpp"

namespace ctxwin::hf {

// The exact Split patterns the hand-written pretokenizer runs (as tokenizer.json files spell them).
std::optional<Pattern> recognized_pattern(std::string_view regex);

// The literal or regex of a Split / Replace "pattern": {"String": "..."} or {"Regex": "..."}.
struct PatternSpec {
  std::string literal;
  std::optional<Pattern> builtin;
  std::optional<SplitScanner> scanner;
  std::shared_ptr<const Regex> regex;
  bool is_literal = true;
};

// node["pattern"]; `allow_builtin`: a regex may run on the hand-written pretokenizer or scanners.
PatternSpec pattern_of(const nlohmann::json& node, const std::string& where, bool allow_builtin);

// Calls on(start, end) for each match of `spec` in `text`, left to right; a regex run on PCRE2
// spends the count's `budget`.
template <typename On>
void for_each_match(const PatternSpec& spec, std::string_view text, RegexBudget& budget, On&& on) {
  if (spec.is_literal) {
    if (spec.literal.empty()) return;
    for (std::size_t at = text.find(spec.literal); at != std::string_view::npos; at = text.find(spec.literal, at + spec.literal.size())) {
      on(at, at + spec.literal.size());
    }
  } else if (spec.builtin) {
    Pretokenizer pieces(*spec.builtin, text);
    for (std::string_view piece; pieces.next(piece);) {
      const auto start = static_cast<std::size_t>(piece.data() - text.data());
      on(start, start + piece.size());
    }
  } else if (spec.scanner) {
    for_each_scanned_match(*spec.scanner, text, on);
  } else {
    spec.regex->for_each_match(text, budget, [&](std::size_t start, std::size_t end) { on(start, end); });
  }
}

}  // namespace ctxwin::hf
