// Fuzzes the hand-written Split scanners (DeepSeek V3's three regexes) against PCRE2 running the
// same regexes, on repaired UTF-8: the same matches, unless the text holds a code point the two
// may classify apart (one PCRE2's Unicode tables leave unassigned, or U+180E: see
// test/native/tokenizer/hf/split_scanner_test.cc); then only that the matches are non-empty, in
// order and inside the text.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <utf8proc.h>

#include "ctxwin/tokenizer/hf/regex.hpp"
#include "ctxwin/tokenizer/utf8.hpp"
#include "fuzz_support.hpp"
#include "tokenizer/hf/split_scanner.hpp"

namespace {

using Matches = std::vector<std::pair<std::size_t, std::size_t>>;

struct Oracle {
  ctxwin::hf::SplitScanner scanner;
  ctxwin::Regex regex;
};

const std::vector<Oracle>& oracles() {
  static const std::vector<Oracle> out = [] {
    std::vector<Oracle> o;
    for (const char* pattern : {"\\p{N}{1,3}", "[\xE4\xB8\x80-\xE9\xBE\xA5\xE3\x81\x80-\xE3\x82\x9F\xE3\x82\xA0-\xE3\x83\xBF]+",
                                "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+"
                                "| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+"}) {
      const auto scanner = ctxwin::hf::recognized_split_scanner(pattern);
      FUZZ_CHECK(scanner.has_value());
      o.push_back({*scanner, ctxwin::Regex(pattern)});
    }
    return o;
  }();
  return out;
}

bool classified_alike(std::string_view text) {
  static const ctxwin::Regex unassigned("\\p{Cn}|\\x{180E}");
  bool alike = true;
  unassigned.for_each_match(text, [&](std::size_t start, std::size_t) {
    std::size_t length = 0;
    const char32_t cp = ctxwin::decode_utf8(text, start, length);
    if (cp == 0x180E || utf8proc_category(static_cast<utf8proc_int32_t>(cp)) != UTF8PROC_CATEGORY_CN) alike = false;
  });
  return alike;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = ctxwin::repair_utf8(std::string_view(reinterpret_cast<const char*>(data), size));
  const bool alike = classified_alike(text);
  for (const Oracle& oracle : oracles()) {
    Matches ours;
    std::size_t last_end = 0;
    ctxwin::hf::for_each_scanned_match(oracle.scanner, text, [&](std::size_t start, std::size_t end) {
      FUZZ_CHECK(start >= last_end && end > start && end <= text.size());
      last_end = end;
      ours.emplace_back(start, end);
    });
    if (!alike) continue;
    Matches theirs;
    oracle.regex.for_each_match(text, [&](std::size_t start, std::size_t end) { theirs.emplace_back(start, end); });
    FUZZ_CHECK(ours == theirs);
  }
  return 0;
}
