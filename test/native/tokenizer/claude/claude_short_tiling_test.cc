// The tiling of short streams (segments, mostly one word), which walks the trie only from the
// positions that can lead below a greedy tiling's count (tile_short in vocabulary.cpp), against the
// DP over every position (tile_all) and a plain DP written here: the real vocabularies over word
// segments as the marked stream writes them (markers, case, apostrophes, accented and CJK letters)
// and over random bytes of a small alphabet; synthetic vocabularies with multi-byte characters and
// no one-character pieces, where the greedy count is far from the best one; every length up to the
// short bound. And the stream cut into segments, in batches, through the segment cache.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "ctxwin/tokenizer/utf8.hpp"
#include "tokenizer/claude/vocabulary.hpp"

namespace ctxwin::claude {
namespace {

std::string u32(std::uint32_t v) {
  return std::string{static_cast<char>(v & 0xFF), static_cast<char>((v >> 8) & 0xFF), static_cast<char>((v >> 16) & 0xFF),
                     static_cast<char>(v >> 24)};
}

std::string file(const std::vector<std::string>& pieces) {
  std::string out = "ctxwcl01" + u32(7) + u32(0) + u32(0) + u32(static_cast<std::uint32_t>(pieces.size()));
  for (const auto& p : pieces) out += std::string{static_cast<char>(p.size() & 0xFF), static_cast<char>(p.size() >> 8)} + p;
  return out + u32(0);
}

std::size_t length_of(unsigned char b) { return b < 0x80 || b >= 0xF8 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4; }

// The fewest pieces tiling `text` over character boundaries, a character no piece covers costing
// one token a byte (vocabularies with no byte-fallback prefixes): the definition.
std::size_t plain_tiling(const std::string& text, const std::unordered_set<std::string>& pieces, std::size_t longest) {
  const std::size_t n = text.size();
  std::vector<std::size_t> best(n + 1, std::numeric_limits<std::size_t>::max());
  best[0] = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (best[i] == std::numeric_limits<std::size_t>::max()) continue;
    const std::size_t len = length_of(static_cast<unsigned char>(text[i]));
    const std::size_t own = pieces.count(text.substr(i, len)) != 0 ? 1 : len;
    if (i + len <= n) best[i + len] = std::min(best[i + len], best[i] + own);
    for (std::size_t l = 1; l <= longest && i + l <= n; ++l) {
      if (pieces.count(text.substr(i, l)) != 0) best[i + l] = std::min(best[i + l], best[i] + 1);
    }
  }
  return best[n];
}

std::string read_file(const std::string& name) {
  std::ifstream in(std::string(CTXWIN_CLAUDE_DATA_DIR) + "/" + name, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

const std::string kBowS{static_cast<char>(kBow)}, kEowS{static_cast<char>(kEow)}, kShiftS{static_cast<char>(kShift)},
    kCapsS{static_cast<char>(kCaps)};

// A segment as the stream writes one: an optional case marker, ⟨bow⟩, a word, ⟨eow⟩ (or a bare
// stretch of punctuation, digits or spaces).
std::string segment(std::mt19937& rng, const std::vector<std::string>& letters) {
  std::uniform_int_distribution<int> kind(0, 9);
  std::uniform_int_distribution<std::size_t> pick(0, letters.size() - 1);
  std::uniform_int_distribution<int> length(1, 14);
  std::string word;
  for (int k = length(rng); k > 0; --k) word += letters[pick(rng)];
  switch (kind(rng)) {
    case 0:
      return kShiftS + kBowS + word + kEowS;
    case 1:
      return kCapsS + kBowS + word + kEowS;
    case 2:
      return word;
    case 3: {
      const std::string punct[] = {".", ",", "!", "'", "...", " ", "  ", "\n", "123", "()", "--", "?!"};
      return kBowS + punct[static_cast<std::size_t>(length(rng)) % 12] + kEowS;
    }
    default:
      return kBowS + word + kEowS;
  }
}

TEST(ClaudeShortTiling, RealVocabulariesOverWordSegmentsMatchTheFullDp) {
  const std::vector<std::string> letters = {"e", "t", "a", "o", "i", "n", "s", "h", "r", "d", "l", "u", "c",  "m",  "w", "y",
                                            "f", "g", "p", "b", "v", "k", "'", "é", "ü", "ñ", "ø", "ж", "日", "本", "x", "q"};
  for (const char* name : {"v3.bin", "v4_7.bin"}) {
    const auto v = Vocabulary::parse(read_file(name), name);
    std::mt19937 rng(4040);
    for (int round = 0; round < 60000; ++round) {
      std::string s = segment(rng, letters);
      if (round % 7 == 0) s += segment(rng, letters);  // two segments: a cut the stream would make
      if (s.size() >= Vocabulary::kShortStream) continue;
      ASSERT_EQ(v->tile(s), v->tile_all(s)) << name << ": \"" << s << "\"";
    }
    // Every length up to the bound, of letters and markers.
    for (std::size_t n = 1; n < Vocabulary::kShortStream; ++n) {
      for (int k = 0; k < 200; ++k) {
        std::string s;
        std::uniform_int_distribution<int> byte(0, 9);
        while (s.size() < n) {
          const int b = byte(rng);
          s += b == 0 ? kBowS : b == 1 ? kEowS : b == 2 ? kShiftS : std::string(1, "etaoin sh'"[b]);
        }
        ASSERT_EQ(v->tile(s), v->tile_all(s)) << name << ": \"" << s << "\"";
      }
    }
  }
}

TEST(ClaudeShortTiling, SyntheticVocabulariesMatchThePlainDp) {
  // Letters of one to four bytes; pieces of two to six characters, none of one: a lone character
  // costs its bytes, so the greedy tiling is often far above the best one. Pieces hold ⟨bow⟩ and
  // ⟨eow⟩ anywhere, so many end in ⟨eow⟩.
  const std::vector<std::string> letters = {"a", "b", "c", "é", "ж", "日", "😀", kBowS, kEowS};
  std::mt19937 rng(40);
  std::uniform_int_distribution<std::size_t> pick(0, letters.size() - 1);
  for (int round = 0; round < 200; ++round) {
    std::unordered_set<std::string> set;
    std::uniform_int_distribution<int> chars(2, 2 + round % 5);
    for (int k = 0; k < 40; ++k) {
      std::string p;
      for (int c = chars(rng); c > 0; --c) p += letters[pick(rng)];
      set.insert(p);
    }
    const std::vector<std::string> pieces(set.begin(), set.end());
    std::size_t longest = 0;
    for (const auto& p : pieces) longest = std::max(longest, p.size());
    const auto v = Vocabulary::parse(file(pieces), "synthetic.bin");
    for (int t = 0; t < 300; ++t) {
      std::string s;
      std::uniform_int_distribution<int> count(1, 20);
      for (int c = count(rng); c > 0; --c) {
        const std::string& l = letters[pick(rng)];
        if (s.size() + l.size() >= Vocabulary::kShortStream) break;
        s += l;
      }
      if (s.empty()) continue;
      ASSERT_EQ(v->tile(s), plain_tiling(s, set, longest)) << "round " << round << ": \"" << s << "\"";
      ASSERT_EQ(v->tile(s), v->tile_all(s)) << "round " << round << ": \"" << s << "\"";
      // Ending in ⟨eow⟩ as a word's segment does, where the pieces that end it are found from the end.
      if (s.size() + 1 < Vocabulary::kShortStream) {
        const std::string word = s + kEowS;
        ASSERT_EQ(v->tile(word), plain_tiling(word, set, longest)) << "round " << round << ": \"" << word << "\"";
      }
    }
  }
}

// tile_segments cuts a stream at its markers in batches of segments (their cache slots prefetched
// together): the same count as the DP over the whole stream, with a cache and without, on streams
// of many batches where markers stand in every arrangement (a case marker with and without the
// ⟨bow⟩ after it, ⟨bow⟩ at the start, ⟨eow⟩ at the end, markers back to back), and on the
// same streams again through the warm cache.
TEST(ClaudeShortTiling, SegmentsInBatchesCountAsTheWholeStream) {
  const auto v = Vocabulary::parse(read_file("v3.bin"), "v3.bin");
  const std::vector<std::string> parts = {kBowS, kEowS, kShiftS, kCapsS, kShiftS + kBowS, kCapsS + kBowS, "the", "cat", "'s",
                                          " ",   "  ",  ".",     "é",    "日本",          "running",      "\n",  "x"};
  std::mt19937 rng(1640);
  std::uniform_int_distribution<std::size_t> pick(0, parts.size() - 1);
  std::uniform_int_distribution<int> count(1, 400);
  SegmentCache cache;
  std::vector<std::string> streams;
  for (int round = 0; round < 300; ++round) {
    std::string s;
    for (int k = count(rng); k > 0; --k) s += parts[pick(rng)];
    streams.push_back(s);
  }
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& s : streams) {
      const std::size_t whole = v->tile_all(s);
      ASSERT_EQ(v->tile_segments(s, nullptr), whole) << s;
      ASSERT_EQ(v->tile_segments(s, &cache), whole) << "pass " << pass << ": " << s;
    }
  }
}

}  // namespace
}  // namespace ctxwin::claude
