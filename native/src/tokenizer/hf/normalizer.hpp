// The normalizers of a tokenizer.json ("normalizer"), as the crate's normalizers/ runs them:
// the Unicode normal forms NFC, NFD, NFKC and NFKD (utf8proc), Replace and Prepend; a Sequence is
// flattened into its steps. Anything else is an error naming it. Internal to the core.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tokenizer/hf/pattern.hpp"

namespace ctxwin::hf {

struct Normalizer {
  enum class Kind { Nfc, Nfd, Nfkc, Nfkd, Replace, Prepend } kind;
  PatternSpec pattern;
  std::string content;
};

// Appends the steps of a "normalizer" node (null: none) to `out`.
void collect_normalizers(const nlohmann::json& node, std::vector<Normalizer>& out);

// Applies one step to `text`, valid UTF-8, in place.
void apply(const Normalizer& step, std::string& text, RegexBudget& budget);

}  // namespace ctxwin::hf
