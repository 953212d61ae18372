// A deterministic, offline summarizer that extracts instead of generating.
//
// Given the events of an agent iteration as JSON lines (the thread manager's AgentEvent objects,
// as JSON.stringify writes them) and/or plain text, it writes two or three sentences that keep the
// facts a later iteration is most likely to need: the tools that were called, the file paths
// and numbers that appear in arguments, results and messages, error messages, and the outcome.
// It never calls a model, so it also serves as the fallback when a caller's model fails
// (failure_digest), which is how the thread manager's summarization never loses an iteration.
//
//   std::vector<std::string_view> lines = {R"({"type":"tool_call","toolName":"read_file",...})"};
//   std::string summary = ctxwin::summarize_extractive(lines);
//   // "Called read_file (1x). Referenced src/index.ts. No errors were reported."
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace ctxwin {

struct ExtractiveOptions {
  // Longest list of tools or paths written out before "and N more".
  std::size_t max_list_items = 12;
  // Longest list of numbers written out before "and N more".
  std::size_t max_number_items = 12;
  // Longest excerpt of a message, result or error, in code points.
  std::size_t max_excerpt_code_points = 160;
  // At most this many distinct error messages are quoted.
  std::size_t max_errors = 5;

  // Every tool name, path and error message written out (compaction digests, which must not lose
  // them); numbers stay bounded.
  static ExtractiveOptions complete() {
    ExtractiveOptions options;
    options.max_list_items = static_cast<std::size_t>(-1);
    options.max_errors = static_cast<std::size_t>(-1);
    return options;
  }
};

// Summarizes `texts`: each element is one JSON-encoded event, or plain text. Elements that do
// not parse as a JSON object are read as plain text. Invalid UTF-8 is tolerated (bytes are
// copied through, excerpts are cut only at code-point boundaries).
std::string summarize_extractive(std::span<const std::string_view> texts, const ExtractiveOptions& options = {});

// Summarizes a whole prompt. When any of its lines is a JSON object, only those lines are read
// (the rest is taken to be instructions around them, like the thread manager's "Summarize the
// following ..." header); otherwise the whole prompt is read as plain text.
std::string summarize_prompt(std::string_view prompt, const ExtractiveOptions& options = {});

// What a SummaryEvent says when the caller's model failed: the extractive summary followed by
// " (summarization failed: <reason>)".
std::string failure_digest(std::span<const std::string_view> texts, std::string_view reason, const ExtractiveOptions& options = {});

}  // namespace ctxwin
