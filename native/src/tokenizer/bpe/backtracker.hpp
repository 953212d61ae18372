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
//
// Linear whatever the piece repeats. The longest token at a position depends only on the bytes it
// may span, and a run with a period of p bytes (`ababab`, a repeated word, a log line's `=-=-`)
// meets the same p windows over and over, each in a few lengths as the search backs off from one:
// the answers are kept in a small table keyed by those bytes, so only the first period hashes its
// prefixes (with one entry, a period of two or three cost every token a hash of each length up
// to the longest token, 8-12x prose's time). Counting keeps only the newest tokens (a search
// backs off a few at a time) and falls back to keeping them all when it must go further back, so
// a count holds a bounded number of tokens instead of four bytes each (3x the input for `ab`).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ctxwin::bpe {

inline constexpr std::uint32_t kNoToken = 0xFFFFFFFFu;

// What a search keeps: every token (to encode), or the newest ones only (to count).
enum class Keep { AllTokens, Newest };

// What a search did, for tests that check it stays linear without timing it.
struct SearchWork {
  std::size_t steps = 0;        // tokens tried
  std::size_t lookups = 0;      // longest tokens found (each hashes up to a window's prefixes)
  std::size_t merges = 0;       // neighbours checked by merging their bytes
  std::size_t held_peak = 0;    // most tokens held at once
  bool kept_all_again = false;  // a count that backed off past what it kept and searched again
  bool periodic = false;        // search_piece counted a periodic stretch without searching it all
};

// A small table of recent answers: sets of `kWays` entries picked by a hash, the most recently
// used first, the least recently used replaced. A long run asks the same few questions over and
// over; with one entry a set, two of them that shared it would each be answered again every time.
template <typename Entry, unsigned kBits, std::size_t kWays>
class RecentAnswers {
 public:
  // The entry of `hash`'s set that `matches`, moved to the front of its set; nullptr if none.
  template <typename Matches>
  const Entry* find(std::uint64_t hash, Matches&& matches) {
    Entry* const ways = set_of(hash);
    for (std::size_t w = 0; w < kWays; ++w) {
      if (matches(ways[w])) {
        std::rotate(ways, ways + w, ways + w + 1);
        return ways;
      }
    }
    return nullptr;
  }
  void insert(std::uint64_t hash, const Entry& entry) {
    Entry* const ways = set_of(hash);
    std::move_backward(ways, ways + kWays - 1, ways + kWays);
    ways[0] = entry;
  }

 private:
  Entry* set_of(std::uint64_t hash) noexcept { return &entries_[((hash * 0x9E3779B97F4A7C15ull) >> (64 - kBits)) * kWays]; }

  std::vector<Entry> entries_ = std::vector<Entry>(kWays << kBits);
};

template <typename Vocabulary>
class Backtracker {
 public:
  Backtracker(std::string_view piece, Vocabulary& vocabulary, Keep keep = Keep::AllTokens)
      : piece_(piece), vocabulary_(vocabulary), keep_(keep), open_((piece.size() + 1 + 63) / 64, ~std::uint64_t{0}) {}

  // Tokens a count holds before it drops the oldest half: a search backs off a few tokens at a
  // time, far fewer than this.
  static constexpr std::size_t kNewestTokens = std::size_t{1} << 14;

  // Runs the search; count() is then the number of tokens of the piece, and with Keep::AllTokens
  // tokens() is its encoding.
  void run() {
    if (search()) return;
    // A count backed off past the tokens it kept: search again keeping them all (never seen on
    // real text; it keeps the count exact whatever the vocabulary).
    keep_ = Keep::AllTokens;
    work_.kept_all_again = true;
    std::fill(open_.begin(), open_.end(), ~std::uint64_t{0});
    tokens_.clear();
    dropped_ = 0;
    if (!search()) throw std::logic_error("bpe backtracking found no encoding");
  }

  const std::vector<std::uint32_t>& tokens() const noexcept { return tokens_; }
  std::size_t count() const noexcept { return dropped_ + tokens_.size(); }
  const SearchWork& work() const noexcept { return work_; }

 private:
  struct Token {
    std::uint32_t id = 0;
    std::size_t length = 0;  // 0: none
  };

  // False when a count must back off past the tokens it dropped.
  bool search() {
    const std::size_t n = piece_.size();
    std::size_t pos = 0;
    Token next = longest_at(0, n + 1);
    while (next.length != 0) {
      Token token = next;
      for (;;) {
        ++work_.steps;
        const std::size_t end = pos + token.length;
        if (is_open(end)) {
          if (tokens_.empty() && dropped_ != 0) return false;
          if (tokens_.empty() || compatible(pos, tokens_.back(), token)) {
            push(token.id);
            pos = end;
            next = pos < n ? longest_at(pos, n + 1) : Token{};
            break;
          }
        }
        if (token.length > unit_length_at(pos)) {
          token = shorter_than(pos, token);
          continue;
        }
        // Nothing valid ends a token at `pos` after what precedes it: never try it again, and
        // replace the token before with its next shorter one.
        close(pos);
        if (tokens_.empty()) {
          if (dropped_ != 0) return false;
          throw std::logic_error("bpe backtracking found no encoding");
        }
        const Token last{tokens_.back(), vocabulary_.length_of(tokens_.back())};
        tokens_.pop_back();
        pos -= last.length;
        next = last;
        break;
      }
    }
    return true;
  }

  void push(std::uint32_t id) {
    tokens_.push_back(id);
    work_.held_peak = std::max(work_.held_peak, tokens_.size());
    if (keep_ == Keep::Newest && tokens_.size() >= 2 * kNewestTokens) {
      tokens_.erase(tokens_.begin(), tokens_.begin() + static_cast<std::ptrdiff_t>(kNewestTokens));
      dropped_ += kNewestTokens;
    }
  }

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
  // It depends only on the `window` bytes it may read: when they are those of an answer kept
  // (a run of one character, or of any short period), that answer stands.
  Token longest_at(std::size_t pos, std::size_t below) {
    const auto first = static_cast<unsigned char>(piece_[pos]);
    const std::size_t unit = unit_length_at(pos);
    // The window always covers the unit, whose token is the answer when nothing longer is.
    const std::size_t window = std::max(unit, std::min({below - 1, piece_.size() - pos, vocabulary_.longest_token_from(first)}));
    const std::uint64_t hash = window_hash(pos, window);
    const auto same_window = [&](const Longest& kept) {
      return kept.window == window && piece_.compare(pos, window, piece_, kept.pos, window) == 0;
    };
    if (const Longest* kept = longest_.find(hash, same_window)) return kept->token;
    ++work_.lookups;
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
    longest_.insert(hash, {pos, window, found});
    return found;
  }

  // The next shorter token at `pos` than `token` (longer than a unit), which starts there: the
  // longest of its prefixes that is a token, which depends on the token alone. Kept by token,
  // without hashing or comparing the bytes: a search backing off meets the same few.
  Token shorter_than(std::size_t pos, Token token) {
    const std::uint64_t key = std::uint64_t{token.id} + 1;
    if (const Shorter* kept = shorter_.find(key, [&](const Shorter& e) { return e.key == key; })) return kept->token;
    const Token found = longest_at(pos, token.length);
    shorter_.insert(key, {key, found});
    return found;
  }

  // A hash of the window's length and its first 32 bytes: a run with a period of up to 32 bytes
  // spells a different start at each of its phases, so they fall in different sets.
  std::uint64_t window_hash(std::size_t pos, std::size_t window) const noexcept {
    std::uint64_t h = std::uint64_t{window} + 1;
    const std::size_t span = std::min<std::size_t>(window, 32);
    for (std::size_t i = 0; i < span; i += 8) {
      std::uint64_t word = 0;
      std::memcpy(&word, piece_.data() + pos + i, std::min<std::size_t>(8, span - i));
      h = (h ^ word) * 0xFF51AFD7ED558CCDull;
      h ^= h >> 32;
    }
    return h;
  }

  // True when `left` (ending at `pos`) then `right` (starting there) is what merging their bytes
  // gives: they may be neighbours in an encoding. Kept by pair: a long run meets the same few.
  bool compatible(std::size_t pos, std::uint32_t left, Token right) {
    const std::uint64_t key = (std::uint64_t{left} << 32 | right.id) + 1;
    if (const Compatible* kept = compatible_.find(key, [&](const Compatible& e) { return e.key == key; })) return kept->compatible;
    ++work_.merges;
    const std::size_t left_length = vocabulary_.length_of(left);
    const bool found = vocabulary_.merges_into(piece_.substr(pos - left_length, left_length + right.length), left, right.id);
    compatible_.insert(key, {key, found});
    return found;
  }

  struct Longest {
    std::size_t pos = 0;
    std::size_t window = 0;  // 0: empty
    Token token;
  };
  struct Shorter {
    std::uint64_t key = 0;  // token + 1; 0: empty
    Token token;
  };
  struct Compatible {
    std::uint64_t key = 0;  // (left << 32 | right) + 1; 0: empty
    bool compatible = false;
  };

  std::string_view piece_;
  Vocabulary& vocabulary_;
  Keep keep_;
  std::vector<std::uint64_t> open_;  // bit `at`: a token may still end at `at`
  std::vector<std::uint32_t> tokens_;
  std::size_t dropped_ = 0;  // tokens counted and no longer held (Keep::Newest)
  SearchWork work_;
  // A period of p bytes fills about p entries per window length the search asks there.
  RecentAnswers<Longest, 7, 4> longest_;
  RecentAnswers<Shorter, 7, 4> shorter_;
  RecentAnswers<Compatible, 9, 4> compatible_;
};

// A stretch of a piece that repeats one period: piece[i] == piece[i + period] for begin <= i <
// end - period.
struct PeriodicStretch {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t period = 0;  // 0: none
};

// Pieces from which search_piece looks for a period, and the longest period it looks for (16
// characters of four bytes).
inline constexpr std::size_t kPeriodicBytes = std::size_t{1} << 17;
inline constexpr std::size_t kLongestPeriod = 64;

// The stretch around the middle of `piece` that repeats a period of up to kLongestPeriod bytes,
// when it is at least kPeriodicBytes and half the piece; else period 0.
inline PeriodicStretch find_periodic_stretch(std::string_view piece) {
  constexpr std::size_t kSample = 4096;
  const std::size_t n = piece.size();
  if (n < kPeriodicBytes) return {};
  const std::size_t mid = n / 2;
  std::size_t period = 0;
  for (std::size_t p = 1; p <= kLongestPeriod && period == 0; ++p) {
    if (std::memcmp(piece.data() + mid, piece.data() + mid + p, kSample) == 0) period = p;
  }
  if (period == 0) return {};
  std::size_t begin = mid;
  while (begin > 0 && piece[begin - 1] == piece[begin - 1 + period]) --begin;
  std::size_t end = mid + kSample + period;
  while (end < n && piece[end] == piece[end - period]) ++end;
  if (end - begin < kPeriodicBytes || end - begin < n / 2) return {};
  return {begin, end, period};
}

namespace detail {

// `piece` without the `length` bytes from `at`.
inline std::string without(std::string_view piece, std::size_t at, std::size_t length) {
  std::string out;
  out.reserve(piece.size() - length);
  out.append(piece.substr(0, at));
  out.append(piece.substr(at + length));
  return out;
}

// The index of the token of `tokens` that starts at byte `at`, or tokens.size() if none does.
template <typename Vocabulary>
std::size_t token_starting_at(const std::vector<std::uint32_t>& tokens, Vocabulary& vocabulary, std::size_t at) {
  std::size_t pos = 0;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (pos == at) return i;
    if (pos > at) break;
    pos += vocabulary.length_of(tokens[i]);
  }
  return tokens.size();
}

}  // namespace detail

// The number of tokens of `piece`, found by the search, and with `out`, its tokens appended.
//
// A piece that is mostly one period repeated (a megabyte of `ab`, of `*`, of a word) is counted
// without searching all of it. The search's work per token is bounded but can be large: in a run
// of `*`, o200k_base's 64-byte token may be followed by its 96-byte one (the pair merges into
// those two), a dead end found 100 bytes later, about 700 steps for each token. Instead, the
// search encodes the piece with most of the stretch cut out (a multiple of the period, so the
// bytes on either side of the cut still follow each other), finds two token boundaries x < y in
// the stretch, y - x a multiple of the period, where the same token starts; then encodes the
// piece with a multiple of y - x cut out at y, and checks that x and y are still boundaries
// starting that token. The piece's encoding is then that one with the tokens of [x, y) put back
// as many times as cut: every pair of neighbours in it is a pair of the shorter encoding (the one
// at y, between the token that ends there and the one that starts at x), and the BPE encoding is
// the one sequence of tokens whose neighbours all merge into themselves (see above), so it is
// that. When the check fails the whole piece is searched.
template <typename Vocabulary>
std::size_t search_piece(std::string_view piece, Vocabulary& vocabulary, std::vector<std::uint32_t>* out, SearchWork* work = nullptr) {
  const auto add_work = [&](const SearchWork& w) {
    if (work == nullptr) return;
    work->steps += w.steps;
    work->lookups += w.lookups;
    work->merges += w.merges;
    work->held_peak = std::max(work->held_peak, w.held_peak);
    work->kept_all_again = work->kept_all_again || w.kept_all_again;
  };
  if (const PeriodicStretch stretch = find_periodic_stretch(piece); stretch.period != 0) {
    constexpr std::size_t kWidth = 16384;  // bytes of the stretch each shortened piece keeps
    const std::size_t p = stretch.period;
    // First: the piece with all but 2 x kWidth bytes of the stretch cut out, for x and y.
    const std::size_t first_cut = stretch.begin + kWidth;
    const std::string first = detail::without(piece, first_cut, (stretch.end - stretch.begin - 2 * kWidth) / p * p);
    Backtracker first_search(first, vocabulary);
    first_search.run();
    add_work(first_search.work());
    const std::vector<std::uint32_t>& found = first_search.tokens();
    // The first boundary whose token and phase in the period an earlier boundary had.
    std::size_t x = 0;
    std::size_t y = 0;
    std::uint32_t starts = kNoToken;
    std::unordered_map<std::uint64_t, std::size_t> seen;  // (phase << 32 | token) -> its first boundary
    for (std::size_t i = 0, pos = 0; i < found.size(); pos += vocabulary.length_of(found[i]), ++i) {
      if (pos < stretch.begin + kWidth / 2) continue;
      if (pos > first_cut) break;  // before the cut, `first` and the piece are the same bytes
      const auto [earlier, fresh] = seen.try_emplace(std::uint64_t{pos % p} << 32 | found[i], pos);
      if (!fresh) {
        x = earlier->second;
        y = pos;
        starts = found[i];
        break;
      }
    }
    if (y != 0) {
      // Then: the piece with a multiple of y - x cut out at y, keeping kWidth / 2 bytes of the
      // stretch after y.
      const std::size_t block = y - x;
      const std::size_t repeats = (stretch.end - y - kWidth / 2) / block;
      const std::string second = detail::without(piece, y, repeats * block);
      Backtracker second_search(second, vocabulary);
      second_search.run();
      add_work(second_search.work());
      const std::vector<std::uint32_t>& tokens = second_search.tokens();
      const std::size_t at_x = detail::token_starting_at(tokens, vocabulary, x);
      const std::size_t at_y = detail::token_starting_at(tokens, vocabulary, y);
      if (repeats > 0 && at_x < tokens.size() && at_y < tokens.size() && tokens[at_x] == starts && tokens[at_y] == starts) {
        if (work != nullptr) work->periodic = true;
        if (out != nullptr) {
          out->reserve(out->size() + tokens.size() + repeats * (at_y - at_x));
          out->insert(out->end(), tokens.begin(), tokens.begin() + static_cast<std::ptrdiff_t>(at_y));
          for (std::size_t r = 0; r < repeats; ++r) {
            out->insert(out->end(), tokens.begin() + static_cast<std::ptrdiff_t>(at_x), tokens.begin() + static_cast<std::ptrdiff_t>(at_y));
          }
          out->insert(out->end(), tokens.begin() + static_cast<std::ptrdiff_t>(at_y), tokens.end());
        }
        return tokens.size() + repeats * (at_y - at_x);
      }
    }
  }
  Backtracker search(piece, vocabulary, out != nullptr ? Keep::AllTokens : Keep::Newest);
  search.run();
  add_work(search.work());
  if (out != nullptr) out->insert(out->end(), search.tokens().begin(), search.tokens().end());
  return search.count();
}

}  // namespace ctxwin::bpe
