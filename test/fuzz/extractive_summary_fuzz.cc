// Fuzzes the extractive summarizer's input (the thread manager's events as JSON lines, chat text, whole prompts:
// all of it comes from outside): the bytes are split into lines and summarized as events, as a
// prompt and as a failure digest. Invariants: no crash, no exception but ctxwin::Error, and a
// summary of valid UTF-8 input is valid UTF-8.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ctxwin/compaction/patch_text.hpp"
#include "ctxwin/compaction/script_writes.hpp"
#include "ctxwin/compaction/shell_command.hpp"
#include "ctxwin/error.hpp"
#include "ctxwin/summary/extractive_summary.hpp"
#include "ctxwin/summary/task_digest.hpp"
#include "ctxwin/tokenizer/utf8.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> lines;
  for (std::size_t start = 0; start <= input.size();) {
    const std::size_t end = input.find('\n', start);
    const std::size_t stop = end == std::string_view::npos ? input.size() : end;
    lines.push_back(input.substr(start, stop - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  const bool valid = ctxwin::is_valid_utf8(input);
  try {
    const std::string summary = ctxwin::summarize_extractive(lines);
    if (valid) FUZZ_CHECK(ctxwin::is_valid_utf8(summary));
    const std::string complete = ctxwin::summarize_extractive(lines, ctxwin::ExtractiveOptions::complete());
    if (valid) FUZZ_CHECK(ctxwin::is_valid_utf8(complete));
    const std::string prompt = ctxwin::summarize_prompt(input);
    if (valid) FUZZ_CHECK(ctxwin::is_valid_utf8(prompt));
    const std::string digest = ctxwin::failure_digest(lines, lines.empty() ? std::string_view() : lines.front());
    if (valid) FUZZ_CHECK(ctxwin::is_valid_utf8(digest));
    const std::string task = ctxwin::summarize_task(lines, {.complete = true});
    if (valid) FUZZ_CHECK(ctxwin::is_valid_utf8(task));
    for (std::string_view text : {input, lines.front()}) {
      const ctxwin::ShellReading shell = ctxwin::read_shell_command(text);
      for (const auto& change : shell.changes) {
        if (valid) FUZZ_CHECK(ctxwin::is_valid_utf8(change.path) && ctxwin::is_valid_utf8(change.from));
      }
      if (valid) FUZZ_CHECK(ctxwin::is_valid_utf8(ctxwin::shell_label(text)) && ctxwin::is_valid_utf8(shell.run_key));
      FUZZ_CHECK(ctxwin::parse_shell(text).size() <= ctxwin::kMaxSimpleCommands);
      for (const auto& change : ctxwin::script_changes(text)) {
        if (valid) FUZZ_CHECK(ctxwin::is_valid_utf8(change.path));
      }
      for (const auto& change : ctxwin::patch_changes(text)) {
        if (valid) FUZZ_CHECK(ctxwin::is_valid_utf8(change.path));
      }
    }
  } catch (const ctxwin::Error&) {}
  return 0;
}
