#include "tokenizer/hf/added_vocabulary.hpp"

#include <utf8proc.h>

#include "tokenizer/hf/json_fields.hpp"

namespace ctxwin::hf {

bool is_word_char(char32_t cp) {
  if (cp == '_') return true;
  switch (utf8proc_category(static_cast<utf8proc_int32_t>(cp))) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
    case UTF8PROC_CATEGORY_MN:
    case UTF8PROC_CATEGORY_MC:
    case UTF8PROC_CATEGORY_ME:
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_NO:
    case UTF8PROC_CATEGORY_PC:
      return true;
    default:
      return false;
  }
}

std::uint32_t AddedTrie::new_node() {
  nodes_.push_back(kNoToken);
  return static_cast<std::uint32_t>(nodes_.size() - 1);
}

void AddedTrie::add(std::string_view text, std::uint32_t index) {
  if (text.empty()) return;
  if (text.size() > 0xFFFFFFFFu) invalid("an added token holds more than 4 GiB");
  if (nodes_.empty()) new_node();
  first_[static_cast<unsigned char>(text[0])] = true;
  std::uint32_t node = 0;
  std::size_t at = 0;
  while (at < text.size()) {
    const unsigned char next = static_cast<unsigned char>(text[at]);
    const auto found = edges_.find(key(node, next));
    if (found == edges_.end()) {
      // The rest of the text is a new edge, labelled by the text itself (kept once).
      const std::uint32_t leaf = new_node();
      texts_.emplace_back(text);
      edges_.emplace(key(node, next), Edge{leaf, static_cast<std::uint32_t>(texts_.size() - 1), static_cast<std::uint32_t>(at),
                                           static_cast<std::uint32_t>(text.size() - at)});
      nodes_[leaf] = index;
      return;
    }
    const Edge edge = found->second;
    const std::string_view run = label(edge);
    std::size_t common = 0;
    while (common < run.size() && at + common < text.size() && run[common] == text[at + common]) ++common;
    if (common < run.size()) {
      // The text leaves the edge inside its label: a node there, the rest of the label below it.
      const std::uint32_t middle = new_node();
      const auto split = static_cast<std::uint32_t>(common);
      found->second = Edge{middle, edge.text, edge.offset, split};
      edges_.emplace(key(middle, static_cast<unsigned char>(run[common])),
                     Edge{edge.child, edge.text, edge.offset + split, edge.length - split});
    }
    node = found->second.child;
    at += common;
  }
  nodes_[node] = index;
}

std::size_t AddedTrie::longest_at(std::string_view text, std::size_t at, std::uint32_t& index) const {
  if (nodes_.empty() || !first_[static_cast<unsigned char>(text[at])]) return 0;
  std::uint32_t node = 0;
  std::size_t best = 0;
  std::size_t i = at;
  while (i < text.size()) {
    const auto found = edges_.find(key(node, static_cast<unsigned char>(text[i])));
    if (found == edges_.end()) break;
    const std::string_view run = label(found->second);
    if (text.substr(i, run.size()) != run) break;
    i += run.size();
    node = found->second.child;
    if (nodes_[node] != kNoToken) {
      best = i - at;
      index = nodes_[node];
    }
  }
  return best;
}

std::size_t AddedTrie::memory_bytes() const noexcept {
  std::size_t bytes = texts_.capacity() * sizeof(std::string) + nodes_.capacity() * sizeof(std::uint32_t);
  for (const std::string& text : texts_) bytes += text.capacity();
  // An unordered_map node: the key, the value and a link, plus a bucket pointer.
  return bytes + edges_.size() * (sizeof(std::uint64_t) + sizeof(Edge) + 2 * sizeof(void*));
}

std::size_t code_point_start_before(std::string_view text, std::size_t end) {
  std::size_t at = end - 1;
  while (at > 0 && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) --at;
  return at;
}

}  // namespace ctxwin::hf
