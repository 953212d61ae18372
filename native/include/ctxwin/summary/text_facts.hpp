// Small, dependency-free extractors for the facts a summary keeps from free text: file paths,
// numbers, and a short excerpt. They work on UTF-8 bytes and never throw on malformed input.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ctxwin {

// An insertion-ordered set of strings: the first occurrence decides the position.
class OrderedSet {
 public:
  // Returns true when `value` was not present yet.
  bool add(std::string value);
  const std::vector<std::string>& items() const noexcept { return items_; }
  bool empty() const noexcept { return items_.empty(); }
  std::size_t size() const noexcept { return items_.size(); }

 private:
  std::vector<std::string> items_;
};

// Adds every file path and every number found in `text` to `paths` / `numbers`.
//
// A path is a word with a directory separator that is clearly a path (rooted, relative with
// ./ or ../ or ~/, a URL, two or more separators, or a known file extension), or a bare file name
// with a known extension ("README.md"). A trailing ":line[:col]" is split off as numbers.
// A number is a run of digits with an optional sign, decimal part, and a percent sign or a short
// unit (ms, s, KB, MB, ...), standing on its own rather than inside an identifier ("utf8", "v2").
void collect_paths_and_numbers(std::string_view text, OrderedSet& paths, OrderedSet& numbers);

// Like collect_paths_and_numbers, but a number is kept only with what it counts, as a "figure":
// "212 tests" (the word after it), "version 2.4" or "timeoutMs 30000" (the word or key before it),
// "src/util/dates.ts:41" (a path's line), or a number that says what it is by itself ("120ms",
// "99.5%", "2024-03-31", "3.6.0"). A bare number in a list ("100, 945, 3") helps no reader and
// is left out.
void collect_paths_and_figures(std::string_view text, OrderedSet& paths, OrderedSet& figures);

// The first sentence of `text` with whitespace collapsed, at most `max_code_points` long; a longer
// sentence is cut at a grapheme boundary and ends with "...". Trailing sentence punctuation is
// removed so the caller can end the sentence its own way.
std::string excerpt(std::string_view text, std::size_t max_code_points);

// "a, b and c"; with more than `max_items`, "a, b, ... and N more".
std::string join_list(const std::vector<std::string>& items, std::size_t max_items);

}  // namespace ctxwin
