#include "ctxwin/tokenizer/bpe/bpe.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

#include "tokenizer/bpe/merge_loop.hpp"

namespace ctxwin {

namespace {

constexpr std::uint32_t kNone = RankTable::kNoRank;

// OpenAI's ranks as the merge loop's parameter: a merged token's id is its rank, and the first
// merges of a piece, between its bytes, come from the rank table's 256 x 256 table.
struct RankMerges {
  const RankTable& ranks;
  std::string_view piece;

  static constexpr bool token_is_rank() { return true; }
  std::uint32_t rank_limit() const noexcept { return RankTable::kMaxRanks; }
  bpe::PairMerge first(std::size_t k, std::uint32_t, std::uint32_t) const noexcept {
    const std::uint32_t rank = ranks.byte_pair_rank(static_cast<unsigned char>(piece[k]), static_cast<unsigned char>(piece[k + 1]));
    return {rank, rank};
  }
  bpe::PairMerge merge(std::uint32_t left, std::uint32_t right) const noexcept {
    const std::uint32_t rank = ranks.merge_rank(left, right);
    return {rank, rank};
  }
};

// Merges `piece` from its bytes into `ids` (which has room for one id per byte); returns how many.
std::size_t merge_bytes(std::string_view piece, const RankTable& ranks, std::uint32_t* ids) {
  for (std::size_t k = 0; k < piece.size(); ++k) ids[k] = ranks.byte_token(static_cast<unsigned char>(piece[k]));
  return bpe::merge_symbols(ids, piece.size(), RankMerges{ranks, piece});
}

}  // namespace

std::size_t bpe_count(std::string_view piece, const RankTable& ranks) {
  if (piece.size() <= 1 || ranks.rank_of(piece) != kNone) return piece.empty() ? 0 : 1;
  return bpe_merge_count(piece, ranks);
}

std::size_t bpe_merge_count(std::string_view piece, const RankTable& ranks) {
  if (piece.size() <= bpe::kShortSymbols) {
    std::array<std::uint32_t, bpe::kShortSymbols> ids;
    return merge_bytes(piece, ranks, ids.data());
  }
  std::vector<std::uint32_t> ids(piece.size());
  return merge_bytes(piece, ranks, ids.data());
}

void bpe_encode(std::string_view piece, const RankTable& ranks, std::vector<std::uint32_t>& out) {
  if (piece.empty()) return;
  if (const std::uint32_t whole = ranks.rank_of(piece); whole != kNone) {
    out.push_back(whole);
    return;
  }
  const std::size_t start = out.size();
  out.resize(start + piece.size());
  out.resize(start + merge_bytes(piece, ranks, out.data() + start));
}

}  // namespace ctxwin

namespace ctxwin {

namespace {

// The backtracking search over one piece. Tokens are held as ranks with their byte lengths.
class Backtracker {
 public:
  Backtracker(std::string_view piece, const RankTable& ranks)
      : piece_(piece), ranks_(ranks), open_((piece.size() + 1 + 63) / 64, ~std::uint64_t{0}) {}

  // Runs the search; tokens() is then the piece's encoding.
  void run() {
    const std::size_t n = piece_.size();
    std::size_t pos = 0;
    Token next = longest_at(0, n + 1);
    while (next.length != 0) {
      Token token = next;
      for (;;) {
        const std::size_t end = pos + token.length;
        if (is_open(end) && (tokens_.empty() || compatible(tokens_.back(), token.rank))) {
          tokens_.push_back(token.rank);
          pos = end;
          next = pos < n ? longest_at(pos, n + 1) : Token{};
          break;
        }
        if (token.length > 1) {
          token = longest_at(pos, token.length);
          continue;
        }
        // Nothing valid ends a token at `pos` after what precedes it: never try it again, and
        // replace the token before with its next shorter one.
        close(pos);
        if (tokens_.empty()) throw std::logic_error("bpe backtracking found no encoding");
        const Token last{tokens_.back(), ranks_.bytes_of(tokens_.back()).size()};
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
    std::uint32_t rank = 0;
    std::size_t length = 0;  // 0: none
  };

  bool is_open(std::size_t at) const noexcept { return (open_[at >> 6] >> (at & 63)) & 1; }
  void close(std::size_t at) noexcept { open_[at >> 6] &= ~(std::uint64_t{1} << (at & 63)); }

  // The longest token that starts at `pos` and is shorter than `below` bytes (every byte is one).
  // It depends only on the `window` bytes it may read: when they are those of the last answer's
  // (a run of one character, a repeated word), that answer stands, without hashing every length.
  Token longest_at(std::size_t pos, std::size_t below) noexcept {
    const auto first = static_cast<unsigned char>(piece_[pos]);
    const std::size_t window = std::min({below - 1, piece_.size() - pos, ranks_.longest_token_from(first)});
    if (last_.window == window && piece_.compare(pos, window, piece_, last_.pos, window) == 0) return last_.token;
    Token found{ranks_.byte_token(first), 1};
    for (std::size_t k = window; k >= 2; --k) {
      const std::uint32_t rank = ranks_.rank_of(piece_.substr(pos, k));
      if (rank != RankTable::kNoRank) {
        found = {rank, k};
        break;
      }
    }
    last_ = {pos, window, found};
    return found;
  }

  // True when `left` then `right` is what merging their bytes gives: they may be neighbours in
  // an encoding. Remembered in a small direct-mapped table: a long run meets the same few pairs.
  bool compatible(std::uint32_t left, std::uint32_t right) {
    const std::uint64_t key = (std::uint64_t{left} << 32 | right) + 1;
    Remembered& slot = memo_[(key * 0x9E3779B97F4A7C15ull) >> (64 - kMemoBits)];
    if (slot.key == key) return slot.compatible;
    const std::string_view a = ranks_.bytes_of(left);
    const std::string_view b = ranks_.bytes_of(right);
    joined_.assign(a);
    joined_.append(b);
    ids_.resize(joined_.size());
    for (std::size_t k = 0; k < joined_.size(); ++k) ids_[k] = ranks_.byte_token(static_cast<unsigned char>(joined_[k]));
    const std::size_t count = bpe::merge_symbols(ids_.data(), ids_.size(), RankMerges{ranks_, joined_});
    slot = {key, count == 2 && ids_[0] == left && ids_[1] == right};
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
  const RankTable& ranks_;
  std::vector<std::uint64_t> open_;  // bit `at`: a token may still end at `at`
  std::vector<std::uint32_t> tokens_;
  LastLongest last_;
  std::vector<Remembered> memo_ = std::vector<Remembered>(std::size_t{1} << kMemoBits);
  std::string joined_;
  std::vector<std::uint32_t> ids_;
};

}  // namespace

std::size_t bpe_backtrack_count(std::string_view piece, const RankTable& ranks) {
  if (piece.empty()) return 0;
  Backtracker search(piece, ranks);
  search.run();
  return search.tokens().size();
}

void bpe_backtrack_encode(std::string_view piece, const RankTable& ranks, std::vector<std::uint32_t>& out) {
  if (piece.empty()) return;
  Backtracker search(piece, ranks);
  search.run();
  out.insert(out.end(), search.tokens().begin(), search.tokens().end());
}

}  // namespace ctxwin
