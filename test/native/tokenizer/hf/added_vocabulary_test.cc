// AddedTrie: the compressed trie of a tokenizer.json's added tokens. Its matches are the
// leftmost-longest ones a plain scan of every token finds (random token sets over small alphabets,
// every position of random texts), and its memory follows the tokens' size (a 20 MB token used to
// take about a gigabyte in the byte trie).
#include "tokenizer/hf/added_vocabulary.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace ctxwin::hf {
namespace {

// The longest of `tokens` that starts at `at` (its length, 0 for none), the last added winning a tie.
std::size_t longest_by_scan(const std::vector<std::string>& tokens, std::string_view text, std::size_t at, std::uint32_t& index) {
  std::size_t best = 0;
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    const std::string& token = tokens[t];
    if (token.size() >= best && text.substr(at, token.size()) == token) {
      if (token.size() > best || best == 0) index = static_cast<std::uint32_t>(t);
      best = token.size();
    }
  }
  return best;
}

std::string random_text(std::mt19937& rng, std::size_t length, std::string_view alphabet) {
  std::string out;
  for (std::size_t i = 0; i < length; ++i) out += alphabet[rng() % alphabet.size()];
  return out;
}

TEST(AddedTrie, FindsWhatAScanOfEveryTokenFinds) {
  std::mt19937 rng(39);
  for (int round = 0; round < 300; ++round) {
    const std::string alphabet = round % 3 == 0 ? "ab" : round % 3 == 1 ? "abc<>" : "a\xC3\xA9 ";
    std::vector<std::string> tokens;
    AddedTrie trie;
    const int count = 1 + static_cast<int>(rng() % 12);
    for (int t = 0; t < count; ++t) {
      std::string token = random_text(rng, 1 + rng() % 7, alphabet);
      // A token given twice keeps its last index, in the trie and in the scan alike.
      for (auto& earlier : tokens) {
        if (earlier == token) earlier.clear();
      }
      tokens.push_back(token);
      trie.add(token, static_cast<std::uint32_t>(tokens.size() - 1));
    }
    const std::string text = random_text(rng, 60, alphabet);
    for (std::size_t at = 0; at < text.size(); ++at) {
      std::uint32_t expected_index = 0;
      std::uint32_t index = 0;
      const std::size_t expected = longest_by_scan(tokens, text, at, expected_index);
      ASSERT_EQ(trie.longest_at(text, at, index), expected) << "round " << round << " at " << at << " in " << text;
      if (expected > 0) {
        EXPECT_EQ(tokens[index], tokens[expected_index]);
      }
    }
  }
}

TEST(AddedTrie, KeepsPrefixesAndTheLongestAtEachPosition) {
  AddedTrie trie;
  trie.add("<a>", 0);
  trie.add("<a><a>", 1);
  trie.add("<ab", 2);
  std::uint32_t index = 9;
  EXPECT_EQ(trie.longest_at("<a><a><a>", 0, index), 6u);
  EXPECT_EQ(index, 1u);
  EXPECT_EQ(trie.longest_at("<a><", 0, index), 3u);
  EXPECT_EQ(index, 0u);
  EXPECT_EQ(trie.longest_at("<abc", 0, index), 3u);
  EXPECT_EQ(index, 2u);
  EXPECT_EQ(trie.longest_at("x<a>", 0, index), 0u);
  EXPECT_EQ(trie.longest_at("<", 0, index), 0u);
}

TEST(AddedTrie, MemoryFollowsTheTokensSize) {
  AddedTrie trie;
  const std::string huge(20u << 20, 'x');
  trie.add(huge, 0);
  trie.add(huge.substr(0, 1000) + "y", 1);
  EXPECT_LT(trie.memory_bytes(), (20u << 20) + (1u << 20));
  std::uint32_t index = 9;
  EXPECT_EQ(trie.longest_at(huge, 0, index), huge.size());
  EXPECT_EQ(index, 0u);
}

}  // namespace
}  // namespace ctxwin::hf
