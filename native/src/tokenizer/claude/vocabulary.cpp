#include "tokenizer/claude/vocabulary.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>

#include "ctxwin/error.hpp"
#include "ctxwin/tokenizer/utf8.hpp"

namespace ctxwin::claude {

namespace {

constexpr std::uint32_t kInf = std::numeric_limits<std::uint32_t>::max() / 2;

[[noreturn]] void unreadable(const std::string& path, const std::string& why) {
  throw Error(ErrorKind::Other, ErrorCode::RankDataUnavailable, "cannot load the Claude vocabulary " + path + ": " + why);
}

// Bytes of the UTF-8 character led by `b` (a marker byte counts as one).
inline std::size_t char_length(unsigned char b) noexcept {
  if (b < 0x80 || b >= 0xF8) return 1;
  if (b < 0xE0) return 2;
  if (b < 0xF0) return 3;
  return 4;
}

inline std::uint64_t pack(std::string_view bytes) noexcept {
  std::uint64_t key = static_cast<std::uint64_t>(bytes.size()) << 32;
  for (std::size_t i = 0; i < bytes.size(); ++i) key |= std::uint64_t(static_cast<unsigned char>(bytes[i])) << (8 * (3 - i));
  return key;
}

class Reader {
 public:
  Reader(const std::string& path, std::string data) : path_(path), data_(std::move(data)) {}
  std::uint32_t u32() {
    need(4);
    std::uint32_t v = 0;
    for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(data_[at_ + static_cast<std::size_t>(i)]);
    at_ += 4;
    return v;
  }
  std::uint32_t u16() {
    need(2);
    const std::uint32_t v = static_cast<unsigned char>(data_[at_]) | (std::uint32_t(static_cast<unsigned char>(data_[at_ + 1])) << 8);
    at_ += 2;
    return v;
  }
  std::uint32_t u8() {
    need(1);
    return static_cast<unsigned char>(data_[at_++]);
  }
  std::string bytes(std::size_t n) {
    need(n);
    std::string out = data_.substr(at_, n);
    at_ += n;
    return out;
  }
  std::size_t remaining() const noexcept { return data_.size() - at_; }
  std::string_view view(std::size_t n) {
    need(n);
    std::string_view out(data_.data() + at_, n);
    at_ += n;
    return out;
  }

 private:
  void need(std::size_t n) const {
    if (at_ + n > data_.size()) unreadable(path_, "the file is truncated");
  }
  const std::string& path_;
  std::string data_;
  std::size_t at_ = 0;
};

}  // namespace

std::unique_ptr<const Vocabulary> Vocabulary::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) unreadable(path, "the file cannot be opened");
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse(std::move(data), path);
}

std::unique_ptr<const Vocabulary> Vocabulary::parse(std::string data, const std::string& path) {
  Reader r(path, std::move(data));
  if (r.view(8) != "ctxwcl01") unreadable(path, "not a ctxwin Claude vocabulary (bad magic)");

  std::unique_ptr<Vocabulary> v(new Vocabulary());
  v->message_overhead_ = r.u32();
  v->fold_quotes_ = r.u32() != 0;
  v->allcaps_min_ = r.u32();
  const std::uint32_t n_pieces = r.u32();
  // A piece takes at least three bytes of the file (a u16 length and one byte): a count the file
  // cannot hold is refused before anything is reserved for it, not after gigabytes were.
  if (n_pieces > r.remaining() / 3) unreadable(path, "the file is truncated (" + std::to_string(n_pieces) + " pieces announced)");
  std::vector<std::string> pieces;
  pieces.reserve(n_pieces);
  for (std::uint32_t i = 0; i < n_pieces; ++i) {
    const std::uint32_t len = r.u16();
    if (len == 0) unreadable(path, "an empty piece");
    pieces.push_back(r.bytes(len));
  }
  const std::uint32_t n_prefixes = r.u32();
  if (n_prefixes > r.remaining() / 2) unreadable(path, "the file is truncated (" + std::to_string(n_prefixes) + " prefixes announced)");
  for (std::uint32_t i = 0; i < n_prefixes; ++i) {
    const std::uint32_t len = r.u8();
    if (len == 0 || len > 4) unreadable(path, "a byte-fallback prefix longer than a character");
    v->floor_tokens_.insert(pack(r.bytes(len)));
  }
  // One-character pieces price at 1 in the byte floor too.
  for (const auto& piece : pieces) {
    const auto lead = static_cast<unsigned char>(piece[0]);
    if (lead < 0xF8 && piece.size() == char_length(lead)) v->floor_tokens_.insert(pack(piece));
  }
  for (const auto& piece : pieces) {
    std::size_t head = 0;
    if (static_cast<unsigned char>(piece[0]) == kShift || static_cast<unsigned char>(piece[0]) == kCaps) head = 1;
    for (std::size_t i = 0; i < piece.size(); ++i) {
      const auto b = static_cast<unsigned char>(piece[i]);
      const bool misplaced = ((b == kShift || b == kCaps) && i != 0) ||
                             (b == kShift || b == kCaps ? (piece.size() > 1 && static_cast<unsigned char>(piece[1]) != kBow) : false) ||
                             (b == kBow && i != head) || (b == kEow && i + 1 != piece.size());
      if (misplaced) v->segmentable_ = false;
    }
  }
  v->piece_count_ = pieces.size();
  v->build_trie(pieces, path);

  // Every BMP character's cost, so that the DP's fallback edge is one array read.
  v->bmp_cost_.resize(0x10000);
  std::array<char, 4> buf{};
  for (std::uint32_t cp = 0; cp < 0x10000; ++cp) {
    const auto n = static_cast<std::size_t>(write_utf8(cp, buf.data()) - buf.data());
    v->bmp_cost_[cp] = static_cast<std::uint8_t>(v->byte_floor(std::string_view(buf.data(), n)));
  }
  return v;
}

void Vocabulary::build_trie(std::vector<std::string>& pieces, const std::string& path) {
  std::sort(pieces.begin(), pieces.end());
  pieces.erase(std::unique(pieces.begin(), pieces.end()), pieces.end());
  for (const auto& p : pieces) max_piece_bytes_ = std::max(max_piece_bytes_, p.size());
  std::size_t ring = 8;
  while (ring < max_piece_bytes_ + 8) ring <<= 1;
  ring_mask_ = ring - 1;
  trie_ = double_array(pieces, root_base_, path);
  // The pieces that end a word, spelled backwards: tile_short finds every piece ending at a
  // segment's ⟨eow⟩ with one walk from the end.
  std::vector<std::string> tails;
  for (const auto& p : pieces) {
    if (static_cast<unsigned char>(p.back()) == kEow) tails.emplace_back(p.rbegin(), p.rend());
  }
  std::sort(tails.begin(), tails.end());
  tail_trie_ = double_array(tails, tail_root_base_, path);
}

std::vector<std::uint32_t> Vocabulary::double_array(const std::vector<std::string>& pieces, std::uint32_t& root_base,
                                                    const std::string& path) {
  std::vector<Unit> units(1024, Unit{0, kFree});
  units[0].check = 0;  // the root
  // The free slots form a doubly linked list, so that finding a base skips the taken ones.
  std::vector<std::uint32_t> next_free, prev_free;
  auto grow = [&](std::size_t size) {
    const std::size_t old = next_free.size();
    if (size <= old) return;
    units.resize(size, Unit{0, kFree});
    next_free.resize(size);
    prev_free.resize(size);
    for (std::size_t k = old; k < size; ++k) {
      next_free[k] = static_cast<std::uint32_t>(k + 1);
      prev_free[k] = static_cast<std::uint32_t>(k - 1);
    }
  };
  next_free.assign(1, 1);
  prev_free.assign(1, 0);
  grow(1024);
  std::uint32_t head = 1;  // the first free slot
  // The free slots under 256 also as bits, and the first free slot from 256 on: a node's first
  // label L rules out every slot up to L, and low slots that no label fits stay free for good
  // (slot t takes only labels under t), so stepping through them from `head` for every node was
  // most of building the reversed trie, whose labels start at UTF-8's continuation bytes.
  std::array<std::uint64_t, 4> low_free{~std::uint64_t{1}, ~std::uint64_t{0}, ~std::uint64_t{0}, ~std::uint64_t{0}};
  std::uint32_t high_head = 256;
  auto take = [&](std::uint32_t k) {
    if (k == head)
      head = next_free[k];
    else
      next_free[prev_free[k]] = next_free[k];
    if (next_free[k] < next_free.size()) prev_free[next_free[k]] = prev_free[k];
    if (k < 256) low_free[k >> 6] &= ~(std::uint64_t{1} << (k & 63));
    if (k == high_head) high_head = next_free[k];
  };
  // The first free slot at or after `from` (<= 256); the free list goes on from there.
  auto free_from = [&](std::uint32_t from) -> std::uint32_t {
    for (std::uint32_t w = from >> 6; w < 4; ++w) {
      const std::uint64_t bits = low_free[w] & (w == (from >> 6) ? ~std::uint64_t{0} << (from & 63) : ~std::uint64_t{0});
      if (bits != 0) return (w << 6) | static_cast<std::uint32_t>(std::countr_zero(bits));
    }
    return high_head;
  };
  std::vector<bool> used_base;  // two nodes never share a base

  // Places the children of `node`, which are the distinct bytes at `depth` of pieces[lo, hi), then
  // recurses. Pieces are sorted, so each child's pieces are a contiguous range.
  struct Frame {
    std::uint32_t node;
    std::size_t lo, hi, depth;
  };
  std::vector<Frame> stack{{0, 0, pieces.size(), 0}};
  std::vector<unsigned char> labels;
  std::vector<std::pair<std::size_t, std::size_t>> ranges;
  while (!stack.empty()) {
    const Frame f = stack.back();
    stack.pop_back();
    std::size_t lo = f.lo;
    if (lo < f.hi && pieces[lo].size() == f.depth) {
      units[f.node].base |= kTerminal;
      ++lo;
    }
    if (lo == f.hi) continue;
    labels.clear();
    ranges.clear();
    for (std::size_t i = lo; i < f.hi;) {
      const auto c = static_cast<unsigned char>(pieces[i][f.depth]);
      std::size_t j = i + 1;
      while (j < f.hi && static_cast<unsigned char>(pieces[j][f.depth]) == c) ++j;
      labels.push_back(c);
      ranges.emplace_back(i, j);
      i = j;
    }
    // First fit over the free slots: the lowest base whose slots for all labels are free.
    std::uint32_t base = 0;
    for (std::uint32_t pos = free_from(labels.front() + 1u);; pos = next_free[pos]) {
      if (pos + 257 >= next_free.size()) grow(next_free.size() * 2);
      const std::size_t b = pos - labels.front();
      if (b >= used_base.size()) used_base.resize(b + 4096, false);
      if (used_base[b]) continue;
      bool fits = true;
      for (std::size_t k = 1; fits && k < labels.size(); ++k) fits = units[b + labels[k]].check == kFree;
      if (fits) {
        base = static_cast<std::uint32_t>(b);
        used_base[b] = true;
        break;
      }
    }
    units[f.node].base = (units[f.node].base & kTerminal) | base;
    for (std::size_t k = 0; k < labels.size(); ++k) {
      units[base + labels[k]].check = f.node;
      take(static_cast<std::uint32_t>(base + labels[k]));
    }
    for (std::size_t k = labels.size(); k-- > 0;) {
      stack.push_back({static_cast<std::uint32_t>(base + labels[k]), ranges[k].first, ranges[k].second, f.depth + 1});
    }
  }
  // Trailing room so that base + 255 never reads past the end.
  std::size_t last = units.size();
  while (last > 0 && units[last - 1].check == kFree) --last;
  units.resize(last + 256, Unit{0, kFree});
  // Packed to four bytes a unit, half the cache lines a walk touches: what a unit keeps of its
  // parent is the byte that leads to it, which is enough because no two nodes share a base. A
  // unit t read from the node with base b for byte c has label c exactly when its parent's base
  // is t - c = b, so its parent is that node. A leaf's base is 0 and every base is at least 1, so
  // from a leaf, unit c would need a parent of base 0: no label matches and the walk stops.
  if (units.size() > (std::size_t{1} << (32 - kBaseShift))) unreadable(path, "too many pieces for the index");
  std::vector<std::uint32_t> trie(units.size(), 0);
  for (std::size_t t = 1; t < units.size(); ++t) {
    const Unit& u = units[t];
    if (u.check == kFree) continue;
    const std::uint32_t label = static_cast<std::uint32_t>(t) - (units[u.check].base & ~kTerminal);
    trie[t] = ((u.base & ~kTerminal) << kBaseShift) | ((u.base & kTerminal) ? kEnds : 0) | (label + 1);
  }
  root_base = units[0].base & ~kTerminal;
  trie[0] = root_base << kBaseShift;  // never a child: no label
  return trie;
}

std::size_t Vocabulary::memory_bytes() const noexcept {
  return (trie_.size() + tail_trie_.size()) * sizeof(std::uint32_t) + bmp_cost_.size() + floor_tokens_.size() * 32;
}

std::uint32_t Vocabulary::byte_floor(std::string_view bytes) const {
  // Min-cost tiling of at most four bytes: any single byte is a token, longer runs when held.
  std::array<std::uint32_t, 5> best{0, kInf, kInf, kInf, kInf};
  for (std::size_t i = 1; i <= bytes.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (i - j == 1 || floor_tokens_.count(pack(bytes.substr(j, i - j))) != 0) best[i] = std::min(best[i], best[j] + 1);
    }
  }
  return best[bytes.size()];
}

std::uint32_t Vocabulary::char_cost(std::string_view c) const {
  const auto b0 = static_cast<unsigned char>(c[0]);
  if (b0 >= 0xF8) return 1;  // a marker no piece absorbed
  if (c.size() <= 3) {
    std::uint32_t cp;
    if (c.size() == 1) {
      cp = b0;
    } else if (c.size() == 2) {
      cp = (std::uint32_t(b0 & 0x1F) << 6) | (static_cast<unsigned char>(c[1]) & 0x3F);
    } else {
      cp = (std::uint32_t(b0 & 0x0F) << 12) | (std::uint32_t(static_cast<unsigned char>(c[1]) & 0x3F) << 6) |
           (static_cast<unsigned char>(c[2]) & 0x3F);
    }
    return bmp_cost_[cp];
  }
  if (floor_tokens_.count(pack(c)) != 0) return 1;
  return byte_floor(c);
}

// The minimum-cost tiling across a long run of one ASCII byte `c`, in time independent of the
// run's length. Inside the run every piece is c^L for L in the lengths the vocabulary holds (and
// the byte alone, one token), so from a position e in the run to q the fewest tokens are f(q - e),
// the fewest coins of those lengths summing to q - e. With L the longest, f(m) = f(m - L) + 1 once
// m > (L - 1)^2: an optimal set of coins holds fewer than L coins shorter than L (among L of them
// some non-empty subset sums to a multiple k of L, and k coins of L are fewer), so past (L - 1)^2
// it holds an L. A path into position q of the run enters it through a position e within the
// longest piece of where the DP first saw the run (every earlier piece has landed by then), so
// best[q] = min over those e of best[e] + f(q - e), and best[q] = best[q - L] + 1 for every q
// at least W = max_piece + L * L past that point. The DP runs L positions into that zone, records
// their values, and resumes two of the vocabulary's longest pieces before the run's end (pieces
// that leave the run start within one of it), the slots of the first of those set from
// best[q] = best[q0 + (q - q0) % L] + (q - q0) / L: every value there final, every later one
// relaxed from them as the DP would have, without walking the trie up to L bytes at every byte.
class Vocabulary::RunSkip {
 public:
  // Whether the DP jumps over the middle of a run here: then `pos` is set to just before where it
  // resumes (the loop's ++pos lands there) and the ring holds the values from there on.
  bool jumped(std::size_t& pos, const unsigned char* bytes, std::size_t n, const Vocabulary& v, std::uint32_t* best, std::size_t mask) {
    if (recording_ && pos == q0_ + longest_) return jump(pos, v, best, mask);
    if (pos < checked_) return false;
    const unsigned char c = bytes[pos];
    std::size_t end = pos + 1;
    while (end < n && bytes[end] == c) ++end;
    checked_ = end;
    if (c >= 0x80) return false;
    const std::size_t reach = v.max_piece_bytes_;
    // Too short for any jump (longest >= 1 below), before walking the trie for the run's longest
    // piece: in a line of `=-` every byte is a run of one, and that walk went 128 bytes deep.
    if (end - pos < 3 * reach + 67) return false;
    const std::size_t longest = v.longest_run_piece(c);
    const std::size_t warm = reach + longest * longest;
    if (end - pos < warm + 2 * longest + 2 * reach + 64) return false;  // not worth a jump
    recording_ = true;
    longest_ = longest;
    q0_ = pos + warm;
    run_end_ = end;
    period_.assign(longest, kInf);
    return false;
  }
  void record(std::size_t pos, std::uint32_t cur) {
    if (recording_ && pos >= q0_ && pos < q0_ + longest_) period_[pos - q0_] = cur;
  }

 private:
  bool jump(std::size_t& pos, const Vocabulary& v, std::uint32_t* best, std::size_t mask) {
    recording_ = false;
    const std::size_t reach = v.max_piece_bytes_;
    const std::size_t resume = run_end_ - 2 * reach;  // >= q0_ + longest_: the run is long enough
    std::fill(best, best + mask + 1, kInf);
    for (std::size_t q = resume; q < resume + reach; ++q) {
      const std::size_t k = q - q0_;
      best[q & mask] = period_[k % longest_] + static_cast<std::uint32_t>(k / longest_);  // kInf never: ASCII is reachable
    }
    pos = resume - 1;  // the loop's ++pos resumes there
    return true;
  }

  bool recording_ = false;
  std::size_t checked_ = 0;  // positions before this were looked at as part of a run
  std::size_t longest_ = 1, q0_ = 0, run_end_ = 0;
  std::vector<std::uint32_t> period_;
};

// The minimum-cost tiling across a long stretch that repeats a period of 2 to 64 bytes (`=-=-`,
// `abab`, a word repeated), where the DP walks the trie up to the longest piece at every byte, a
// hundred bytes in a line of `=-` (8x prose's time). A piece ends at most max_piece_bytes_ (the
// reach) after it starts, so the final values of `reach` consecutive positions decide every later
// one; and inside the stretch the pieces from position q + P are those from q moved by P, for P a
// multiple of the period. So once two windows of `reach` final values P apart differ by one
// constant c, position for position (kInf, inside a character, in both), best[q + P] =
// best[q] + c for every later q whose pieces stay in the stretch. The DP records a few thousand
// positions into the stretch, looks for such a P, and when it finds one resumes two reaches
// before the stretch's end with the first reach's slots set from the formula, as RunSkip does;
// when it finds none it tiles the stretch byte by byte. It looks for a period only where a walk
// went deep (32 bytes), and then not again for a while: prose never pays for it.
class Vocabulary::PeriodSkip {
 public:
  static constexpr std::size_t kDeepWalk = 32;

  // After a walk of `depth` bytes from `pos`: starts recording a stretch that begins there.
  void deep_walk(std::size_t pos, std::size_t depth, const unsigned char* bytes, std::size_t n, const Vocabulary& v) {
    if (depth < kDeepWalk || recording_ || pos < checked_) return;
    const std::size_t reach = v.max_piece_bytes_;
    checked_ = pos + 256;
    const std::size_t sample = 2 * reach;
    if (pos + sample + 1 > n || std::memcmp(bytes + pos, bytes + pos + 1, sample) == 0) return;  // a run of one byte: RunSkip's
    std::size_t period = 0;
    for (std::size_t p = 2; p <= kLongestPeriod && period == 0; ++p) {
      if (pos + sample + p <= n && std::memcmp(bytes + pos, bytes + pos + p, sample) == 0) period = p;
    }
    if (period == 0) return;
    std::size_t end = pos + sample + period;
    while (end < n && bytes[end] == bytes[end - period]) ++end;
    checked_ = end;
    if (end - pos < kRecord + 4 * reach + 1024) return;  // not worth a jump
    recording_ = true;
    start_ = pos;
    end_ = end;
    period_ = period;
    values_.assign(kRecord, kInf);
  }
  void record(std::size_t pos, std::uint32_t cur) {
    if (recording_ && pos >= start_ && pos < start_ + kRecord) values_[pos - start_] = cur;
  }
  // Whether the DP jumps here: then `pos` is set to just before where it resumes.
  bool jumped(std::size_t& pos, const Vocabulary& v, std::uint32_t* best, std::size_t mask) {
    if (!recording_ || pos != start_ + kRecord) return false;
    recording_ = false;
    const std::size_t reach = v.max_piece_bytes_;
    // The last window of `reach` recorded values against the one P before it.
    const std::size_t last = kRecord - reach;
    for (std::size_t shift = period_; shift + reach <= last; shift += period_) {
      std::uint32_t drift = 0;
      bool found = false;  // a drift seen
      bool same = true;
      for (std::size_t i = 0; i < reach && same; ++i) {
        const std::uint32_t a = values_[last - shift + i];
        const std::uint32_t b = values_[last + i];
        if (a >= kInf || b >= kInf) {
          same = a >= kInf && b >= kInf;
        } else if (b < a) {
          same = false;
        } else if (!found) {
          drift = b - a;
          found = true;
        } else {
          same = b - a == drift;
        }
      }
      if (!same || !found) continue;
      // best[q] = values_[base + (q - base) % shift] + (q - base) / shift * drift, q >= base.
      const std::size_t base = start_ + last - shift;
      const std::size_t resume = end_ - 2 * reach;  // > start_ + kRecord: the stretch is long enough
      std::fill(best, best + mask + 1, kInf);
      for (std::size_t q = resume; q < resume + reach; ++q) {
        const std::uint32_t at = values_[last - shift + (q - base) % shift];
        best[q & mask] = at >= kInf ? kInf : at + static_cast<std::uint32_t>((q - base) / shift) * drift;
      }
      pos = resume - 1;  // the loop's ++pos resumes there
      return true;
    }
    return false;
  }

 private:
  static constexpr std::size_t kLongestPeriod = 64;
  static constexpr std::size_t kRecord = 4096;  // positions recorded into a stretch

  bool recording_ = false;
  std::size_t checked_ = 0;  // no period looked for before this
  std::size_t start_ = 0, end_ = 0, period_ = 0;
  std::vector<std::uint32_t> values_;
};

// char_cost() of the character of `len` bytes at bytes[pos]: ASCII and markers without the call
// (the DPs ask at every position).
inline std::uint32_t Vocabulary::cost_at(const unsigned char* bytes, std::size_t pos, std::size_t len) const {
  const unsigned char b = bytes[pos];
  if (b < 0x80) return bmp_cost_[b];
  if (b >= 0xF8) return 1;
  return char_cost(std::string_view(reinterpret_cast<const char*>(bytes) + pos, len));
}

// A short stream (a segment: mostly one word, which the segment cache has not seen) tiled with
// little of the trie walked. The DP below walks the trie from every position, a walk of several
// dependent reads that ends in a mispredicted miss, and on a word of unseen text that walking is
// most of the count. Here a greedy tiling (the longest piece at each step, else the character)
// first gives a count U that some tiling reaches. A tiling cheaper than U passes through positions
// p (best[p] = c, the fewest tokens into p) whose next piece ends the stream, so c + 1 < U, or ends
// before it, so c + 2 < U (what follows costs a token at least): along such a tiling every walk
// the DP needs starts at a position with c + 2 <= U, each with the value the full DP gives it
// (induction along the tiling; the one-character edges are all taken). So the DP walks only from
// those positions, and the count is the smaller of U and what it finds. A word that is one piece
// (U = 1) takes one walk; a word of two pieces walks from its start only, and that walk is the
// greedy one's, remembered. From a position with c + 2 = U only a piece ending the stream can
// help, so when the stream ends in ⟨eow⟩ (a word) those pieces come from one walk backwards over
// the reversed pieces that end in ⟨eow⟩: a word of three tokens walks forwards no more than the
// greedy tiling did.
std::size_t Vocabulary::tile_short(std::string_view s) const {
  const std::size_t n = s.size();
  const std::uint32_t* trie = trie_.data();
  const auto* bytes = reinterpret_cast<const unsigned char*>(s.data());
  std::uint32_t bound = 0;
  // The greedy walks find every piece from where they start: ends[pos] (bit e: a piece spans
  // [pos, e)) for each pos in `walked`, which the DP then reads instead of walking again.
  static_assert(kShortStream <= 64);
  std::array<std::uint64_t, kShortStream> ends;
  std::uint64_t walked = 0;
  for (std::size_t pos = 0; pos < n;) {
    // The longest piece from pos that ends where a character starts (or at the end).
    std::size_t end = pos;
    std::uint32_t base = root_base_;
    std::uint64_t found = 0;
    for (std::size_t p = pos; p < n; ++p) {
      const std::uint32_t u = trie[base + bytes[p]];
      if ((u & kLabel) != bytes[p] + 1u) break;
      base = u >> kBaseShift;
      if (u & kEnds) {
        found |= std::uint64_t{1} << (p + 1);
        if (p + 1 == n || (bytes[p + 1] & 0xC0) != 0x80) end = p + 1;
      }
    }
    ends[pos] = found;
    walked |= std::uint64_t{1} << pos;
    if (end > pos) {
      bound += 1;
      pos = end;
      continue;
    }
    const std::size_t len = char_length(bytes[pos]);
    if (pos + len > n) return tile_all(s);  // a cut character: no greedy tiling (never in a stream)
    bound += cost_at(bytes, pos, len);
    pos += len;
  }
  if (bound <= 1) return bound;  // one token, or none: nothing is cheaper
  const std::uint32_t* tail_trie = tail_trie_.data();
  const bool word_end = bytes[n - 1] == kEow;
  std::uint64_t tails = 0;  // bit p: s[p, n) is a piece (once tails_known)
  bool tails_known = false;
  std::array<std::uint32_t, 64> best;
  std::fill(best.begin(), best.begin() + static_cast<std::ptrdiff_t>(n + 1), kInf);
  best[0] = 0;
  for (std::size_t pos = 0; pos < n; ++pos) {
    const std::uint32_t cur = best[pos];
    if (cur >= kInf) continue;  // inside a character
    const std::size_t len = char_length(bytes[pos]);
    if (pos + len <= n) {
      const std::uint32_t cost = cur + cost_at(bytes, pos, len);
      if (cost < best[pos + len]) best[pos + len] = cost;
    }
    if (cur + 2 > bound) continue;  // no piece from here leads below the bound
    const std::uint32_t next = cur + 1;
    if ((walked >> pos) & 1) {
      for (std::uint64_t m = ends[pos]; m != 0; m &= m - 1) {
        std::uint32_t& slot = best[static_cast<std::size_t>(std::countr_zero(m))];
        if (next < slot) slot = next;
      }
      continue;
    }
    if (cur + 2 == bound && word_end) {
      // From here only a piece that ends the segment leads below the bound (one that ends before
      // it leaves at least a token more to pay): the pieces ending at the ⟨eow⟩, all found by
      // one walk back from the end, instead of a walk forward from each such position.
      if (!tails_known) {
        std::uint32_t base = tail_root_base_;
        for (std::size_t p = n; p-- > 0;) {
          const std::uint32_t u = tail_trie[base + bytes[p]];
          if ((u & kLabel) != bytes[p] + 1u) break;
          base = u >> kBaseShift;
          if (u & kEnds) tails |= std::uint64_t{1} << p;
        }
        tails_known = true;
      }
      if (((tails >> pos) & 1) && next < best[n]) best[n] = next;
      continue;
    }
    std::uint32_t base = root_base_;
    for (std::size_t p = pos; p < n; ++p) {
      const std::uint32_t u = trie[base + bytes[p]];
      if ((u & kLabel) != bytes[p] + 1u) break;
      base = u >> kBaseShift;
      if ((u & kEnds) && next < best[p + 1]) best[p + 1] = next;
    }
  }
  return std::min<std::size_t>(bound, best[n]);
}

std::size_t Vocabulary::tile(std::string_view s) const {
  if (s.empty()) return 0;
  return s.size() < kShortStream ? tile_short(s) : tile_all(s);
}

std::size_t Vocabulary::tile_all(std::string_view s) const {
  const std::size_t n = s.size();
  if (n == 0) return 0;
  const std::uint32_t* trie = trie_.data();
  // best[p & mask] is the fewest tokens covering s[0, p); a start relaxes at most
  // max_piece_bytes_ ahead, so a ring of more than that many slots holds every live value. A
  // short stream (a word) needs no more slots than it has positions, and they live on the stack.
  std::array<std::uint32_t, 64> small;
  std::vector<std::uint32_t> large;
  std::uint32_t* best;
  std::size_t mask;
  if (n + 1 <= small.size()) {
    mask = small.size() - 1;
    best = small.data();
    std::fill(small.begin(), small.begin() + static_cast<std::ptrdiff_t>(n + 1), kInf);
  } else {
    mask = ring_mask_;
    large.assign(mask + 1, kInf);
    best = large.data();
  }
  best[0] = 0;
  const auto* bytes = reinterpret_cast<const unsigned char*>(s.data());
  RunSkip skip;
  PeriodSkip period_skip;
  for (std::size_t pos = 0; pos < n; ++pos) {
    if (best != small.data() && (skip.jumped(pos, bytes, n, *this, best, mask) || period_skip.jumped(pos, *this, best, mask))) continue;
    const std::uint32_t cur = best[pos & mask];
    best[pos & mask] = kInf;    // the slot is reused for pos + ring
    if (cur >= kInf) continue;  // inside a character
    skip.record(pos, cur);
    period_skip.record(pos, cur);
    // The one-character edge: a piece, a lone marker, or the byte floor.
    const std::size_t len = char_length(bytes[pos]);
    if (pos + len <= n) {
      const std::uint32_t cost = cur + cost_at(bytes, pos, len);
      std::uint32_t& slot = best[(pos + len) & mask];
      if (cost < slot) slot = cost;
    }
    // Every piece starting here.
    const std::uint32_t next = cur + 1;
    std::uint32_t base = root_base_;
    std::size_t p = pos;
    for (; p < n; ++p) {
      const std::uint32_t u = trie[base + bytes[p]];
      if ((u & kLabel) != bytes[p] + 1u) break;
      base = u >> kBaseShift;
      if (u & kEnds) {
        std::uint32_t& slot = best[(p + 1) & mask];
        if (next < slot) slot = next;
      }
    }
    if (best != small.data()) period_skip.deep_walk(pos, p - pos, bytes, n, *this);
  }
  return best[n & mask];
}

namespace {

// The first cut after `from` (or the stream's end): after every ⟨eow⟩ (it ends each piece holding
// it), before every ⟨bow⟩ with the case marker in front of it (they start each piece holding
// them). No piece spans a cut.
std::size_t next_cut(std::string_view s, std::size_t from) {
  const std::size_t n = s.size();
  for (std::size_t i = from; i < n; ++i) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < kBow) continue;
    if (b == kEow) return i + 1;
    if (i == from) continue;
    if (b == kShift || b == kCaps) {
      if (i + 1 < n && static_cast<unsigned char>(s[i + 1]) == kBow) return i;
    } else if (b == kBow) {
      const auto before = static_cast<unsigned char>(s[i - 1]);
      if (before != kShift && before != kCaps) return i;
    }
  }
  return n;
}

}  // namespace

std::size_t Vocabulary::tile_segments(std::string_view s, SegmentCache* cache) const {
  if (!segmentable_) return tile(s);
  std::size_t total = 0;
  const std::size_t n = s.size();
  // Segments go in batches: the batch's slots are prefetched together, then looked up.
  constexpr std::size_t kBatch = 16;
  std::array<std::size_t, kBatch + 1> cuts;
  std::array<std::uint64_t, kBatch> hashes;
  cuts[0] = 0;
  while (cuts[0] < n) {
    std::size_t count = 0;
    while (count < kBatch && cuts[count] < n) {
      cuts[count + 1] = next_cut(s, cuts[count]);
      if (cache != nullptr) {
        hashes[count] = SegmentCache::hash(s.substr(cuts[count], cuts[count + 1] - cuts[count]));
        cache->prefetch(hashes[count]);
      }
      ++count;
    }
    for (std::size_t k = 0; k < count; ++k) {
      const std::string_view segment = s.substr(cuts[k], cuts[k + 1] - cuts[k]);
      if (cache == nullptr || segment.size() < 2) {
        total += tile(segment);
        continue;
      }
      const std::int64_t hit = cache->find(segment, hashes[k]);
      if (hit >= 0) {
        total += static_cast<std::size_t>(hit);
        continue;
      }
      const std::size_t cost = tile(segment);
      cache->put(segment, static_cast<std::uint32_t>(cost), hashes[k]);
      total += cost;
    }
    cuts[0] = cuts[count];
  }
  return total;
}

std::size_t Vocabulary::newline_tail(std::size_t n) const {
  if (n == 0) return 0;
  // A run of one byte tiles as coins: f(m + L) = f(m) + 1 past L * L (L its longest piece; see
  // RunSkip), so the run tiled is at most that long and the rest is counted, not allocated.
  const std::size_t longest = longest_run_piece('\n');
  std::size_t m = n + 2, extra = 0;
  const std::size_t bound = longest * longest + longest;
  if (m > bound) {
    extra = (m - bound) / longest;
    m -= extra * longest;
  }
  return tile(std::string(m, '\n')) + extra - 1;
}

std::size_t Vocabulary::longest_run_piece(unsigned char c) const {
  std::size_t longest = 1;  // the byte alone always costs one token
  std::uint32_t base = root_base_;
  for (std::size_t depth = 1; depth <= max_piece_bytes_; ++depth) {
    const std::uint32_t u = trie_[base + c];
    if ((u & kLabel) != c + 1u) break;
    base = u >> kBaseShift;
    if (u & kEnds) longest = depth;
  }
  return longest;
}

}  // namespace ctxwin::claude
