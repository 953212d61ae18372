// Context-window and output limits of known models, and how model ids are matched to them.
//
// Ids arrive in many spellings: with a provider prefix ("openai/gpt-4o", "anthropic/claude-3-opus",
// "models/gemini-1.5-pro"), dated ("gpt-4o-2024-08-06", "claude-3-5-sonnet-20241022"), with dots
// or dashes ("claude-3.5-sonnet"), tagged ("-latest", "-preview"). normalize_model_id reduces them
// to one form and find_model_limits picks the longest table key that the id starts with, ending
// at a '-' boundary (so "gpt-4o-mini" is not "gpt-4o", and "gpt-4o" is not "gpt-4").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ctxwin {

struct ModelLimits {
  std::string_view key;            // the table entry that matched
  std::uint32_t context_window;    // tokens in + out the model accepts
  std::uint32_t max_output;        // its output limit; 0 when none is published
};

// Lowercase, provider prefix dropped, "claude-3.5" spelled "claude-3-5", trailing "@..." dropped.
std::string normalize_model_id(std::string_view id);

// The built-in limits for `id` (any spelling), or nothing for an unknown model.
std::optional<ModelLimits> find_model_limits(std::string_view id);

// Number of built-in entries (for tests and documentation).
std::size_t builtin_model_count() noexcept;

// Every built-in entry, in table order (seed 003's rows first, then by provider): what a model
// listing (`ctxwin models`) shows, so that it never disagrees with find_model_limits.
std::vector<ModelLimits> builtin_models();

}  // namespace ctxwin
