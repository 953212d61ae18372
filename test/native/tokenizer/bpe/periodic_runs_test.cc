// Runs with a short period (`ababab`, `aab` repeated, a log line's `=-=-`, a word over and over)
// in the backtracking search of OpenAI's encodings: generated over periods 1 to 16 and several
// alphabets (letters, digits, punctuation, spaces, other scripts, emoji), the search gives the
// merge loop's tokens, and its work (answers it computes, merges it checks, tokens it holds)
// does not grow with the run's length, which is what keeps such a run within the pathological
// budget (bench/pathological.ts measures the time). Not timed: the work is counted.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

#include "ctxwin/tokenizer/bpe/bpe.hpp"
#include "ctxwin/tokenizer/bpe/encoding.hpp"
#include "tokenizer/bpe/backtracker.hpp"

namespace ctxwin {
namespace {

using Ids = std::vector<std::uint32_t>;
using bpe::kPeriodicBytes;

// A rank table as the search's vocabulary, as bpe.cpp's, counting the lookups it answers.
class CountingVocabulary {
 public:
  explicit CountingVocabulary(const RankTable& ranks) : ranks_(ranks) {}

  std::uint32_t byte_token(unsigned char byte) const noexcept { return ranks_.byte_token(byte); }
  std::uint32_t token_of(std::string_view bytes) {
    ++lookups;
    const std::uint32_t rank = ranks_.rank_of(bytes);
    return rank == RankTable::kNoRank ? bpe::kNoToken : rank;
  }
  std::size_t length_of(std::uint32_t rank) const noexcept { return ranks_.bytes_of(rank).size(); }
  std::size_t longest_token_from(unsigned char byte) const noexcept { return ranks_.longest_token_from(byte); }
  bool merges_into(std::string_view joined, std::uint32_t left, std::uint32_t right) {
    Ids ids;
    bpe_encode(joined, ranks_, ids);
    return ids.size() == 2 && ids[0] == left && ids[1] == right;
  }

  std::size_t lookups = 0;

 private:
  const RankTable& ranks_;
};

struct Alphabet {
  const char* name;
  std::vector<std::string> units;  // whole UTF-8 sequences
};

const std::vector<Alphabet>& alphabets() {
  static const std::vector<Alphabet> all = {
      {"two letters", {"a", "b"}},
      {"letters", {"a", "b", "c", "x", "y", "z", "A", "Q"}},
      {"digits", {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}},
      {"punctuation", {"=", "-", "*", ".", "/", "_", "#", ":"}},
      {"spaces", {" ", "\n", "\t", " ", "\r\n"}},
      {"letters and spaces", {"a", "b", " ", "c"}},
      {"mixed scripts", {"\xC3\xA9", "\xE6\x97\xA5", "\xD0\x96", "\xCE\xA9", "a", "\xD7\x90"}},
      {"emoji", {"\xF0\x9F\x98\x80", "\xF0\x9F\x91\x8D", "x", "\xE2\x9C\x85"}},
  };
  return all;
}

// One period: `period` units of `alphabet`, drawn by `rng`.
std::string period_block(const Alphabet& alphabet, std::size_t period, std::mt19937& rng) {
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.units.size() - 1);
  std::string block;
  for (std::size_t i = 0; i < period; ++i) block += alphabet.units[pick(rng)];
  return block;
}

std::string repeat(std::string_view block, std::size_t bytes) {
  std::string out;
  out.reserve(bytes + block.size());
  while (out.size() < bytes) out.append(block);
  return out;
}

// Every generated period block of 1 to 16 units, a few per alphabet and period.
std::vector<std::string> period_blocks() {
  std::mt19937 rng(20261202);
  std::vector<std::string> blocks;
  for (const Alphabet& alphabet : alphabets()) {
    for (std::size_t period = 1; period <= 16; ++period) {
      for (int draw = 0; draw < 2; ++draw) blocks.push_back(period_block(alphabet, period, rng));
    }
  }
  // The issue's runs, whatever the draws gave.
  for (const char* block : {"ab", "ba", "ax", "aab", "abc", "=-", "abcdefghijklmnop", "0123456789"}) blocks.emplace_back(block);
  return blocks;
}

class PeriodicRuns : public ::testing::TestWithParam<const char*> {
 protected:
  const RankTable& ranks() const { return Encoding::get(GetParam(), CTXWIN_RANK_DATA_DIR).ranks(); }
};

TEST_P(PeriodicRuns, TheSearchGivesTheMergeLoopsTokens) {
  for (const std::string& block : period_blocks()) {
    const std::string run = repeat(block, 12'000);
    Ids merged;
    bpe_encode(run, ranks(), merged);
    Ids searched;
    bpe_backtrack_encode(run, ranks(), searched);
    ASSERT_EQ(searched, merged) << GetParam() << ": \"" << block << "\" repeated";
    ASSERT_EQ(bpe_backtrack_count(run, ranks()), merged.size()) << GetParam() << ": \"" << block << "\" repeated";
  }
}

// Around a long stretch, the text a piece may carry: nothing, a space and a word before it (a
// pretokenizer's ` ?\p{L}+`), other bytes after it.
const std::vector<std::pair<std::string, std::string>>& surroundings() {
  static const std::vector<std::pair<std::string, std::string>> all = {{"", ""}, {" x", ""}, {"", "yz!"}, {"Q\xC3\xA9", "\xE6\x97\xA5 7"}};
  return all;
}

TEST_P(PeriodicRuns, TheShortcutGivesTheWholeSearchsTokens) {
  std::size_t taken = 0;
  const std::vector<std::string> blocks = period_blocks();
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const std::string& block = blocks[i];
    const auto& [before, after] = surroundings()[i % surroundings().size()];  // each in turn
    std::string piece = before;
    piece.append(repeat(block, kPeriodicBytes + 9'000 + 7 * block.size()));
    piece.append(after);
    CountingVocabulary vocabulary(ranks());
    bpe::Backtracker whole(piece, vocabulary);
    whole.run();
    Ids tokens;
    bpe::SearchWork work;
    const std::size_t count = bpe::search_piece(piece, vocabulary, &tokens, &work);
    ASSERT_EQ(tokens, whole.tokens()) << GetParam() << ": \"" << block << "\" repeated";
    ASSERT_EQ(count, tokens.size());
    ASSERT_EQ(bpe_backtrack_count(piece, ranks()), tokens.size()) << GetParam() << ": \"" << block << "\" repeated";
    taken += work.periodic ? 1 : 0;
  }
  // The check after the shortened searches could fail (then the whole piece is searched, as
  // exactly); on these runs it never does.
  EXPECT_EQ(taken, blocks.size()) << GetParam();
}

TEST_P(PeriodicRuns, TheShortcutMatchesTheMergeLoop) {
  for (const char* block : {"ab", "aab", "*", "-", "=-", " ", "ab ", "\xF0\x9F\x98\x80x"}) {
    std::string piece = "x";
    piece.append(repeat(block, kPeriodicBytes + 5'000));
    Ids merged;
    bpe_encode(piece, ranks(), merged);
    Ids searched;
    bpe_backtrack_encode(piece, ranks(), searched);
    ASSERT_EQ(searched, merged) << GetParam() << ": \"" << block << "\" repeated";
  }
}

TEST_P(PeriodicRuns, WorkDoesNotGrowWithTheRun) {
  for (const std::string& block : period_blocks()) {
    std::size_t steps_short = 0;
    for (const std::size_t bytes : {std::size_t{200'000}, std::size_t{2'000'000}}) {
      const std::string run = repeat(block, bytes);
      CountingVocabulary vocabulary(ranks());
      bpe::SearchWork work;
      const std::size_t count = bpe::search_piece(run, vocabulary, nullptr, &work);
      const std::string label = std::string(GetParam()) + ": \"" + block + "\" repeated to " + std::to_string(run.size()) + " bytes";
      EXPECT_TRUE(work.periodic) << label;
      // The searches cover the same shortened pieces whatever the run's length.
      if (bytes == 200'000) {
        steps_short = work.steps;
      } else {
        EXPECT_LE(work.steps, steps_short + steps_short / 4) << label;
      }
      EXPECT_LE(work.steps, 200 * kPeriodicBytes) << label;
      EXPECT_LT(vocabulary.lookups, 40'000u) << label;
      EXPECT_LT(work.merges, 4096u) << label;
      if (bytes == 200'000) {
        EXPECT_EQ(count, bpe_backtrack_count(run, ranks())) << label;
      }
    }
  }
}

TEST_P(PeriodicRuns, ACountHoldsOnlyTheNewestTokens) {
  // A run that is not periodic, so the whole search counts it.
  std::mt19937 rng(7);
  std::string piece;
  std::uniform_int_distribution<int> letter(0, 2);
  for (std::size_t i = 0; i < 400'000; ++i) piece.push_back(static_cast<char>('a' + letter(rng)));
  ASSERT_EQ(bpe::find_periodic_stretch(piece).period, 0u);
  CountingVocabulary vocabulary(ranks());
  bpe::SearchWork work;
  const std::size_t count = bpe::search_piece(piece, vocabulary, nullptr, &work);
  Ids merged;
  bpe_encode(piece, ranks(), merged);
  EXPECT_EQ(count, merged.size());
  EXPECT_FALSE(work.kept_all_again);
  EXPECT_LE(work.held_peak, 2 * bpe::Backtracker<CountingVocabulary>::kNewestTokens);
  EXPECT_LT(work.held_peak, merged.size() / 2);
}

INSTANTIATE_TEST_SUITE_P(OpenAiEncodings, PeriodicRuns, ::testing::Values("r50k_base", "p50k_base", "cl100k_base", "o200k_base"));

}  // namespace
}  // namespace ctxwin
