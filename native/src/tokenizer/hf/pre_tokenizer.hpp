// The pre-tokenizers of a tokenizer.json ("pre_tokenizer"), as the crate's pre_tokenizers/ runs
// them: Split (a pattern, every behavior, inverted or not), ByteLevel, Metaspace, Digits; a
// Sequence is flattened into its steps. Anything else is an error naming it. Internal to the core.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tokenizer/hf/pattern.hpp"

namespace ctxwin::hf {

enum class Behavior { Isolated, Removed, MergedWithPrevious, MergedWithNext, Contiguous };

struct PreTokenizer {
  enum class Kind { Split, ByteLevel, Metaspace, Digits } kind;
  PatternSpec pattern;
  Behavior behavior = Behavior::Isolated;
  bool invert = false;
  bool add_prefix_space = false;  // ByteLevel
  bool use_regex = false;         // ByteLevel
  std::string replacement;        // Metaspace
  enum class Prepend { Always, First, Never } prepend = Prepend::Always;
  bool split = true;               // Metaspace
  bool individual_digits = false;  // Digits
};

// Appends the steps of a "pre_tokenizer" node (null: none) to `out`.
void collect_pre_tokenizers(const nlohmann::json& node, std::vector<PreTokenizer>& out);

using Sink = std::function<void(std::string_view)>;

// Runs steps[step..] over `text`, calling sink(piece) for each piece the model tokenizes; `first`
// says whether `text` starts the input (Metaspace's prepend_scheme "first").
void pre_tokenize(const std::vector<PreTokenizer>& steps, std::size_t step, std::string_view text, bool first, const Sink& sink,
                  RegexBudget& budget);

}  // namespace ctxwin::hf
