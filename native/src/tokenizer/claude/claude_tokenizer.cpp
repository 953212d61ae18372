#include "ctxwin/tokenizer/claude/claude_tokenizer.hpp"

#include <array>
#include <mutex>

#include "ctxwin/error.hpp"
#include "ctxwin/tokenizer/utf8.hpp"
#include "tokenizer/claude/marked_stream.hpp"
#include "tokenizer/claude/vocabulary.hpp"

namespace ctxwin::claude {

namespace {

struct Family {
  std::string_view name;
  std::size_t file;                // index into kFiles
  std::uint32_t message_overhead;  // 0: the vocabulary file's own figure
  bool frame_bow;
  bool free_tail;
};

constexpr std::array<std::string_view, 2> kFiles = {"v3.bin", "v4_7.bin"};
// v5 (Opus 5, Sonnet 5) tokenizes with v4.7's vocabulary inside another message frame: 6 tokens,
// no ⟨bow⟩ at its end, trailing whitespace free.
constexpr std::array<Family, 3> kFamilies = {{
    {"v3", 0, 0, true, false},
    {"v4.7", 1, 0, true, false},
    {"v5", 1, 6, false, true},
}};

struct Registry {
  std::array<std::once_flag, kFiles.size()> file_once;
  std::array<std::unique_ptr<const Vocabulary>, kFiles.size()> files;
  std::array<std::once_flag, kFamilies.size()> family_once;
  std::array<std::unique_ptr<const ClaudeTokenizer>, kFamilies.size()> families;
};

Registry& registry() {
  static Registry instance;
  return instance;
}

std::string render(std::string_view stream) {
  std::string out;
  for (const char ch : stream) {
    switch (static_cast<unsigned char>(ch)) {
      case kBow:
        out += "⟨bow⟩";
        break;
      case kEow:
        out += "⟨eow⟩";
        break;
      case kShift:
        out += "⟨shift⟩";
        break;
      case kCaps:
        out += "⟨caps⟩";
        break;
      default:
        out.push_back(ch);
    }
  }
  return out;
}

}  // namespace

std::string ClaudeTokenizer::valid_names() {
  std::string names;
  for (const auto& f : kFamilies) {
    if (!names.empty()) names += ", ";
    names += f.name;
  }
  return names;
}

namespace {

// The family `name` from the registry, its vocabulary loaded by `load_vocabulary(file name)` the
// first time.
template <typename LoadVocabulary>
const ClaudeTokenizer& get_or_load(std::string_view name, LoadVocabulary&& load_vocabulary) {
  for (std::size_t i = 0; i < kFamilies.size(); ++i) {
    const Family& f = kFamilies[i];
    if (f.name != name) continue;
    Registry& r = registry();
    // A failed load throws out of call_once and leaves the flag unset: a later call tries again.
    std::call_once(r.file_once[f.file], [&] { r.files[f.file] = load_vocabulary(std::string(kFiles[f.file])); });
    std::call_once(r.family_once[i], [&] {
      const Vocabulary& v = *r.files[f.file];
      r.families[i] = std::make_unique<const ClaudeTokenizer>(
          f.name, v, f.message_overhead != 0 ? f.message_overhead : v.message_overhead(), f.frame_bow, f.free_tail);
    });
    return *r.families[i];
  }
  throw Error::range(ErrorCode::UnknownEncoding,
                     "family must be one of " + ClaudeTokenizer::valid_names() + ", got \"" + std::string(name) + "\"");
}

}  // namespace

const ClaudeTokenizer& ClaudeTokenizer::get(std::string_view name, const std::string& data_dir) {
  return get_or_load(name, [&](const std::string& file) { return Vocabulary::load(data_dir + "/" + file); });
}

const ClaudeTokenizer& ClaudeTokenizer::get(std::string_view name, const std::function<std::string()>& read_vocabulary) {
  return get_or_load(name, [&](const std::string& file) { return Vocabulary::parse(read_vocabulary(), file); });
}

ClaudeTokenizer::ClaudeTokenizer(std::string_view name, const Vocabulary& vocabulary, std::uint32_t message_overhead, bool frame_bow,
                                 bool free_tail)
    : TokenCounter(CountCache::Kind::Segments),
      name_(name),
      vocabulary_(vocabulary),
      message_overhead_(message_overhead),
      frame_bow_(frame_bow),
      free_tail_(free_tail) {}

std::size_t ClaudeTokenizer::content_tokens(std::string_view text, SegmentCache* cache) const {
  const StreamOptions options{vocabulary_.fold_quotes(), vocabulary_.allcaps_min(), frame_bow_, free_tail_};
  const MarkedStream stream = build_marked_stream(text, options);
  return vocabulary_.tile_segments(stream.bytes, cache) + vocabulary_.newline_tail(stream.tail_newlines);
}

std::unique_ptr<CountCache> ClaudeTokenizer::new_cache() const { return std::make_unique<SegmentCache>(std::size_t{16} << 20); }

std::size_t ClaudeTokenizer::count_utf8(std::string_view text, CountCache* cache, SpecialTokens) const {
  return text.empty() ? 0 : content_tokens(text, static_cast<SegmentCache*>(cache));  // checked by TokenCounter
}

std::size_t ClaudeTokenizer::count_message(std::string_view text, CountCache* any_cache) const {
  SegmentCache* const cache = static_cast<SegmentCache*>(checked(any_cache));
  if (!is_valid_utf8(text)) return message_overhead_ + content_tokens(repair_utf8(text), cache);
  return message_overhead_ + content_tokens(text, cache);
}

std::size_t ClaudeTokenizer::memory_bytes() const noexcept { return vocabulary_.memory_bytes(); }

std::string ClaudeTokenizer::marked_stream(std::string_view text) const {
  const StreamOptions options{vocabulary_.fold_quotes(), vocabulary_.allcaps_min(), frame_bow_, free_tail_};
  const std::string valid = is_valid_utf8(text) ? std::string(text) : repair_utf8(text);
  return render(build_marked_stream(valid, options).bytes);
}

}  // namespace ctxwin::claude
