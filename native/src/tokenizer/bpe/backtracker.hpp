// The backtracking search for the BPE encoding of one long piece (the idea of GitHub's rust-gems
// `bpe` crate), in linear time and memory proportional to the piece, written once for both BPE
// families: OpenAI's encodings (bpe.cpp) and tokenizer.json models, by bytes or by characters
// (hf/bpe_model.cpp).
//
// From the piece's start it takes the longest token there and keeps it when it is compatible with
// the token before (merging their joined bytes gives exactly those two tokens); else the next
// shorter token there; when none is, it drops the token before and tries that one's next shorter
// token. A bit per position remembers where no valid encoding can end, so each position is
// abandoned once. The BPE encoding of a text is the one sequence whose neighbours are all
// compatible, so this finds it, provided every token the search may take merges from its bytes
// back into itself: the vocabulary only offers such tokens. Internal to the core.
//
// What differs between the families is the `Vocabulary` parameter, a small class of the caller's:
//
//   struct Vocabulary {
//     std::uint32_t byte_token(unsigned char byte) const;     // every byte is a token
//     // The token spelled `bytes` if there is one and merging its bytes gives it, else kNoToken.
//     std::uint32_t token_of(std::string_view bytes);
//     std::size_t length_of(std::uint32_t token) const;       // bytes of a token
//     std::size_t longest_token_from(unsigned char byte) const;  // an upper bound, at least 1
//     // True when merging `joined` gives exactly `left` then `right`.
//     bool merges_into(std::string_view joined, std::uint32_t left, std::uint32_t right);
//   };
//
// Vocabularies whose units are characters of one to four bytes (SentencePiece-style models, whose
// merges start from code points) also define
//
//     std::size_t unit_length(unsigned char first) const;     // bytes of the unit `first` starts
//     std::uint32_t unit_token(std::string_view unit) const;  // the token of one whole unit
//
// and then every unit of the piece must be a token, and token_of must offer no token that ends
// inside a unit. Without them a unit is one byte, whose token is byte_token's.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace ctxwin::bpe {

inline constexpr std::uint32_t kNoToken = 0xFFFFFFFFu;

template <typename Vocabulary>
class Backtracker {
 public:
  Backtracker(std::string_view piece, Vocabulary& vocabulary)
      : piece_(piece), vocabulary_(vocabulary), open_((piece.size() + 1 + 63) / 64, ~std::uint64_t{0}) {}

  // Runs the search; tokens() is then the piece's encoding.
  void run() {
    const std::size_t n = piece_.size();
    std::size_t pos = 0;
    Token next = longest_at(0, n + 1);
    while (next.length != 0) {
      Token token = next;
      for (;;) {
        const std::size_t end = pos + token.length;
        if (is_open(end) && (tokens_.empty() || compatible(pos, tokens_.back(), token))) {
          tokens_.push_back(token.id);
          pos = end;
          next = pos < n ? longest_at(pos, n + 1) : Token{};
          break;
        }
        if (token.length > unit_length_at(pos)) {
          token = longest_at(pos, token.length);
          continue;
        }
        // Nothing valid ends a token at `pos` after what precedes it: never try it again, and
        // replace the token before with its next shorter one.
        close(pos);
        if (tokens_.empty()) throw std::logic_error("bpe backtracking found no encoding");
        const Token last{tokens_.back(), vocabulary_.length_of(tokens_.back())};
        tokens_.pop_back();
        pos -= last.length;
        next = last;
        break;
      }
    }
  }

  const std::vector<std::uint32_t>& tokens() const noexcept { return tokens_; }

 private:
  struct Token {
    std::uint32_t id = 0;
    std::size_t length = 0;  // 0: none
  };

  bool is_open(std::size_t at) const noexcept { return (open_[at >> 6] >> (at & 63)) & 1; }
  void close(std::size_t at) noexcept { open_[at >> 6] &= ~(std::uint64_t{1} << (at & 63)); }

  static constexpr bool kCharacterUnits = requires(const Vocabulary& v, unsigned char b, std::string_view s) {
    v.unit_length(b);
    v.unit_token(s);
  };

  // Bytes of the unit at `pos` (one byte unless the vocabulary's units are characters).
  std::size_t unit_length_at(std::size_t pos) const noexcept {
    if constexpr (kCharacterUnits) {
      return std::min(vocabulary_.unit_length(static_cast<unsigned char>(piece_[pos])), piece_.size() - pos);
    } else {
      return 1;
    }
  }

  // The longest token that starts at `pos` and is shorter than `below` bytes (every unit is one).
  // It depends only on the `window` bytes it may read: when they are those of the last answer's
  // (a run of one character, a repeated word), that answer stands, without hashing every length.
  Token longest_at(std::size_t pos, std::size_t below) {
    const auto first = static_cast<unsigned char>(piece_[pos]);
    const std::size_t unit = unit_length_at(pos);
    // The window always covers the unit, whose token is the answer when nothing longer is.
    const std::size_t window = std::max(unit, std::min({below - 1, piece_.size() - pos, vocabulary_.longest_token_from(first)}));
    if (last_.window == window && piece_.compare(pos, window, piece_, last_.pos, window) == 0) return last_.token;
    Token found;
    if constexpr (kCharacterUnits) {
      found = {vocabulary_.unit_token(piece_.substr(pos, unit)), unit};
    } else {
      found = {vocabulary_.byte_token(first), 1};
    }
    for (std::size_t k = window; k > unit; --k) {
      const std::uint32_t id = vocabulary_.token_of(piece_.substr(pos, k));
      if (id != kNoToken) {
        found = {id, k};
        break;
      }
    }
    last_ = {pos, window, found};
    return found;
  }

  // True when `left` (ending at `pos`) then `right` (starting there) is what merging their bytes
  // gives: they may be neighbours in an encoding. Remembered in a small direct-mapped table: a
  // long run meets the same few pairs.
  bool compatible(std::size_t pos, std::uint32_t left, Token right) {
    const std::uint64_t key = (std::uint64_t{left} << 32 | right.id) + 1;
    Remembered& slot = memo_[(key * 0x9E3779B97F4A7C15ull) >> (64 - kMemoBits)];
    if (slot.key == key) return slot.compatible;
    const std::size_t left_length = vocabulary_.length_of(left);
    slot = {key, vocabulary_.merges_into(piece_.substr(pos - left_length, left_length + right.length), left, right.id)};
    return slot.compatible;
  }

  struct LastLongest {
    std::size_t pos = 0;
    std::size_t window = SIZE_MAX;  // none yet
    Token token;
  };

  struct Remembered {
    std::uint64_t key = 0;
    bool compatible = false;
  };
  static constexpr unsigned kMemoBits = 12;

  std::string_view piece_;
  Vocabulary& vocabulary_;
  std::vector<std::uint64_t> open_;  // bit `at`: a token may still end at `at`
  std::vector<std::uint32_t> tokens_;
  LastLongest last_;
  std::vector<Remembered> memo_ = std::vector<Remembered>(std::size_t{1} << kMemoBits);
};

}  // namespace ctxwin::bpe
