// Counts an English contraction apart from the word it ends (o200k_base), where that is exact.
//
// o200k_base's pattern keeps a contraction in its word's piece: " painting's", " shouldn't" are
// one piece each, where cl100k_base cuts " painting" and "'s". A possessive is seldom a token, so
// each such piece is merged, and it repeats only as often as the possessive itself, where
// " painting" alone also comes as the plain word (Debian's word list has "'s" forms of 28% of its
// words). Counting the word and the contraction apart finds the word in the piece cache more often,
// and merges one pair less when it does not.
//
// It is exact when no token can join bytes of the word to bytes of the contraction: then byte-pair
// merging never joins across the cut, and each side makes the same merges in the same order as it
// would alone. A token that could (" world's", "er's", "n't", " I'") is some bytes ending the word
// followed by the first bytes of the contraction; `find` cuts a piece only when its word ends with
// none of those. (It also needs every token to merge from its bytes back into itself, which
// Encoding checks, as it does for for_each_independent_part.)
//
//   ContractionSplit split(ranks);
//   if (const auto cut = split.find(" painting's"); cut.length != 0) {
//     count(" painting"); count += cut.count;  // "'s" is one token
//   }
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "ctxwin/tokenizer/bpe/rank_table.hpp"

namespace ctxwin {

class ContractionSplit {
 public:
  // The contractions of o200k_base's pattern, (?i:'s|'t|'re|'ve|'m|'ll|'d), ASCII case variants.
  static constexpr std::size_t kForms = 20;

  explicit ContractionSplit(const RankTable& ranks);

  struct Cut {
    std::size_t length = 0;   // bytes of the contraction ending the piece; 0: count the piece whole
    std::uint32_t count = 0;  // its tokens
  };
  // The contraction ending `piece`, when the bytes before it (at least one) and it merge apart.
  // Out of line: only the pieces the pretokenizer saw end with a contraction ask (about 30,000 a
  // megabyte of dictionary words), and the count's loop over pieces, which every encoding runs,
  // keeps its size.
  Cut find(std::string_view piece) const noexcept;

  // The bytes of contraction `form` (< kForms), for tests.
  static std::string_view form_bytes(std::size_t form) noexcept;

 private:
  // 's 'S 't 'T 'm 'M 'd 'D: 0-7; then re, ve, ll, four case variants each: 8-19.
  static std::size_t one_letter_form(unsigned char c) noexcept {
    std::size_t base = kForms;
    switch (c | 0x20) {
      case 's':
        base = 0;
        break;
      case 't':
        base = 2;
        break;
      case 'm':
        base = 4;
        break;
      case 'd':
        base = 6;
        break;
      default:
        return kForms;
    }
    return base + ((c & 0x20) == 0 ? 1 : 0);
  }
  static std::size_t two_letter_form(unsigned char c1, unsigned char c2) noexcept {
    const unsigned l1 = c1 | 0x20;
    const unsigned l2 = c2 | 0x20;
    std::size_t base = kForms;
    if (l1 == 'r' && l2 == 'e') {
      base = 8;
    } else if (l1 == 'v' && l2 == 'e') {
      base = 12;
    } else if (l1 == 'l' && l2 == 'l') {
      base = 16;
    } else {
      return kForms;
    }
    return base + ((c1 & 0x20) == 0 ? 2 : 0) + ((c2 & 0x20) == 0 ? 1 : 0);
  }

  // False when `word` ends with bytes that some token continues into contraction `form`: walks a
  // trie of those bytes, read backwards from the word's end (usually one or two steps).
  bool word_may_end(std::string_view word, std::size_t form) const noexcept {
    const std::uint32_t bit = std::uint32_t{1} << form;
    std::size_t k = word.size() - 1;  // the word is never empty
    for (std::uint32_t node = root_[static_cast<unsigned char>(word[k])]; node != kNoNode;
         node = child(node, static_cast<unsigned char>(word[--k]))) {
      if (ends_[node] & bit) return false;
      if (k == 0) break;
    }
    return true;
  }

  static constexpr std::uint32_t kNoNode = 0xFFFFFFFFu;
  std::uint32_t child(std::uint32_t node, unsigned char byte) const noexcept {
    const std::uint32_t key = ((node << 8) | byte) + 1;
    for (std::size_t i = slot_of(key);; i = (i + 1) & (edges_.size() - 1)) {
      if (edges_[i].key == key) return edges_[i].child;
      if (edges_[i].key == 0) return kNoNode;
    }
  }
  std::size_t slot_of(std::uint32_t key) const noexcept { return (key * 0x9E3779B1u) >> shift_; }
  std::uint32_t add_child(std::uint32_t node, unsigned char byte);

  struct Edge {
    std::uint32_t key = 0;  // (parent << 8 | byte) + 1; 0: empty
    std::uint32_t child = 0;
  };
  std::array<std::uint32_t, 256> root_{};  // the root's children, without a probe: every walk's first step
  std::vector<Edge> edges_;                // open addressing, at most half full
  unsigned shift_ = 32;
  std::vector<std::uint32_t> ends_;  // per node: the forms a token continues that suffix into
  std::array<std::uint32_t, kForms> counts_{};
};

}  // namespace ctxwin
