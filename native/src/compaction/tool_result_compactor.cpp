#include "ctxwin/compaction/tool_result_compactor.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

#include "ctxwin/error.hpp"
#include "ctxwin/compaction/tool_outcome.hpp"

namespace ctxwin {

namespace {

using nlohmann::json;

// Where a UTF-8 string may be cut: never inside a multi-byte sequence.
std::size_t boundary_before(std::string_view s, std::size_t at) {
  at = std::min(at, s.size());
  while (at > 0 && at < s.size() && (static_cast<unsigned char>(s[at]) & 0xC0) == 0x80) --at;
  return at;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    if (end == text.size()) break;
    start = end + 1;
  }
  return lines;
}

// ---------------------------------------------------------------- text
class TextCompactor {
 public:
  TextCompactor(std::string_view text, const TokenCounter& counter, const ToolResultLimits& limits, CountCache* cache)
      : text_(text), counter_(counter), limits_(limits), cache_(cache), lines_(split_lines(text)) {}

  std::string run() {
    // The lines that report a failure (errors, the first frames of their stack traces, failing
    // tests, a non-zero exit code) survive, within a quarter of the budget; the rest of the budget
    // goes half to the head and half to the tail.
    const ToolOutcome outcome =
        read_tool_outcome(text_, {.max_lines = lines_.size(), .max_line_bytes = text_.size(), .frames_per_error = 5});
    const std::vector<std::size_t>& important = outcome.error_line_numbers;
    std::size_t budget = limits_.max_tokens;
    for (int attempt = 0; attempt < 64; ++attempt) {
      std::string out = assemble(budget, important);
      if (count(out) <= limits_.max_tokens) return out;
      budget = budget * 9 / 10;  // the joints merge differently than the parts: shave and retry
      if (budget == 0) break;
    }
    return limits_.truncation_message;
  }

 private:
  std::size_t count(std::string_view s) const { return counter_.count(s, cache_); }

  // Up to `budget` tokens of whole lines from one end; a single line longer than that is cut.
  std::string take(std::size_t budget, bool from_start, std::size_t& lines_taken, std::size_t stop) const {
    std::string out;
    std::size_t used = 0;
    lines_taken = 0;
    const std::size_t n = lines_.size();
    while (lines_taken < stop) {
      const std::string_view line = lines_[from_start ? lines_taken : n - 1 - lines_taken];
      const std::size_t cost = count(line) + 1;
      if (used + cost > budget) {
        if (lines_taken == 0) out = cut(line, budget, from_start);  // one enormous line
        break;
      }
      used += cost;
      ++lines_taken;
      out = from_start ? (out.empty() ? std::string(line) : out + "\n" + std::string(line))
                       : (out.empty() ? std::string(line) : std::string(line) + "\n" + out);
    }
    return out;
  }

  // The longest prefix (or suffix) of `line` within `budget` tokens, by bisection on bytes.
  std::string cut(std::string_view line, std::size_t budget, bool prefix) const {
    std::size_t lo = 0;
    std::size_t hi = line.size();
    while (lo < hi) {
      const std::size_t mid = (lo + hi + 1) / 2;
      const std::string_view part =
          prefix ? line.substr(0, boundary_before(line, mid)) : line.substr(boundary_before(line, line.size() - mid));
      if (count(part) <= budget)
        lo = mid;
      else
        hi = mid - 1;
    }
    return std::string(prefix ? line.substr(0, boundary_before(line, lo)) : line.substr(boundary_before(line, line.size() - lo)));
  }

  std::string assemble(std::size_t budget, const std::vector<std::size_t>& important) const {
    const std::size_t total_tokens = count(text_);
    std::string notice = limits_.truncation_message;
    const std::size_t notice_tokens = count(notice) + 16;  // room for the counts written into it
    if (notice_tokens >= budget) return limits_.truncation_message;
    std::size_t rest = budget - notice_tokens;
    // The error lines, within a quarter of what is left.
    std::string errors;
    std::size_t error_tokens = 0;
    std::vector<std::size_t> kept_errors;
    for (std::size_t i : important) {
      const std::size_t cost = count(lines_[i]) + 1;
      if (error_tokens + cost > rest / 4) break;
      error_tokens += cost;
      kept_errors.push_back(i);
    }
    rest -= error_tokens;
    std::size_t head_lines = 0;
    std::size_t tail_lines = 0;
    std::string head = take(rest / 2, true, head_lines, lines_.size());
    std::string tail = take(rest - rest / 2, false, tail_lines, lines_.size() - head_lines);
    std::size_t omitted_lines = lines_.size() - head_lines - tail_lines;
    std::string middle;
    for (std::size_t i : kept_errors) {
      if (i < head_lines || i >= lines_.size() - tail_lines) continue;  // already shown
      middle += std::string(lines_[i]) + "\n";
      --omitted_lines;
    }
    std::string out = head;
    out += "\n" + notice + " (" + std::to_string(omitted_lines) + " lines, about " +
           std::to_string(total_tokens > budget ? total_tokens - budget : 0) + " tokens removed)\n";
    out += middle;
    out += tail;
    return out;
  }

  std::string_view text_;
  const TokenCounter& counter_;
  const ToolResultLimits& limits_;
  CountCache* cache_;
  std::vector<std::string_view> lines_;
};

// ---------------------------------------------------------------- JSON
json elide(const json& value, std::size_t max_items, std::size_t max_chars, int depth) {
  if (depth > 64) return json("[nested data elided]");
  if (value.is_array()) {
    json out = json::array();
    const std::size_t n = value.size();
    if (n <= 2 * max_items) {
      for (const auto& item : value) out.push_back(elide(item, max_items, max_chars, depth + 1));
    } else {
      for (std::size_t i = 0; i < max_items; ++i) out.push_back(elide(value[i], max_items, max_chars, depth + 1));
      out.push_back("[... " + std::to_string(n - 2 * max_items) + " more items ...]");
      for (std::size_t i = n - max_items; i < n; ++i) out.push_back(elide(value[i], max_items, max_chars, depth + 1));
    }
    return out;
  }
  if (value.is_object()) {
    json out = json::object();
    std::size_t i = 0;
    const std::size_t n = value.size();
    const std::size_t max_keys = std::max<std::size_t>(max_items * 4, 8);
    for (auto it = value.begin(); it != value.end(); ++it, ++i) {
      if (n > max_keys && i == max_keys) {
        out["..."] = std::to_string(n - max_keys) + " more keys";
        break;
      }
      out[it.key()] = elide(it.value(), max_items, max_chars, depth + 1);
    }
    return out;
  }
  if (value.is_string()) {
    const std::string& s = value.get_ref<const std::string&>();
    if (s.size() <= max_chars) return value;
    const std::size_t head = boundary_before(s, max_chars / 2);
    const std::size_t tail = boundary_before(s, s.size() - max_chars / 2);
    return s.substr(0, head) + " [... " + std::to_string(tail - head) + " bytes elided ...] " + s.substr(tail);
  }
  return value;
}

std::string dump(const json& value) { return value.dump(-1, ' ', false, json::error_handler_t::replace); }

}  // namespace

CompactedResult compact_tool_result(std::string_view text, const TokenCounter& counter, const ToolResultLimits& limits, CountCache* cache) {
  CompactedResult result;
  result.original_tokens = counter.count(text, cache);
  if (result.original_tokens <= limits.max_tokens) {
    result.text = std::string(text);
    result.tokens = result.original_tokens;
    return result;
  }
  if (counter.count(limits.truncation_message, cache) > limits.max_tokens) {
    throw Error::range(ErrorCode::OutOfRange,
                       "maxResultTokens (" + std::to_string(limits.max_tokens) + ") cannot hold the truncation message");
  }
  result.changed = true;
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && (text[first] == '{' || text[first] == '[')) {
    json parsed = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!parsed.is_discarded() && (parsed.is_array() || parsed.is_object())) {
      // Takes `candidate` as the result when it fits the bound.
      auto accept = [&](std::string candidate) {
        const std::size_t tokens = counter.count(candidate, cache);
        if (tokens > limits.max_tokens) return false;
        result.text = std::move(candidate);
        result.tokens = tokens;
        result.json = true;
        return true;
      };
      // From gentle to severe: fewer items, then shorter strings, until it fits.
      for (std::size_t max_chars : {2000u, 500u, 160u, 60u}) {
        for (std::size_t max_items : {50u, 20u, 8u, 3u, 1u}) {
          if (accept(dump(elide(parsed, max_items, max_chars, 0)))) return result;
        }
      }
      // Even the smallest elision is too large: a JSON string holding the compacted text
      // (escaping costs tokens, so the text's budget shrinks until the string fits).
      ToolResultLimits inner = limits;
      for (std::size_t budget = limits.max_tokens; budget > 0; budget = budget * 9 / 10) {
        inner.max_tokens = budget;
        if (accept(dump(json(TextCompactor(text, counter, inner, cache).run())))) return result;
      }
      // The message alone, as a JSON string. Its quotes cost a token the check above did not
      // count: a bound that holds the message but not its JSON form is refused the same way,
      // rather than answered with more tokens than asked for (found by test/fuzz/tool_result_fuzz).
      if (!accept(dump(json(limits.truncation_message)))) {
        throw Error::range(ErrorCode::OutOfRange, "maxResultTokens (" + std::to_string(limits.max_tokens) +
                                                      ") cannot hold the truncation message as a JSON string");
      }
      return result;
    }
  }
  result.text = TextCompactor(text, counter, limits, cache).run();
  result.tokens = counter.count(result.text, cache);
  return result;
}

}  // namespace ctxwin
