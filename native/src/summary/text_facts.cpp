#include "ctxwin/summary/text_facts.hpp"

#include <utf8proc.h>

#include <algorithm>
#include <array>
#include <cctype>

namespace ctxwin {

namespace {

bool is_ascii_alpha(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_ascii_digit(unsigned char c) { return c >= '0' && c <= '9'; }
bool is_word_byte(unsigned char c) { return is_ascii_alpha(c) || is_ascii_digit(c) || c == '_'; }

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Extensions that make a bare word a file name. Kept short on purpose: a word like "e.g" or
// "v1.2" must not become a path.
bool is_known_extension(std::string_view ext) {
  static constexpr std::array<std::string_view, 64> kExtensions = {
      "ts",   "tsx", "js",   "jsx",  "mjs",  "cjs",  "json", "md",  "mdx",    "txt", "py",    "pyi",   "rs",   "go",    "c",      "cc",
      "cpp",  "cxx", "h",    "hh",   "hpp",  "java", "kt",   "rb",  "php",    "cs",  "swift", "sh",    "bash", "zsh",   "yml",    "yaml",
      "toml", "ini", "cfg",  "conf", "lock", "html", "htm",  "css", "scss",   "sql", "csv",   "tsv",   "xml",  "log",   "env",    "pdf",
      "png",  "jpg", "jpeg", "gif",  "svg",  "wasm", "node", "vue", "svelte", "lua", "dart",  "scala", "tf",   "proto", "gradle", "mk"};
  const std::string key = lower(ext);
  return std::find(kExtensions.begin(), kExtensions.end(), key) != kExtensions.end();
}

bool is_path_byte(unsigned char c) {
  return is_word_byte(c) || c == '.' || c == '/' || c == '\\' || c == '-' || c == '~' || c == '@' || c == '+' || c == '%' || c == ':' ||
         c == '#' || c == '=' || c == '?' || c == '&' || c >= 0x80;
}

bool has_extension(std::string_view word) {
  const auto sep = word.find_last_of("/\\");
  const std::string_view last = sep == std::string_view::npos ? word : word.substr(sep + 1);
  const auto dot = last.rfind('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 >= last.size()) return false;
  return is_known_extension(last.substr(dot + 1));
}

bool looks_like_path(std::string_view word) {
  if (word.size() < 2) return false;
  if (std::none_of(word.begin(), word.end(), [](char c) { return is_ascii_alpha(static_cast<unsigned char>(c)); })) {
    return false;
  }
  if (!std::all_of(word.begin(), word.end(), [](char c) { return is_path_byte(static_cast<unsigned char>(c)); })) {
    return false;
  }
  const auto separators = std::count_if(word.begin(), word.end(), [](char c) { return c == '/' || c == '\\'; });
  if (separators == 0) return has_extension(word);
  if (word.find("://") != std::string_view::npos) return true;
  if (word.starts_with('/') || word.starts_with("./") || word.starts_with("../") || word.starts_with("~/")) {
    return separators > 1 || word.size() > 1;
  }
  return separators >= 2 || has_extension(word);
}

// A unit that may follow a number directly ("120ms", "4KB").
bool is_unit(std::string_view s) {
  static constexpr std::array<std::string_view, 12> kUnits = {"ms", "s", "us", "ns", "m", "h", "b", "kb", "mb", "gb", "k", "x"};
  const std::string key = lower(s);
  return std::find(kUnits.begin(), kUnits.end(), key) != kUnits.end();
}

bool is_thousands_group(std::string_view word, std::size_t at) {
  if (at + 3 > word.size()) return false;
  for (std::size_t k = at; k < at + 3; ++k) {
    if (!is_ascii_digit(static_cast<unsigned char>(word[k]))) return false;
  }
  return at + 3 == word.size() || !is_ascii_digit(static_cast<unsigned char>(word[at + 3]));
}

// When word[begin, end) is a four-digit year followed by -MM-DD (and optionally THH:MM[:SS]),
// returns the end of the whole date; otherwise `end`.
std::size_t skip_date_tail(std::string_view word, std::size_t begin, std::size_t end) {
  auto digits_at = [&](std::size_t at, std::size_t count) {
    if (at + count > word.size()) return false;
    for (std::size_t k = at; k < at + count; ++k) {
      if (!is_ascii_digit(static_cast<unsigned char>(word[k]))) return false;
    }
    return true;
  };
  if (end - begin != 4 || !digits_at(begin, 4)) return end;
  if (!(end + 6 <= word.size() && word[end] == '-' && digits_at(end + 1, 2) && word[end + 3] == '-' && digits_at(end + 4, 2))) {
    return end;
  }
  std::size_t date_end = end + 6;
  if (date_end + 6 <= word.size() && word[date_end] == 'T' && digits_at(date_end + 1, 2) && word[date_end + 3] == ':' &&
      digits_at(date_end + 4, 2)) {
    date_end += 6;
    if (date_end + 3 <= word.size() && word[date_end] == ':' && digits_at(date_end + 1, 2)) date_end += 3;
    if (date_end < word.size() && word[date_end] == 'Z') ++date_end;
  }
  return date_end;
}

void collect_numbers(std::string_view word, OrderedSet& numbers) {
  std::size_t i = 0;
  while (i < word.size()) {
    const auto c = static_cast<unsigned char>(word[i]);
    const bool starts_number =
        is_ascii_digit(c) && (i == 0 || (!is_word_byte(static_cast<unsigned char>(word[i - 1])) && word[i - 1] != '.'));
    if (!starts_number) {
      ++i;
      continue;
    }
    std::size_t begin = i;
    if (begin > 0 && word[begin - 1] == '-' && (begin == 1 || !is_word_byte(static_cast<unsigned char>(word[begin - 2])))) {
      --begin;  // a sign that belongs to the number, not a hyphenated word
    }
    while (i < word.size() && (is_ascii_digit(static_cast<unsigned char>(word[i])) || word[i] == ',')) {
      // A comma continues the number only as a thousands separator ("12,345"), never in a list.
      if (word[i] == ',' && !is_thousands_group(word, i + 1)) break;
      ++i;
    }
    // A decimal part, or several ("1.2.3" is one version number, not three).
    while (i + 1 < word.size() && word[i] == '.' && is_ascii_digit(static_cast<unsigned char>(word[i + 1]))) {
      ++i;
      while (i < word.size() && is_ascii_digit(static_cast<unsigned char>(word[i]))) ++i;
    }
    // A date or a date-time ("2024-03-31", "2024-03-31T08:15:00") is one figure.
    i = skip_date_tail(word, begin, i);
    std::size_t end = i;
    if (end < word.size() && word[end] == '%') {
      ++end;
    } else {
      std::size_t unit_end = end;
      while (unit_end < word.size() && is_ascii_alpha(static_cast<unsigned char>(word[unit_end]))) ++unit_end;
      if (unit_end > end) {
        if (!is_unit(word.substr(end, unit_end - end))) {
          i = unit_end;  // an identifier such as "3rd" or "2fa": not a number
          continue;
        }
        end = unit_end;
      }
    }
    if (end < word.size() && is_word_byte(static_cast<unsigned char>(word[end]))) {
      i = end;
      continue;
    }
    std::string number(word.substr(begin, end - begin));
    numbers.add(std::move(number));
    i = end;
  }
}

bool is_word_separator(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == '"' || c == '\'' || c == '`' || c == '(' ||
         c == ')' || c == '[' || c == ']' || c == '{' || c == '}' || c == '<' || c == '>' || c == ',' || c == ';' || c == '|' || c == '*';
}

// A comma between two digits belongs to a number ("12,345"); anywhere else it separates words.
bool ends_word(std::string_view text, std::size_t i) {
  const auto c = static_cast<unsigned char>(text[i]);
  if (c == ',' && i > 0 && i + 1 < text.size() && is_ascii_digit(static_cast<unsigned char>(text[i - 1])) &&
      is_ascii_digit(static_cast<unsigned char>(text[i + 1]))) {
    return false;
  }
  return is_word_separator(c);
}

std::string_view trim_punctuation(std::string_view word) {
  while (!word.empty() && (word.back() == '.' || word.back() == ':' || word.back() == '!' || word.back() == '?' || word.back() == '=')) {
    word.remove_suffix(1);
  }
  while (!word.empty() && (word.front() == ':' || word.front() == '=')) word.remove_prefix(1);
  return word;
}

// Splits "src/a.ts:42:7" into the path and its trailing line/column numbers.
void collect_word(std::string_view word, OrderedSet& paths, OrderedSet& numbers) {
  word = trim_punctuation(word);
  if (word.empty()) return;
  std::string_view path = word;
  std::string_view location;
  if (word.find("://") == std::string_view::npos) {
    const auto colon = word.find(':');
    if (colon != std::string_view::npos) {
      path = word.substr(0, colon);
      location = word.substr(colon + 1);
    }
  }
  if (looks_like_path(path)) {
    paths.add(std::string(path));
    if (!location.empty()) collect_numbers(location, numbers);
    return;
  }
  collect_numbers(word, numbers);
}

std::size_t utf8_sequence_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead >> 5) == 0x6) return 2;
  if ((lead >> 4) == 0xE) return 3;
  if ((lead >> 3) == 0x1E) return 4;
  return 1;  // stray continuation or invalid lead byte: step over it alone
}

// `</output>`, `</returncode>`: the word between "<" and ">" is a tag's name, not a rooted path.
bool is_closing_tag(std::string_view text, std::size_t begin, std::size_t end) {
  return begin > 0 && text[begin - 1] == '<' && text[begin] == '/' && end < text.size() && text[end] == '>';
}

}  // namespace

bool OrderedSet::add(std::string value) {
  if (std::find(items_.begin(), items_.end(), value) != items_.end()) return false;
  items_.push_back(std::move(value));
  return true;
}

void collect_paths_and_numbers(std::string_view text, OrderedSet& paths, OrderedSet& numbers) {
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_word_separator(static_cast<unsigned char>(text[i]))) ++i;
    const std::size_t begin = i;
    while (i < text.size() && !ends_word(text, i)) ++i;
    if (i > begin && !is_closing_tag(text, begin, i)) collect_word(text.substr(begin, i - begin), paths, numbers);
  }
}

namespace {

// Words that say nothing about what a number counts ("3 of 5", "2 to 4").
bool is_filler_word(std::string_view word) {
  static constexpr std::array<std::string_view, 38> kFiller = {
      "a",   "an",   "and", "or",   "of",   "to",  "in",   "at",     "on",   "by",  "for", "from", "with",
      "is",  "are",  "was", "were", "be",   "the", "than", "then",   "into", "per", "vs",  "has",  "have",
      "had", "does", "do",  "did",  "will", "can", "must", "should", "not",  "no",  "it",  "this"};
  const std::string key = lower(word);
  return std::find(kFiller.begin(), kFiller.end(), key) != kFiller.end();
}

// The leading letters of `word` ("tests" of "tests,"), when it is a word at all.
std::string_view leading_letters(std::string_view word) {
  std::size_t n = 0;
  while (n < word.size() && (is_ascii_alpha(static_cast<unsigned char>(word[n])) || word[n] == '_' || (n > 0 && word[n] == '-'))) {
    ++n;
  }
  while (n > 0 && word[n - 1] == '-') --n;
  return word.substr(0, n);
}

// The trailing name of `word` ("timeoutMs" of "timeoutMs:", "retries" of "retries="), when it is a
// name (letters, digits after the first letter, underscores).
std::string_view trailing_name(std::string_view word) {
  while (!word.empty() && (word.back() == ':' || word.back() == '=')) word.remove_suffix(1);
  std::size_t start = word.size();
  while (start > 0 && is_word_byte(static_cast<unsigned char>(word[start - 1]))) --start;
  while (start < word.size() && !is_ascii_alpha(static_cast<unsigned char>(word[start]))) ++start;
  return word.substr(start);
}

// A number that says what it is: a unit, a percent, a date, a version.
bool self_describing(std::string_view number) {
  if (number.empty()) return false;
  const auto last = static_cast<unsigned char>(number.back());
  if (last == '%' || is_ascii_alpha(last)) return true;
  if (number.find('-', 1) != std::string_view::npos) return true;  // a date
  return std::count(number.begin(), number.end(), '.') >= 2;       // a version
}

struct Word {
  std::string_view text;  // trimmed of sentence punctuation
  std::string_view raw;
  bool spaced_before = true;  // only blanks between it and the word before
};

}  // namespace

void collect_paths_and_figures(std::string_view text, OrderedSet& paths, OrderedSet& figures) {
  std::vector<Word> words;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t gap = i;
    while (i < text.size() && is_word_separator(static_cast<unsigned char>(text[i]))) ++i;
    const std::size_t begin = i;
    while (i < text.size() && !ends_word(text, i)) ++i;
    if (i == begin) continue;
    const std::string_view between = text.substr(gap, begin - gap);
    const bool spaced = between.find_first_not_of(" \t") == std::string_view::npos;
    const std::string_view raw = text.substr(begin, i - begin);
    if (is_closing_tag(text, begin, i)) continue;
    words.push_back({trim_punctuation(raw), raw, spaced});
  }
  for (std::size_t k = 0; k < words.size(); ++k) {
    const std::string_view word = words[k].text;
    if (word.empty()) continue;
    // A path, with its line when it has one: "src/util/dates.ts:41".
    std::string_view path = word;
    std::string_view location;
    if (word.find("://") == std::string_view::npos) {
      const auto colon = word.find(':');
      if (colon != std::string_view::npos) {
        path = word.substr(0, colon);
        location = word.substr(colon + 1);
      }
    }
    if (looks_like_path(path)) {
      paths.add(std::string(path));
      const std::size_t line_end = location.find_first_not_of("0123456789");
      const std::string_view line = location.substr(0, line_end);
      if (!line.empty()) figures.add(std::string(path) + ":" + std::string(line));
      continue;
    }
    OrderedSet numbers;
    collect_numbers(word, numbers);
    for (const std::string& number : numbers.items()) {
      const auto at = word.find(number);
      // "retries=3", "timeout:30": the name before the number inside the word.
      if (at != std::string_view::npos && at > 0) {
        const std::string_view name = trailing_name(word.substr(0, at));
        if (!name.empty() && (word[at - 1] == '=' || word[at - 1] == ':')) {
          figures.add(std::string(name) + " " + number);
          continue;
        }
      }
      const bool whole = word == number;
      // "212 tests", "3 failed": the word after it.
      if (whole && k + 1 < words.size() && words[k + 1].spaced_before) {
        const std::string_view next = leading_letters(words[k + 1].text);
        if (next.size() >= 2 && !is_filler_word(next)) {
          figures.add(number + " " + std::string(next));
          continue;
        }
      }
      // "version 2.4", "timeoutMs: 30000": the word before it.
      if (whole && k > 0 && words[k].spaced_before) {
        const std::string_view previous = trailing_name(words[k - 1].text);
        if (previous.size() >= 2 && previous == words[k - 1].text && !is_filler_word(previous)) {
          figures.add(std::string(previous) + " " + number);
          continue;
        }
      }
      if (self_describing(number)) figures.add(number);
    }
  }
}

std::string excerpt(std::string_view text, std::size_t max_code_points) {
  // Collapse whitespace and stop at the first sentence end.
  std::string collapsed;
  collapsed.reserve(std::min<std::size_t>(text.size(), max_code_points * 4 + 8));
  bool pending_space = false;
  std::size_t code_points = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      if (c == '\n' && !collapsed.empty()) break;  // a line break ends the first sentence too
      pending_space = !collapsed.empty();
      continue;
    }
    if (pending_space) {
      collapsed.push_back(' ');
      ++code_points;
      pending_space = false;
    }
    collapsed.push_back(static_cast<char>(c));
    if ((c & 0xC0) != 0x80) ++code_points;
    const bool sentence_end = (c == '.' || c == '!' || c == '?') && (i + 1 == text.size() || text[i + 1] == ' ' || text[i + 1] == '\n');
    if (sentence_end && code_points > 1) break;
    if (code_points > max_code_points + 1) break;  // enough to know it must be cut
  }

  // Cut at a grapheme boundary when too long.
  std::size_t count = 0;
  std::size_t offset = 0;
  std::size_t last_boundary = 0;
  utf8proc_int32_t state = 0;
  utf8proc_int32_t previous = -1;
  bool cut = false;
  while (offset < collapsed.size()) {
    utf8proc_int32_t cp = 0;
    const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(collapsed.data() + offset);
    auto n = utf8proc_iterate(bytes, static_cast<utf8proc_ssize_t>(collapsed.size() - offset), &cp);
    std::size_t step = n > 0 ? static_cast<std::size_t>(n) : utf8_sequence_length(static_cast<unsigned char>(collapsed[offset]));
    if (n <= 0) cp = 0xFFFD;
    if (previous < 0 || utf8proc_grapheme_break_stateful(previous, cp, &state)) last_boundary = offset;
    previous = cp;
    if (count == max_code_points) {
      cut = true;
      break;
    }
    ++count;
    offset += step;
  }
  std::string out = cut ? collapsed.substr(0, last_boundary) : collapsed;
  while (!out.empty() && (out.back() == '.' || out.back() == ' ' || out.back() == ':' || out.back() == ';' || out.back() == ',')) {
    out.pop_back();
  }
  if (cut) out += "...";
  return out;
}

std::string join_list(const std::vector<std::string>& items, std::size_t max_items) {
  const std::size_t shown = std::min(items.size(), std::max<std::size_t>(max_items, 1));
  std::string out;
  for (std::size_t i = 0; i < shown; ++i) {
    if (i > 0) out += (i + 1 == shown && shown == items.size()) ? " and " : ", ";
    out += items[i];
  }
  if (shown < items.size()) out += " and " + std::to_string(items.size() - shown) + " more";
  return out;
}

}  // namespace ctxwin
