#include "ctxwin/tokenizer/bpe/contraction_split.hpp"

#include <bit>
#include <utility>

#include "ctxwin/tokenizer/bpe/bpe.hpp"

namespace ctxwin {

namespace {

// In the order of one_letter_form and two_letter_form: lower case, then upper, second letter first.
constexpr std::array<std::string_view, ContractionSplit::kForms> kFormBytes = {
    "'s", "'S", "'t", "'T", "'m", "'M", "'d", "'D", "'re", "'rE", "'Re", "'RE", "'ve", "'vE", "'Ve", "'VE", "'ll", "'lL", "'Ll", "'LL"};

}  // namespace

std::string_view ContractionSplit::form_bytes(std::size_t form) noexcept { return form < kForms ? kFormBytes[form] : std::string_view(); }

ContractionSplit::ContractionSplit(const RankTable& ranks) {
  for (std::size_t form = 0; form < kForms; ++form) counts_[form] = static_cast<std::uint32_t>(bpe_count(kFormBytes[form], ranks));
  // Every token that joins bytes before an apostrophe to the apostrophe and what follows it: the
  // bytes before (a word's possible end) and the forms whose start the rest is.
  std::vector<std::pair<std::string_view, std::uint32_t>> word_ends;
  std::size_t bytes = 0;
  for (std::uint32_t rank = 0; rank <= ranks.max_rank(); ++rank) {
    const std::string_view token = ranks.bytes_of(rank);
    for (std::size_t at = token.find('\'', 1); at != std::string_view::npos; at = token.find('\'', at + 1)) {
      const std::string_view rest = token.substr(at);
      std::uint32_t forms = 0;
      for (std::size_t form = 0; form < kForms; ++form) {
        if (kFormBytes[form].starts_with(rest)) forms |= std::uint32_t{1} << form;
      }
      if (forms == 0) continue;
      word_ends.emplace_back(token.substr(0, at), forms);
      bytes += at;
    }
  }
  // A trie of those word ends read backwards; at most one node a byte, the edge table at most half
  // full (4,096 slots for o200k_base, 22% full: one sized for its 886 nodes, 43% full, walked 20%
  // slower).
  const std::size_t slots = std::bit_ceil(2 * bytes + 2);
  edges_.assign(slots, Edge{});
  shift_ = 32 - static_cast<unsigned>(std::countr_zero(slots));
  ends_.assign(1, 0);
  for (const auto& [word_end, forms] : word_ends) {
    std::uint32_t node = 0;
    for (std::size_t k = word_end.size(); k-- > 0;) node = add_child(node, static_cast<unsigned char>(word_end[k]));
    ends_[node] |= forms;
  }
  for (std::size_t byte = 0; byte < root_.size(); ++byte) root_[byte] = child(0, static_cast<unsigned char>(byte));
}

ContractionSplit::Cut ContractionSplit::find(std::string_view piece) const noexcept {
  const std::size_t n = piece.size();
  if (n < 3) return {};
  std::size_t form = kForms;
  std::size_t length = 0;
  if (piece[n - 2] == '\'') {
    form = one_letter_form(static_cast<unsigned char>(piece[n - 1]));
    length = 2;
  } else if (n >= 4 && piece[n - 3] == '\'') {
    form = two_letter_form(static_cast<unsigned char>(piece[n - 2]), static_cast<unsigned char>(piece[n - 1]));
    length = 3;
  }
  if (form == kForms || !word_may_end(piece.substr(0, n - length), form)) return {};
  return {length, counts_[form]};
}

std::uint32_t ContractionSplit::add_child(std::uint32_t node, unsigned char byte) {
  const std::uint32_t key = ((node << 8) | byte) + 1;
  std::size_t i = slot_of(key);
  for (; edges_[i].key != 0; i = (i + 1) & (edges_.size() - 1)) {
    if (edges_[i].key == key) return edges_[i].child;
  }
  const auto created = static_cast<std::uint32_t>(ends_.size());
  ends_.push_back(0);
  edges_[i] = Edge{key, created};
  return created;
}

}  // namespace ctxwin
