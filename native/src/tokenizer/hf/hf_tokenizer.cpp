#include "ctxwin/tokenizer/hf/hf_tokenizer.hpp"

#include <utf8proc.h>

#include <array>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <optional>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "ctxwin/error.hpp"
#include "ctxwin/tokenizer/bpe/pretokenizer.hpp"
#include "ctxwin/tokenizer/hf/bpe_model.hpp"
#include "ctxwin/tokenizer/hf/regex.hpp"
#include "ctxwin/tokenizer/utf8.hpp"
#include "tokenizer/char_class.hpp"
#include "tokenizer/hf/json_loader.hpp"

namespace ctxwin {

namespace {

using json = nlohmann::json;

[[noreturn]] void unsupported(const std::string& what) {
  throw Error(ErrorKind::Other, ErrorCode::UnsupportedTokenizer, "tokenizer.json: " + what + " is not supported");
}
[[noreturn]] void invalid(const std::string& what) {
  throw Error(ErrorKind::Other, ErrorCode::InvalidTokenizer, "tokenizer.json: " + what);
}

std::string type_of(const json& node, const std::string& where) {
  if (!node.is_object() || !node.contains("type") || !node["type"].is_string()) invalid(where + " has no \"type\"");
  return node["type"].get<std::string>();
}

bool flag(const json& node, const char* name, bool fallback) {
  if (!node.contains(name) || node[name].is_null()) return fallback;
  if (!node[name].is_boolean()) invalid(std::string("\"") + name + "\" must be true or false");
  return node[name].get<bool>();
}

std::string string_field(const json& node, const char* name, const std::string& where) {
  if (!node.contains(name) || !node[name].is_string()) invalid(where + "." + name + " must be a string");
  return node[name].get<std::string>();
}

// The exact Split patterns the hand-written pretokenizer runs (as tokenizer.json files spell them).
std::optional<Pattern> recognized_pattern(std::string_view regex) {
  static constexpr std::string_view kCl100k =
      R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
  static constexpr std::string_view kQwen =
      R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
  static constexpr std::string_view kO200k =
      R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
  static constexpr std::string_view kGpt2 = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
  if (regex == kCl100k) return Pattern::Cl100k;
  if (regex == kQwen) return Pattern::Cl100kSingleDigit;
  if (regex == kO200k) return Pattern::O200k;
  if (regex == kGpt2) return Pattern::R50k;
  return std::nullopt;
}

// The literal or regex of a Split / Replace "pattern": {"String": "..."} or {"Regex": "..."}.
struct PatternSpec {
  std::string literal;
  std::optional<Pattern> builtin;
  std::shared_ptr<const Regex> regex;
  bool is_literal = true;
};

PatternSpec pattern_of(const json& node, const std::string& where, bool allow_builtin) {
  if (!node.contains("pattern") || !node["pattern"].is_object()) invalid(where + ".pattern must be an object");
  const json& p = node["pattern"];
  PatternSpec spec;
  if (p.contains("String") && p["String"].is_string()) {
    spec.literal = p["String"].get<std::string>();
    return spec;
  }
  if (p.contains("Regex") && p["Regex"].is_string()) {
    const std::string regex = p["Regex"].get<std::string>();
    spec.is_literal = false;
    if (allow_builtin) spec.builtin = recognized_pattern(regex);
    if (!spec.builtin) spec.regex = std::make_shared<const Regex>(regex);
    return spec;
  }
  invalid(where + ".pattern must hold \"String\" or \"Regex\"");
}

// Calls on(start, end) for each match of `spec` in `text`, left to right.
template <typename On>
void for_each_match(const PatternSpec& spec, std::string_view text, On&& on) {
  if (spec.is_literal) {
    if (spec.literal.empty()) return;
    for (std::size_t at = text.find(spec.literal); at != std::string_view::npos; at = text.find(spec.literal, at + spec.literal.size())) {
      on(at, at + spec.literal.size());
    }
  } else if (spec.builtin) {
    Pretokenizer pieces(*spec.builtin, text);
    for (std::string_view piece; pieces.next(piece);) {
      const auto start = static_cast<std::size_t>(piece.data() - text.data());
      on(start, start + piece.size());
    }
  } else {
    spec.regex->for_each_match(text, [&](std::size_t start, std::size_t end) { on(start, end); });
  }
}

// ---------------------------------------------------------------- normalizers

struct Normalizer {
  enum class Kind { Nfc, Nfd, Nfkc, Nfkd, Replace, Prepend } kind;
  PatternSpec pattern;
  std::string content;
};

void collect_normalizers(const json& node, std::vector<Normalizer>& out) {
  if (node.is_null()) return;
  const std::string type = type_of(node, "normalizer");
  if (type == "Sequence") {
    if (!node.contains("normalizers") || !node["normalizers"].is_array()) invalid("normalizer Sequence needs \"normalizers\"");
    for (const json& child : node["normalizers"]) collect_normalizers(child, out);
  } else if (type == "NFC") {
    out.push_back({Normalizer::Kind::Nfc, {}, {}});
  } else if (type == "NFD") {
    out.push_back({Normalizer::Kind::Nfd, {}, {}});
  } else if (type == "NFKC") {
    out.push_back({Normalizer::Kind::Nfkc, {}, {}});
  } else if (type == "NFKD") {
    out.push_back({Normalizer::Kind::Nfkd, {}, {}});
  } else if (type == "Replace") {
    out.push_back({Normalizer::Kind::Replace, pattern_of(node, "normalizer Replace", false), string_field(node, "content", "normalizer Replace")});
  } else if (type == "Prepend") {
    out.push_back({Normalizer::Kind::Prepend, {}, string_field(node, "prepend", "normalizer Prepend")});
  } else {
    unsupported("normalizer \"" + type + "\"");
  }
}

bool is_ascii(std::string_view text) noexcept {
  for (char c : text) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

// False when the composed normal forms (NFC, and NFKC when `compat`) certainly leave `text` as it
// is: every code point is a starter without a canonical (or, for NFKC, any) decomposition that
// cannot combine with what precedes it (the Unicode quick check, from utf8proc's properties).
// True means "maybe": the text is normalized for real. Most text of most languages is NFC already,
// and this scan costs a fraction of utf8proc_map.
bool may_change_composed(std::string_view text, bool compat) {
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b < 0x80) {
      ++i;
      continue;
    }
    std::size_t length = 0;
    const char32_t cp = decode_utf8(text, i, length);
    i += length;
    if ((cp >= 0x1161 && cp <= 0x1175) || (cp >= 0x11A8 && cp <= 0x11C2)) return true;  // Hangul V / T jamo
    const utf8proc_property_t* p = utf8proc_get_property(static_cast<utf8proc_int32_t>(cp));
    if (p->combining_class != 0) return true;
    if (p->decomp_seqindex != UINT16_MAX && (compat || p->decomp_type == 0)) return true;
    if (p->comb_index != UINT16_MAX && p->comb_index >= 0x8000) return true;  // can be a composition's second
  }
  return false;
}

void unicode_normalize(std::string& text, int options) {
  if (is_ascii(text)) return;  // every normal form leaves ASCII as it is
  if ((options & UTF8PROC_COMPOSE) && !may_change_composed(text, (options & UTF8PROC_COMPAT) != 0)) return;
  utf8proc_uint8_t* out = nullptr;
  const utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                                          static_cast<utf8proc_ssize_t>(text.size()), &out,
                                          static_cast<utf8proc_option_t>(options | UTF8PROC_STABLE));
  if (n < 0) {
    std::free(out);
    throw Error(ErrorKind::Other, ErrorCode::InvalidArgument, std::string("normalization failed: ") + utf8proc_errmsg(n));
  }
  text.assign(reinterpret_cast<const char*>(out), static_cast<std::size_t>(n));
  std::free(out);
}

void apply(const Normalizer& step, std::string& text) {
  switch (step.kind) {
    case Normalizer::Kind::Nfc:
      return unicode_normalize(text, UTF8PROC_COMPOSE);
    case Normalizer::Kind::Nfd:
      return unicode_normalize(text, UTF8PROC_DECOMPOSE);
    case Normalizer::Kind::Nfkc:
      return unicode_normalize(text, UTF8PROC_COMPOSE | UTF8PROC_COMPAT);
    case Normalizer::Kind::Nfkd:
      return unicode_normalize(text, UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT);
    case Normalizer::Kind::Prepend:
      if (!text.empty()) text.insert(0, step.content);
      return;
    case Normalizer::Kind::Replace: {
      std::string out;
      std::size_t last = 0;
      for_each_match(step.pattern, text, [&](std::size_t start, std::size_t end) {
        out.append(text, last, start - last);
        out.append(step.content);
        last = end;
      });
      if (last == 0 && out.empty()) return;
      out.append(text, last, std::string::npos);
      text = std::move(out);
      return;
    }
  }
}

// ---------------------------------------------------------------- pre-tokenizers

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
  bool split = true;              // Metaspace
  bool individual_digits = false; // Digits
};

Behavior behavior_of(const json& node) {
  const std::string b = string_field(node, "behavior", "pre_tokenizer Split");
  if (b == "Isolated") return Behavior::Isolated;
  if (b == "Removed") return Behavior::Removed;
  if (b == "MergedWithPrevious") return Behavior::MergedWithPrevious;
  if (b == "MergedWithNext") return Behavior::MergedWithNext;
  if (b == "Contiguous") return Behavior::Contiguous;
  unsupported("Split behavior \"" + b + "\"");
}

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
    step.replacement = node.contains("replacement") && node["replacement"].is_string() ? node["replacement"].get<std::string>() : "\xE2\x96\x81";
    std::size_t length = 0;
    if (step.replacement.empty() || !is_valid_utf8(step.replacement) ||
        (decode_utf8(step.replacement, 0, length), length != step.replacement.size())) {
      invalid("Metaspace replacement must be one character");
    }
    if (node.contains("prepend_scheme") && node["prepend_scheme"].is_string()) {
      const std::string scheme = node["prepend_scheme"].get<std::string>();
      if (scheme == "always") step.prepend = PreTokenizer::Prepend::Always;
      else if (scheme == "first") step.prepend = PreTokenizer::Prepend::First;
      else if (scheme == "never") step.prepend = PreTokenizer::Prepend::Never;
      else unsupported("Metaspace prepend_scheme \"" + scheme + "\"");
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
        if (s.match == previous_match && !out.empty()) out.back().end = s.end;
        else out.push_back(s);
        previous_match = s.match;
      }
      return out;
    case Behavior::MergedWithPrevious:
      for (const Segment& s : segments) {
        if (s.match && !previous_match && !out.empty()) out.back().end = s.end;
        else out.push_back(s);
        previous_match = s.match;
      }
      return out;
    case Behavior::MergedWithNext:
      for (auto it = segments.rbegin(); it != segments.rend(); ++it) {
        if (it->match && !previous_match && !out.empty()) out.back().start = it->start;
        else out.push_back(*it);
        previous_match = it->match;
      }
      std::reverse(out.begin(), out.end());
      return out;
  }
  return out;
}

using Sink = std::function<void(std::string_view)>;

// ---------------------------------------------------------------- added tokens

struct AddedToken {
  std::string content;
  std::uint32_t id;
  bool special;
  bool lstrip;
  bool rstrip;
  bool single_word;
  bool normalized;
};

// A byte trie over added tokens' contents for the crate's leftmost-longest matching.
class AddedTrie {
 public:
  void add(std::string_view text, std::uint32_t index) {
    if (text.empty()) return;
    std::uint32_t node = 0;
    if (terminal_.empty()) terminal_.push_back(kNoToken);
    first_[static_cast<unsigned char>(text[0])] = true;
    for (char c : text) {
      const std::uint64_t edge = (std::uint64_t{node} << 8) | static_cast<unsigned char>(c);
      auto it = edges_.find(edge);
      if (it == edges_.end()) {
        it = edges_.emplace(edge, static_cast<std::uint32_t>(terminal_.size())).first;
        terminal_.push_back(kNoToken);
      }
      node = it->second;
    }
    terminal_[node] = index;
  }
  bool empty() const noexcept { return terminal_.empty(); }
  // The longest token starting at `at`: its length (0 if none) and index.
  std::size_t longest_at(std::string_view text, std::size_t at, std::uint32_t& index) const {
    if (!first_[static_cast<unsigned char>(text[at])]) return 0;
    std::uint32_t node = 0;
    std::size_t best = 0;
    for (std::size_t i = at; i < text.size(); ++i) {
      const auto it = edges_.find((std::uint64_t{node} << 8) | static_cast<unsigned char>(text[i]));
      if (it == edges_.end()) break;
      node = it->second;
      if (terminal_[node] != kNoToken) {
        best = i + 1 - at;
        index = terminal_[node];
      }
    }
    return best;
  }
  std::size_t memory_bytes() const noexcept { return edges_.size() * 32 + terminal_.capacity() * 4; }

 private:
  static constexpr std::uint32_t kNoToken = 0xFFFFFFFFu;
  std::unordered_map<std::uint64_t, std::uint32_t> edges_;
  std::vector<std::uint32_t> terminal_;
  std::array<bool, 256> first_{};
};

// \w as the crate's single_word check sees it (regex crate: alphanumeric, marks, connectors).
bool is_word_char(char32_t cp) {
  if (cp == '_') return true;
  switch (utf8proc_category(static_cast<utf8proc_int32_t>(cp))) {
    case UTF8PROC_CATEGORY_LU: case UTF8PROC_CATEGORY_LL: case UTF8PROC_CATEGORY_LT: case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO: case UTF8PROC_CATEGORY_MN: case UTF8PROC_CATEGORY_MC: case UTF8PROC_CATEGORY_ME:
    case UTF8PROC_CATEGORY_ND: case UTF8PROC_CATEGORY_NL: case UTF8PROC_CATEGORY_NO: case UTF8PROC_CATEGORY_PC:
      return true;
    default:
      return false;
  }
}

std::size_t code_point_start_before(std::string_view text, std::size_t end) {
  std::size_t at = end - 1;
  while (at > 0 && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) --at;
  return at;
}

}  // namespace

// ---------------------------------------------------------------- the tokenizer

struct HfTokenizer::Impl {
  std::vector<Normalizer> normalizers;
  std::vector<PreTokenizer> pre_tokenizers;
  std::vector<AddedToken> added;
  AddedTrie raw_trie;         // added tokens matched before normalization
  AddedTrie normalized_trie;  // `normalized` added tokens, matched on normalized text
  std::unique_ptr<HfBpeModel> model;
  std::string summary;

  std::string normalize(std::string_view text) const {
    std::string out(text);
    for (const Normalizer& step : normalizers) apply(step, out);
    return out;
  }

  // Splits `text` around added tokens (trie), calling on_text(start, end) for the text between and
  // on_token(index) for each token.
  template <typename OnText, typename OnToken>
  void split_added(const AddedTrie& trie, std::string_view text, bool allow_special, OnText&& on_text, OnToken&& on_token) const {
    if (trie.empty()) {
      on_text(std::size_t{0}, text.size());
      return;
    }
    std::size_t emitted = 0;
    std::size_t at = 0;
    while (at < text.size()) {
      std::uint32_t index = 0;
      const std::size_t length = trie.longest_at(text, at, index);
      if (length == 0) {
        ++at;
        continue;
      }
      const AddedToken& token = added[index];
      std::size_t start = at;
      std::size_t stop = at + length;
      at = stop;  // matches never overlap, a skipped one included
      if (token.special && !allow_special) continue;
      if (token.single_word) {
        std::size_t ignored = 0;
        const bool start_ok = start == 0 || !is_word_char(decode_utf8(text, code_point_start_before(text, start), ignored));
        const bool stop_ok = stop == text.size() || !is_word_char(decode_utf8(text, stop, ignored));
        if (!start_ok || !stop_ok) continue;
      }
      if (token.lstrip) {
        std::size_t s = start;
        while (s > emitted) {
          const std::size_t prev = code_point_start_before(text, s);
          std::size_t ignored = 0;
          if (!char_class::is_white_space(decode_utf8(text, prev, ignored))) break;
          s = prev;
        }
        start = s;
      }
      if (token.rstrip) {
        while (stop < text.size()) {
          std::size_t length_cp = 0;
          if (!char_class::is_white_space(decode_utf8(text, stop, length_cp))) break;
          stop += length_cp;
        }
        at = stop;
      }
      if (emitted < start) on_text(emitted, start);
      on_token(index);
      emitted = stop;
    }
    if (emitted < text.size()) on_text(emitted, text.size());
  }

  void pre_tokenize(std::size_t step, std::string_view text, bool first, const Sink& sink) const {
    if (text.empty()) return;
    if (step == pre_tokenizers.size()) {
      sink(text);
      return;
    }
    const PreTokenizer& p = pre_tokenizers[step];
    switch (p.kind) {
      case PreTokenizer::Kind::Split:
        return split(step, p.pattern, p.behavior, p.invert, text, first, sink);
      case PreTokenizer::Kind::ByteLevel: {
        std::string prefixed;
        std::string_view s = text;
        if (p.add_prefix_space && text.front() != ' ') {
          prefixed.reserve(text.size() + 1);
          prefixed.push_back(' ');
          prefixed.append(text);
          s = prefixed;
        }
        if (!p.use_regex) return pre_tokenize(step + 1, s, first, sink);
        Pretokenizer pieces(Pattern::R50k, s);
        for (std::string_view piece; pieces.next(piece);) pre_tokenize(step + 1, piece, first && piece.data() == s.data(), sink);
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
          if (c == ' ') replaced.append(p.replacement);
          else replaced.push_back(c);
        }
        if (!p.split) return pre_tokenize(step + 1, replaced, first, sink);
        PatternSpec literal;
        literal.literal = p.replacement;
        return split(step, literal, Behavior::MergedWithNext, false, replaced, first, sink);
      }
      case PreTokenizer::Kind::Digits: {
        std::vector<Segment> segments;
        std::size_t gap = 0;
        for (std::size_t i = 0; i < text.size();) {
          std::size_t length = 0;
          const char32_t cp = decode_utf8(text, i, length);
          if (char_class::classify(cp) & char_class::kNumber) {
            if (gap < i) segments.push_back({gap, i, false});
            segments.push_back({i, i + length, true});
            gap = i + length;
          }
          i += length;
        }
        if (gap < text.size()) segments.push_back({gap, text.size(), false});
        segments = apply_behavior(std::move(segments), p.individual_digits ? Behavior::Isolated : Behavior::Contiguous);
        for (const Segment& s : segments) pre_tokenize(step + 1, text.substr(s.start, s.end - s.start), first && s.start == 0, sink);
        return;
      }
    }
  }

  void split(std::size_t step, const PatternSpec& pattern, Behavior behavior, bool invert, std::string_view text, bool first,
             const Sink& sink) const {
    std::size_t gap = 0;
    if (behavior == Behavior::Isolated) {
      // Every match and every gap is a piece: stream them.
      for_each_match(pattern, text, [&](std::size_t start, std::size_t end) {
        if (gap < start) pre_tokenize(step + 1, text.substr(gap, start - gap), first && gap == 0, sink);
        pre_tokenize(step + 1, text.substr(start, end - start), first && start == 0, sink);
        gap = end;
      });
      if (gap < text.size()) pre_tokenize(step + 1, text.substr(gap), first && gap == 0, sink);
      return;
    }
    std::vector<Segment> segments;
    for_each_match(pattern, text, [&](std::size_t start, std::size_t end) {
      if (gap < start) segments.push_back({gap, start, invert});
      segments.push_back({start, end, !invert});
      gap = end;
    });
    if (gap < text.size()) segments.push_back({gap, text.size(), invert});
    segments = apply_behavior(std::move(segments), behavior);
    for (const Segment& s : segments) pre_tokenize(step + 1, text.substr(s.start, s.end - s.start), first && s.start == 0, sink);
  }

  // Runs the pipeline over valid UTF-8 `text`: on_token(id) for each added token, on_piece(piece)
  // for each piece the model tokenizes.
  template <typename OnToken, typename OnPiece>
  void run(std::string_view text, bool allow_special, OnToken&& on_token, OnPiece&& on_piece) const {
    const Sink sink = [&](std::string_view piece) { on_piece(piece); };
    const auto token = [&](std::uint32_t index) { on_token(added[index].id); };
    split_added(raw_trie, text, allow_special, [&](std::size_t start, std::size_t end) {
      const std::string_view part = text.substr(start, end - start);
      if (normalizers.empty() && normalized_trie.empty()) {
        pre_tokenize(0, part, start == 0, sink);
        return;
      }
      const std::string normalized = normalize(part);
      split_added(normalized_trie, normalized, allow_special, [&](std::size_t s, std::size_t e) {
        pre_tokenize(0, std::string_view(normalized).substr(s, e - s), start == 0 && s == 0, sink);
      }, token);
    }, token);
  }
};

HfTokenizer::HfTokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HfTokenizer::~HfTokenizer() = default;

std::unique_ptr<const HfTokenizer> HfTokenizer::from_json(std::string_view text) {
  hf::LoadedJson loaded = hf::load_tokenizer_json(text);
  const json& root = loaded.document;
  auto impl = std::make_unique<Impl>();

  if (!root.contains("model") || !root["model"].is_object()) invalid("no \"model\" object");
  const json& model = root["model"];
  const std::string model_type = model.contains("type") && model["type"].is_string() ? model["type"].get<std::string>()
                                 : loaded.merges.empty() && loaded.vocab.empty() ? "(none)" : "BPE";
  if (model_type != "BPE") unsupported("model \"" + model_type + "\" (only BPE)");
  if (model.contains("dropout") && !model["dropout"].is_null() &&
      !(model["dropout"].is_number() && model["dropout"].get<double>() == 0.0)) {
    unsupported("BPE dropout (it makes tokens random)");
  }
  for (const char* affix : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    if (model.contains(affix) && model[affix].is_string() && !model[affix].get<std::string>().empty()) {
      unsupported(std::string("BPE ") + affix);
    }
  }
  if (root.contains("normalizer")) collect_normalizers(root["normalizer"], impl->normalizers);
  if (root.contains("pre_tokenizer")) collect_pre_tokenizers(root["pre_tokenizer"], impl->pre_tokenizers);
  bool byte_level = false;
  for (std::size_t i = 0; i < impl->pre_tokenizers.size(); ++i) {
    if (impl->pre_tokenizers[i].kind != PreTokenizer::Kind::ByteLevel) continue;
    // The model reads raw bytes where the crate reads their byte-level characters: that is the
    // same only when nothing runs on the mapped text after ByteLevel.
    if (i + 1 != impl->pre_tokenizers.size()) unsupported("a pre_tokenizer after ByteLevel");
    byte_level = true;
  }

  HfBpeModel::Options options;
  options.byte_level = byte_level;
  options.byte_fallback = flag(model, "byte_fallback", false);
  options.fuse_unk = flag(model, "fuse_unk", false);
  options.ignore_merges = flag(model, "ignore_merges", false);
  if (model.contains("unk_token") && model["unk_token"].is_string()) options.unk_token = model["unk_token"].get<std::string>();
  const std::size_t vocab_size = loaded.vocab.size();
  const std::size_t merge_count = loaded.merges.size();
  impl->model = std::make_unique<HfBpeModel>(std::move(loaded.vocab), std::move(loaded.merges), options);

  if (root.contains("added_tokens") && root["added_tokens"].is_array()) {
    for (const json& t : root["added_tokens"]) {
      if (!t.is_object() || !t.contains("id") || !t["id"].is_number_unsigned() || !t.contains("content") || !t["content"].is_string()) {
        invalid("added_tokens entries need \"id\" and \"content\"");
      }
      AddedToken token{t["content"].get<std::string>(), t["id"].get<std::uint32_t>(), flag(t, "special", false),
                       flag(t, "lstrip", false), flag(t, "rstrip", false), flag(t, "single_word", false),
                       flag(t, "normalized", !flag(t, "special", false))};
      const auto index = static_cast<std::uint32_t>(impl->added.size());
      if (token.normalized) {
        impl->normalized_trie.add(impl->normalize(token.content), index);
      } else {
        impl->raw_trie.add(token.content, index);
      }
      impl->added.push_back(std::move(token));
    }
  }
  impl->summary = std::string("BPE") + (byte_level ? " (byte-level)" : options.byte_fallback ? " (byte fallback)" : "") + ", " +
                  std::to_string(vocab_size) + " tokens, " + std::to_string(merge_count) + " merges, " +
                  std::to_string(impl->added.size()) + " added tokens";
  return std::unique_ptr<const HfTokenizer>(new HfTokenizer(std::move(impl)));
}

std::unique_ptr<const HfTokenizer> HfTokenizer::from_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::string text;
  if (file) {
    file.seekg(0, std::ios::end);
    const std::streamoff size = file.tellg();
    file.seekg(0, std::ios::beg);
    if (size > 0) {
      text.resize(static_cast<std::size_t>(size));
      file.read(text.data(), size);
    }
  }
  if (!file || text.empty()) {
    throw Error(ErrorKind::Other, ErrorCode::TokenizerUnavailable, "cannot read tokenizer.json file \"" + path + "\"");
  }
  return from_json(text);
}

std::size_t HfTokenizer::count(std::string_view text, bool allow_special, PieceCache* cache) const {
  if (!is_valid_utf8(text)) return count(repair_utf8(text), allow_special, cache);
  std::size_t total = 0;
  impl_->run(text, allow_special, [&](std::uint32_t) { ++total; },
             [&](std::string_view piece) { total += impl_->model->count(piece, cache); });
  return total;
}

std::vector<std::uint32_t> HfTokenizer::encode(std::string_view text, bool allow_special) const {
  if (!is_valid_utf8(text)) return encode(repair_utf8(text), allow_special);
  std::vector<std::uint32_t> ids;
  impl_->run(text, allow_special, [&](std::uint32_t id) { ids.push_back(id); },
             [&](std::string_view piece) { impl_->model->encode(piece, ids); });
  return ids;
}

std::int64_t HfTokenizer::token_to_id(std::string_view token) const {
  for (const AddedToken& t : impl_->added) {
    if (t.content == token) return t.id;
  }
  const std::uint32_t id = impl_->model->token_id(token);
  return id == HfBpeModel::kNone ? -1 : static_cast<std::int64_t>(id);
}

std::string HfTokenizer::summary() const { return impl_->summary; }

std::size_t HfTokenizer::memory_bytes() const noexcept {
  return impl_->model->memory_bytes() + impl_->raw_trie.memory_bytes() + impl_->normalized_trie.memory_bytes() +
         impl_->added.size() * sizeof(AddedToken);
}

}  // namespace ctxwin
