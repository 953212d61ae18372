// The added tokens of a tokenizer.json ("added_tokens"), matched as the crate's
// tokenizer/added_vocabulary.rs matches them: leftmost-longest over a trie, before normalization
// unless `normalized`, with lstrip / rstrip / single_word honoured. Tokens marked `special` are
// ordinary text unless special tokens are allowed. Internal to the core.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ctxwin/tokenizer/utf8.hpp"
#include "tokenizer/char_class.hpp"

namespace ctxwin::hf {

struct AddedToken {
  std::string content;
  std::uint32_t id;
  bool special;
  bool lstrip;
  bool rstrip;
  bool single_word;
  bool normalized;
};

// A compressed (radix) trie over added tokens' contents for the crate's leftmost-longest matching.
// Each edge is labelled by a run of bytes of one of the contents, kept once each, so memory is
// about the contents' size plus a few dozen bytes per token; a byte trie spent a hash-map node per
// byte (about 53 bytes per byte: a 20 MB token took 1 GB and 2.4 s to load).
class AddedTrie {
 public:
  // Adds `text` (not empty) as token `index`; a text added twice keeps its last index.
  void add(std::string_view text, std::uint32_t index);
  bool empty() const noexcept { return nodes_.empty(); }
  // The longest token starting at `at`: its length (0 if none) and index.
  std::size_t longest_at(std::string_view text, std::size_t at, std::uint32_t& index) const;
  // The first position from `at` whose byte starts some token (text.size() if none): inline, so
  // that the scan of a text for added tokens costs a table load per byte and no call (most texts
  // hold none, and every count scans its whole text).
  std::size_t next_candidate(std::string_view text, std::size_t at) const noexcept {
    while (at < text.size() && !first_[static_cast<unsigned char>(text[at])]) ++at;
    return at;
  }
  std::size_t memory_bytes() const noexcept;

 private:
  struct Edge {
    std::uint32_t child;
    std::uint32_t text;  // the label: texts_[text][offset, offset + length)
    std::uint32_t offset;
    std::uint32_t length;
  };
  static constexpr std::uint32_t kNoToken = 0xFFFFFFFFu;
  static std::uint64_t key(std::uint32_t node, unsigned char first) noexcept { return (std::uint64_t{node} << 8) | first; }
  std::uint32_t new_node();

  std::string_view label(const Edge& edge) const noexcept { return std::string_view(texts_[edge.text]).substr(edge.offset, edge.length); }

  std::vector<std::string> texts_;    // every content added, once
  std::vector<std::uint32_t> nodes_;  // each node's token index, or kNoToken; node 0 is the root
  std::unordered_map<std::uint64_t, Edge> edges_;
  std::array<bool, 256> first_{};
};

// \w as the crate's single_word check sees it (regex crate: alphanumeric, marks, connectors).
bool is_word_char(char32_t cp);

// The start of the code point that ends at text[end - 1].
std::size_t code_point_start_before(std::string_view text, std::size_t end);

// Splits `text` around added tokens (trie), calling on_text(start, end) for the text between and
// on_token(index) for each token.
template <typename OnText, typename OnToken>
void split_added(const std::vector<AddedToken>& added, const AddedTrie& trie, std::string_view text, bool allow_special, OnText&& on_text,
                 OnToken&& on_token) {
  if (trie.empty()) {
    on_text(std::size_t{0}, text.size());
    return;
  }
  std::size_t emitted = 0;
  std::size_t at = 0;
  while ((at = trie.next_candidate(text, at)) < text.size()) {
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

}  // namespace ctxwin::hf
