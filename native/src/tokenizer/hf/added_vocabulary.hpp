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
bool is_word_char(char32_t cp);

// The start of the code point that ends at text[end - 1].
std::size_t code_point_start_before(std::string_view text, std::size_t end);

// Splits `text` around added tokens (trie), calling on_text(start, end) for the text between and
// on_token(index) for each token.
template <typename OnText, typename OnToken>
void split_added(const std::vector<AddedToken>& added, const AddedTrie& trie, std::string_view text, bool allow_special,
                 OnText&& on_text, OnToken&& on_token) {
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

}  // namespace ctxwin::hf
