// Shrinks a large tool result to at most a number of tokens while keeping what an agent needs
// from it: its beginning and end, the lines that report errors, and the head of a stack trace.
// A result that is JSON stays valid JSON: long arrays, strings and objects are elided inside it,
// never cut through.
//
// Tokens are counted by the counter given, any family's (an OpenAI encoding, a Claude family, a
// tokenizer.json model), so the bound holds by that model's own count.
//
//   ToolResultLimits limits{.max_tokens = 1000, .truncation_message = "[Output truncated...]"};
//   CompactedResult out = compact_tool_result(huge_log, Encoding::get("o200k_base", dir), limits);
//   // out.text has at most 1000 tokens; out.changed, out.original_tokens, out.tokens
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "ctxwin/tokenizer/token_counter.hpp"

namespace ctxwin {

struct ToolResultLimits {
  std::size_t max_tokens = 1000;
  std::string truncation_message = "[Output truncated...]";
};

struct CompactedResult {
  std::string text;
  bool changed = false;
  bool json = false;  // the result was JSON and the output is JSON
  std::size_t original_tokens = 0;
  std::size_t tokens = 0;
};

// Throws ctxwin::Error (RangeError) when max_tokens cannot hold even the truncation message.
// `cache`: null, or one of `counter`'s (TokenCounter::new_cache), which the many counts share.
CompactedResult compact_tool_result(std::string_view text, const TokenCounter& counter, const ToolResultLimits& limits,
                                    CountCache* cache = nullptr);

}  // namespace ctxwin
