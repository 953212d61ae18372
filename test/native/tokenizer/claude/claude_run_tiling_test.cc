// The Claude tiling across long runs of one byte, which jumps over the run's middle (RunSkip in
// vocabulary.cpp), against a plain minimum-cost DP written here over the piece list: synthetic
// vocabularies of many run lengths and mixed pieces over a small alphabet, and the real v4.7
// vocabulary's pieces over spaces, newlines, dots and letters; runs at, below and above the
// length where the jump starts, between other text and at both ends; the newline ladder. And runs
// of a period of 2 to 16 bytes (PeriodSkip), long enough for their jump, against the same DP.
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

// The fewest pieces tiling ASCII `text`, a lone byte costing one: the definition, O(n * lengths).
std::size_t plain_tiling(const std::string& text, const std::vector<std::string>& pieces) {
  std::unordered_set<std::string> set(pieces.begin(), pieces.end());
  std::vector<std::size_t> lengths;
  for (const auto& p : pieces) lengths.push_back(p.size());
  std::sort(lengths.begin(), lengths.end());
  lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
  std::vector<std::size_t> best(text.size() + 1, std::numeric_limits<std::size_t>::max());
  best[0] = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    best[i + 1] = std::min(best[i + 1], best[i] + 1);
    for (const std::size_t len : lengths) {
      if (i + len <= text.size() && set.count(text.substr(i, len)) != 0) best[i + len] = std::min(best[i + len], best[i] + 1);
    }
  }
  return best[text.size()];
}

std::string random_text(std::mt19937& rng, const std::string& alphabet, std::size_t runs, std::size_t longest_run) {
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  std::uniform_int_distribution<std::size_t> length(1, longest_run);
  std::string text;
  for (std::size_t r = 0; r < runs; ++r) {
    // Mostly short runs, now and then one long enough for a jump (hundreds to thousands of bytes).
    const std::size_t len = r % 3 == 0 ? length(rng) : 1 + length(rng) % 4;
    text.append(len, alphabet[pick(rng)]);
  }
  return text;
}

TEST(ClaudeRunTiling, SyntheticVocabulariesMatchThePlainDp) {
  std::mt19937 rng(2411);
  const std::string alphabet = "ab\n.";
  for (int round = 0; round < 40; ++round) {
    std::vector<std::string> pieces;
    std::uniform_int_distribution<std::size_t> run_len(2, 4 + static_cast<std::size_t>(round % 13));
    for (const char c : alphabet) {
      for (int k = 0; k < 3; ++k) pieces.emplace_back(run_len(rng), c);
    }
    for (int k = 0; k < 12; ++k) pieces.push_back(random_text(rng, alphabet, 2, 3));
    std::sort(pieces.begin(), pieces.end());
    pieces.erase(std::unique(pieces.begin(), pieces.end()), pieces.end());
    const auto v = Vocabulary::parse(file(pieces), "synthetic.bin");
    for (int t = 0; t < 6; ++t) {
      const std::string text = random_text(rng, alphabet, 12, 3000);
      ASSERT_EQ(v->tile(text), plain_tiling(text, pieces)) << "round " << round << ", " << text.size() << " bytes";
    }
    // Runs of every length around where the jump starts, with something before and after.
    for (std::size_t len = 200; len < 1400; len += 37) {
      for (const std::string& around : {std::string(), std::string("ab"), std::string(".")}) {
        const std::string text = around + std::string(len, 'a') + around + std::string(len + 1, '\n');
        ASSERT_EQ(v->tile(text), plain_tiling(text, pieces)) << "round " << round << ", run of " << len;
      }
    }
    for (std::size_t n : {1, 2, 50, 500, 5000, 40000}) {
      ASSERT_EQ(v->newline_tail(n), plain_tiling(std::string(n + 2, '\n'), pieces) - 1) << n << " newlines";
    }
  }
}

// `block` repeated to `bytes` bytes.
std::string repeated(const std::string& block, std::size_t bytes) {
  std::string out;
  while (out.size() < bytes) out += block;
  return out;
}

TEST(ClaudeRunTiling, PeriodicRunsMatchThePlainDp) {
  std::mt19937 rng(1202);
  const std::string alphabet = "ab\n.=-";
  for (int round = 0; round < 12; ++round) {
    // Pieces that repeat the blocks below (long ones, so that the DP walks deep) and random ones.
    std::vector<std::string> pieces;
    std::vector<std::string> blocks;
    for (std::size_t period = 2; period <= 16; period += 1 + static_cast<std::size_t>(round % 3)) {
      const std::string block = random_text(rng, alphabet, period, 1).substr(0, period);
      blocks.push_back(block);
      std::uniform_int_distribution<std::size_t> length(period, 40 + period * 3);
      for (int k = 0; k < 4; ++k) pieces.push_back(repeated(block, 200).substr(rng() % period, length(rng)));  // any phase
    }
    for (int k = 0; k < 12; ++k) pieces.push_back(random_text(rng, alphabet, 2, 3));
    std::sort(pieces.begin(), pieces.end());
    pieces.erase(std::unique(pieces.begin(), pieces.end()), pieces.end());
    const auto v = Vocabulary::parse(file(pieces), "synthetic.bin");
    for (const std::string& block : blocks) {
      for (const std::size_t bytes : {std::size_t{3000}, std::size_t{9000}, std::size_t{30011}}) {
        const std::string text = "a." + repeated(block, bytes) + "\n=" + repeated(block, bytes / 2 + 1);
        ASSERT_EQ(v->tile(text), plain_tiling(text, pieces)) << "round " << round << ", \"" << block << "\" to " << bytes << " bytes";
      }
    }
  }
}

// The v4.7 vocabulary's own pieces over the alphabet of the texts (every other piece cannot match).
TEST(ClaudeRunTiling, TheRealVocabularyMatchesThePlainDp) {
  std::ifstream in(std::string(CTXWIN_CLAUDE_DATA_DIR) + "/v4_7.bin", std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto v = Vocabulary::parse(bytes, "v4_7.bin");
  ASSERT_EQ(bytes.substr(0, 8), "ctxwcl01");
  const std::string alphabet = " \n.a=";
  std::vector<std::string> pieces;
  std::size_t at = 24;
  for (std::size_t i = 0; i < v->piece_count(); ++i) {
    const std::size_t len =
        static_cast<unsigned char>(bytes[at]) | (static_cast<std::size_t>(static_cast<unsigned char>(bytes[at + 1])) << 8);
    const std::string piece = bytes.substr(at + 2, len);
    at += 2 + len;
    if (piece.find_first_not_of(alphabet) == std::string::npos) pieces.push_back(piece);
  }
  ASSERT_GT(pieces.size(), 20u);
  std::mt19937 rng(47);
  for (int t = 0; t < 30; ++t) {
    const std::string text = random_text(rng, alphabet, 30, 40000);
    ASSERT_EQ(v->tile(text), plain_tiling(text, pieces)) << t << ": " << text.size() << " bytes";
  }
  for (const char c : alphabet) {
    for (const std::size_t len : {16000, 16511, 16512, 16513, 17000, 50000, 123457}) {
      const std::string text = std::string(len, c) + "a." + std::string(len, c);
      ASSERT_EQ(v->tile(text), plain_tiling(text, pieces)) << "runs of " << len << " '" << c << "'";
    }
  }
  // Blocks over the alphabet of the pieces kept.
  for (const std::string block : {"=.", "a.", ". ", "a=", "==.", " \n", "aa.", "a a ", "=.=a", "a=aa=", "........=", "a.a..a...a....=="}) {
    for (const std::size_t len : {9000, 40000, 123457}) {
      const std::string text = "a " + repeated(block, len) + "." + repeated(block, len / 3);
      ASSERT_EQ(v->tile(text), plain_tiling(text, pieces)) << "\"" << block << "\" repeated to " << len << " bytes";
    }
  }
  for (const std::size_t n : {1, 3, 127, 128, 129, 20000, 100003}) {
    ASSERT_EQ(v->newline_tail(n), plain_tiling(std::string(n + 2, '\n'), pieces) - 1) << n << " newlines";
  }
}

}  // namespace
}  // namespace ctxwin::claude
