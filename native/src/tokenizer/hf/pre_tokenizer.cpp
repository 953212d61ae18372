#include "tokenizer/hf/pre_tokenizer.hpp"

#include <algorithm>

#include "ctxwin/tokenizer/bpe/pretokenizer.hpp"
#include "ctxwin/tokenizer/utf8.hpp"
#include "tokenizer/char_class.hpp"
#include "tokenizer/hf/json_fields.hpp"

namespace ctxwin::hf {

using json = nlohmann::json;

namespace {

Behavior behavior_of(const json& node) {
  const std::string b = string_field(node, "behavior", "pre_tokenizer Split");
  if (b == "Isolated") return Behavior::Isolated;
  if (b == "Removed") return Behavior::Removed;
  if (b == "MergedWithPrevious") return Behavior::MergedWithPrevious;
  if (b == "MergedWithNext") return Behavior::MergedWithNext;
  if (b == "Contiguous") return Behavior::Contiguous;
  unsupported("Split behavior \"" + b + "\"");
}

}  // namespace

void collect_pre_tokenizers(const json& node, std::vector<PreTokenizer>& out) {
  if (node.is_null()) return;
  const std::string type = type_of(node, "pre_tokenizer");
  PreTokenizer step{};
  if (type == "Sequence") {
    if (!node.contains("pretokenizers") || !node["pretokenizers"].is_array()) invalid("pre_tokenizer Sequence needs \"pretokenizers\"");
    for (const json& child : node["pretokenizers"]) collect_pre_tokenizers(child, out);
    return;
  }
  if (type == "Split") {
    step.kind = PreTokenizer::Kind::Split;
    step.pattern = pattern_of(node, "pre_tokenizer Split", true);
    step.behavior = behavior_of(node);
    step.invert = flag(node, "invert", false);
  } else if (type == "ByteLevel") {
    step.kind = PreTokenizer::Kind::ByteLevel;
    step.add_prefix_space = flag(node, "add_prefix_space", true);
    step.use_regex = flag(node, "use_regex", true);
  } else if (type == "Metaspace") {
    step.kind = PreTokenizer::Kind::Metaspace;
    step.replacement =
        node.contains("replacement") && node["replacement"].is_string() ? node["replacement"].get<std::string>() : "\xE2\x96\x81";
    std::size_t length = 0;
    if (step.replacement.empty() || !is_valid_utf8(step.replacement) ||
        (decode_utf8(step.replacement, 0, length), length != step.replacement.size())) {
      invalid("Metaspace replacement must be one character");
    }
    if (node.contains("prepend_scheme") && node["prepend_scheme"].is_string()) {
      const std::string scheme = node["prepend_scheme"].get<std::string>();
      if (scheme == "always")
        step.prepend = PreTokenizer::Prepend::Always;
      else if (scheme == "first")
        step.prepend = PreTokenizer::Prepend::First;
      else if (scheme == "never")
        step.prepend = PreTokenizer::Prepend::Never;
      else
        unsupported("Metaspace prepend_scheme \"" + scheme + "\"");
    } else {
      step.prepend = flag(node, "add_prefix_space", true) ? PreTokenizer::Prepend::Always : PreTokenizer::Prepend::Never;
    }
    step.split = flag(node, "split", true);
  } else if (type == "Digits") {
    step.kind = PreTokenizer::Kind::Digits;
    step.individual_digits = flag(node, "individual_digits", false);
  } else {
    unsupported("pre_tokenizer \"" + type + "\"");
  }
  out.push_back(std::move(step));
}

namespace {

struct Segment {
  std::size_t start;
  std::size_t end;
  bool match;
};

// Applies a Split behavior to the alternating matches / gaps covering a text (the crate's
// NormalizedString::split).
std::vector<Segment> apply_behavior(std::vector<Segment> segments, Behavior behavior) {
  std::vector<Segment> out;
  out.reserve(segments.size());
  bool previous_match = false;
  switch (behavior) {
    case Behavior::Isolated:
      return segments;
    case Behavior::Removed:
      for (const Segment& s : segments) {
        if (!s.match) out.push_back(s);
      }
      return out;
    case Behavior::Contiguous:
      for (const Segment& s : segments) {
        if (s.match == previous_match && !out.empty())
          out.back().end = s.end;
        else
          out.push_back(s);
        previous_match = s.match;
      }
      return out;
    case Behavior::MergedWithPrevious:
      for (const Segment& s : segments) {
        if (s.match && !previous_match && !out.empty())
          out.back().end = s.end;
        else
          out.push_back(s);
        previous_match = s.match;
      }
      return out;
    case Behavior::MergedWithNext:
      for (auto it = segments.rbegin(); it != segments.rend(); ++it) {
        if (it->match && !previous_match && !out.empty())
          out.back().start = it->start;
        else
          out.push_back(*it);
        previous_match = it->match;
      }
      std::reverse(out.begin(), out.end());
      return out;
  }
  return out;
}

void split(const std::vector<PreTokenizer>& steps, std::size_t step, const PatternSpec& pattern, Behavior behavior, bool invert,
           std::string_view text, bool first, const Sink& sink, RegexBudget& budget);

}  // namespace

void pre_tokenize(const std::vector<PreTokenizer>& steps, std::size_t step, std::string_view text, bool first, const Sink& sink,
                  RegexBudget& budget) {
  if (text.empty()) return;
  if (step == steps.size()) {
    sink(text);
    return;
  }
  const PreTokenizer& p = steps[step];
  switch (p.kind) {
    case PreTokenizer::Kind::Split:
      return split(steps, step, p.pattern, p.behavior, p.invert, text, first, sink, budget);
    case PreTokenizer::Kind::ByteLevel: {
      std::string prefixed;
      std::string_view s = text;
      if (p.add_prefix_space && text.front() != ' ') {
        prefixed.reserve(text.size() + 1);
        prefixed.push_back(' ');
        prefixed.append(text);
        s = prefixed;
      }
      if (!p.use_regex) return pre_tokenize(steps, step + 1, s, first, sink, budget);
      Pretokenizer pieces(Pattern::R50k, s);
      for (std::string_view piece; pieces.next(piece);)
        pre_tokenize(steps, step + 1, piece, first && piece.data() == s.data(), sink, budget);
      return;
    }
    case PreTokenizer::Kind::Metaspace: {
      std::string replaced;
      replaced.reserve(text.size() + p.replacement.size());
      const bool starts = text.substr(0, p.replacement.size()) == p.replacement || (text.front() == ' ');
      if (!starts && (p.prepend == PreTokenizer::Prepend::Always || (p.prepend == PreTokenizer::Prepend::First && first))) {
        replaced.append(p.replacement);
      }
      for (char c : text) {
        if (c == ' ')
          replaced.append(p.replacement);
        else
          replaced.push_back(c);
      }
      if (!p.split) return pre_tokenize(steps, step + 1, replaced, first, sink, budget);
      PatternSpec literal;
      literal.literal = p.replacement;
      return split(steps, step, literal, Behavior::MergedWithNext, false, replaced, first, sink, budget);
    }
    case PreTokenizer::Kind::Digits: {
      std::vector<Segment> segments;
      std::size_t gap = 0;
      for (std::size_t i = 0; i < text.size();) {
        std::size_t length = 0;
        const char32_t cp = decode_utf8(text, i, length);
        if (char_class::classify_fast(cp) & char_class::kNumber) {
          if (gap < i) segments.push_back({gap, i, false});
          segments.push_back({i, i + length, true});
          gap = i + length;
        }
        i += length;
      }
      if (gap < text.size()) segments.push_back({gap, text.size(), false});
      segments = apply_behavior(std::move(segments), p.individual_digits ? Behavior::Isolated : Behavior::Contiguous);
      for (const Segment& s : segments)
        pre_tokenize(steps, step + 1, text.substr(s.start, s.end - s.start), first && s.start == 0, sink, budget);
      return;
    }
  }
}

namespace {

void split(const std::vector<PreTokenizer>& steps, std::size_t step, const PatternSpec& pattern, Behavior behavior, bool invert,
           std::string_view text, bool first, const Sink& sink, RegexBudget& budget) {
  std::size_t gap = 0;
  if (behavior == Behavior::Isolated) {
    // Every match and every gap is a piece: stream them.
    for_each_match(pattern, text, budget, [&](std::size_t start, std::size_t end) {
      if (gap < start) pre_tokenize(steps, step + 1, text.substr(gap, start - gap), first && gap == 0, sink, budget);
      pre_tokenize(steps, step + 1, text.substr(start, end - start), first && start == 0, sink, budget);
      gap = end;
    });
    if (gap < text.size()) pre_tokenize(steps, step + 1, text.substr(gap), first && gap == 0, sink, budget);
    return;
  }
  std::vector<Segment> segments;
  for_each_match(pattern, text, budget, [&](std::size_t start, std::size_t end) {
    if (gap < start) segments.push_back({gap, start, invert});
    segments.push_back({start, end, !invert});
    gap = end;
  });
  if (gap < text.size()) segments.push_back({gap, text.size(), invert});
  segments = apply_behavior(std::move(segments), behavior);
  for (const Segment& s : segments)
    pre_tokenize(steps, step + 1, text.substr(s.start, s.end - s.start), first && s.start == 0, sink, budget);
}

}  // namespace

}  // namespace ctxwin::hf
