// The prepared form of a tokenizer.json (native/src/tokenizer/hf/prepared_form.hpp): a round trip
// gives the same tokenizer, and the reader refuses, without a crash, every file that is not one
// made from the same source: another source, truncated, damaged bytes, and damaged structure
// behind a valid checksum (what a file written by another build, or a bug, could hold).
#include "tokenizer/hf/prepared_form.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "ctxwin/tokenizer/hf/bpe_model.hpp"
#include "ctxwin/tokenizer/hf/hf_tokenizer.hpp"

namespace ctxwin {
namespace {

using json = nlohmann::json;

// A byte-level model with a pre-tokenizer regex, a normalizer and added tokens, and a
// SentencePiece-style one (code points, byte fallback): the two table layouts.
std::string byte_level_source() {
  json vocab = json::object();
  std::uint32_t id = 0;
  for (const char c : std::string("abcdefghijklmnopqrstuvwxyz")) vocab[std::string(1, c)] = id++;
  vocab["Ġ"] = id++;
  for (const char* t : {"he", "ll", "llo", "hello", "Ġw", "or", "Ġwor", "ld", "Ġworld"}) vocab[t] = id++;
  const json merges = json::array({"h e", "l l", "ll o", "he llo", "Ġ w", "o r", "Ġw or", "l d", "Ġwor ld"});
  json j = {
      {"version", "1.0"},
      {"added_tokens", json::array({{{"id", id}, {"content", "<|end|>"}, {"special", true}}})},
      {"normalizer", {{"type", "NFC"}}},
      {"pre_tokenizer",
       {{"type", "Sequence"},
        {"pretokenizers",
         json::array({{{"type", "Split"}, {"pattern", {{"Regex", "\\s+|\\w+|[^\\s\\w]+"}}}, {"behavior", "Isolated"}, {"invert", false}},
                      {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}}})}}},
      {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", merges}}}};
  return j.dump();
}

std::string code_point_source() {
  json vocab = {{"<unk>", 0}, {"▁", 1}, {"h", 2}, {"i", 3}, {"é", 4}, {"▁h", 5}, {"▁hi", 6}};
  for (unsigned b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    vocab[name] = 7 + b;
  }
  json j = {
      {"version", "1.0"},
      {"added_tokens", json::array()},
      {"normalizer",
       {{"type", "Sequence"},
        {"normalizers",
         json::array({{{"type", "Prepend"}, {"prepend", "▁"}}, {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "▁"}}})}}},
      {"pre_tokenizer", nullptr},
      {"model",
       {{"type", "BPE"}, {"byte_fallback", true}, {"unk_token", "<unk>"}, {"vocab", vocab}, {"merges", json::array({"▁ h", "▁h i"})}}}};
  return j.dump();
}

const std::vector<std::string> kTexts = {"hello world", "hi hi é ü 日本", "<|end|>hello<|end", "", "   \n\t x", "\xF0\x9F\x99\x82 llo"};

void expect_same(const HfTokenizer& a, const HfTokenizer& b) {
  EXPECT_EQ(a.summary(), b.summary());
  for (const std::string& text : kTexts) {
    for (const SpecialTokens special : {SpecialTokens::AsText, SpecialTokens::AsTokens}) {
      EXPECT_EQ(a.encode(text, special), b.encode(text, special)) << text;
      EXPECT_EQ(a.count(text, nullptr, special), b.count(text, nullptr, special)) << text;
    }
  }
}

struct Prepared {
  std::string source;
  std::uint64_t hash;
  std::string file;
};

Prepared prepare(std::string source) {
  const std::uint64_t hash = HfTokenizer::source_hash(source);
  const std::string file = HfTokenizer::from_json(source)->prepared_form(hash, source.size());
  return {std::move(source), hash, file};
}

TEST(PreparedForm, RoundTripGivesTheSameTokenizer) {
  for (const std::string& source : {byte_level_source(), code_point_source()}) {
    const Prepared p = prepare(source);
    const auto parsed = HfTokenizer::from_json(source);
    const auto restored = HfTokenizer::from_prepared(p.file, p.hash, source.size());
    ASSERT_NE(restored, nullptr);
    expect_same(*parsed, *restored);
    // And again from what the restored one writes: the form is stable.
    EXPECT_EQ(restored->prepared_form(p.hash, source.size()), p.file);
  }
}

TEST(PreparedForm, AnotherSourceIsRefused) {
  const Prepared p = prepare(byte_level_source());
  EXPECT_EQ(HfTokenizer::from_prepared(p.file, p.hash ^ 1, p.source.size()), nullptr);
  EXPECT_EQ(HfTokenizer::from_prepared(p.file, p.hash, p.source.size() + 1), nullptr);
  EXPECT_NE(HfTokenizer::source_hash(p.source), HfTokenizer::source_hash(p.source + " "));
}

TEST(PreparedForm, EveryTruncationIsRefused) {
  const Prepared p = prepare(code_point_source());
  // Every length of the header and the first tables, then a spread over the rest.
  for (std::size_t n = 0; n < p.file.size(); n += n < 4096 ? 1 : 997) {
    EXPECT_EQ(HfTokenizer::from_prepared(std::string_view(p.file).substr(0, n), p.hash, p.source.size()), nullptr) << n;
  }
  EXPECT_EQ(HfTokenizer::from_prepared(p.file + '\0', p.hash, p.source.size()), nullptr);
}

TEST(PreparedForm, DamagedBytesAreRefused) {
  const Prepared p = prepare(byte_level_source());
  std::mt19937_64 random(20261126);
  for (int i = 0; i < 600; ++i) {
    std::string damaged = p.file;
    const std::size_t at = i < 200 ? static_cast<std::size_t>(i) : random() % damaged.size();
    damaged[at] = static_cast<char>(damaged[at] ^ (1 + random() % 255));
    EXPECT_EQ(HfTokenizer::from_prepared(damaged, p.hash, p.source.size()), nullptr) << at;
  }
}

// A model's tables in save()'s order, each part replaceable, behind a valid checksum: what the
// reader must refuse on its own checks.
struct Slot {
  std::uint32_t hash, offset, length, id;
};
struct Merge {
  std::uint32_t right, rank, result;
};
constexpr std::uint32_t kNone = 0xFFFFFFFFu;

struct Tables {
  std::uint8_t byte_level = 1;
  std::size_t byte_table = 256;
  std::string arena = "ab";
  std::vector<Slot> slots = std::vector<Slot>(16, Slot{0, 0, 0, kNone});
  std::vector<std::uint32_t> merges_by_left = {0, 0};
  std::vector<Merge> merges;
  std::size_t seams = (std::size_t{1} << 22) / 64;
  std::size_t bmp = 0;

  std::string payload() const {
    hf::PreparedWriter out;
    for (const std::uint8_t flag : {byte_level, std::uint8_t{0}, std::uint8_t{0}, std::uint8_t{0}, std::uint8_t{0}}) out.value(flag);
    out.bytes("");                    // unk_token
    out.value<std::uint64_t>(1);      // vocabulary entries
    out.value<std::uint32_t>(kNone);  // unk id
    out.array(std::vector<std::uint32_t>(byte_table, kNone));
    out.array(std::vector<std::uint32_t>(256, kNone));
    out.bytes(arena);
    out.array(slots);
    out.array(merges_by_left);
    out.array(merges);
    out.array(std::vector<std::uint64_t>(seams, 0));
    out.array(std::vector<std::uint32_t>(bmp, kNone));
    return out.take();
  }
};

bool restores(const Tables& tables) {
  const std::string payload = tables.payload();
  const std::string sealed = hf::seal_prepared(payload, 7, 8);
  hf::PreparedReader in(hf::open_prepared(sealed, 7, 8));
  try {
    HfBpeModel::restore(in);
    return in.done();
  } catch (const hf::PreparedFormError&) {
    return false;
  }
}

TEST(PreparedForm, TheReaderChecksTheTablesBehindAValidChecksum) {
  Tables good;
  good.slots[0] = Slot{0x1234, 0, 2, 5};
  ASSERT_TRUE(restores(good));

  Tables flag = good;
  flag.byte_level = 2;
  EXPECT_FALSE(restores(flag));
  Tables byte_table = good;
  byte_table.byte_table = 255;
  EXPECT_FALSE(restores(byte_table));
  Tables past_arena = good;
  past_arena.slots[0].length = 3;
  EXPECT_FALSE(restores(past_arena));
  Tables huge_offset = good;
  huge_offset.slots[0].offset = 0xFFFFFFFFu;
  EXPECT_FALSE(restores(huge_offset));
  Tables odd_size = good;
  odd_size.slots.resize(15, Slot{0, 0, 0, kNone});
  EXPECT_FALSE(restores(odd_size));
  Tables full = good;  // no empty slot: a lookup of a missing token would never end
  for (std::size_t i = 0; i < 16; ++i) full.slots[i] = Slot{0, 0, 0, static_cast<std::uint32_t>(i)};
  EXPECT_FALSE(restores(full));
  Tables uncovered = good;
  uncovered.merges = {Merge{1, 0, 2}};
  EXPECT_FALSE(restores(uncovered));  // merges_by_left ends at 0, not 1
  uncovered.merges_by_left = {0, 1};
  EXPECT_TRUE(restores(uncovered));
  Tables unordered = uncovered;
  unordered.merges_by_left = {0, 2, 1};
  EXPECT_FALSE(restores(unordered));
  Tables rank = uncovered;
  rank.merges[0].rank = 1u << 24;
  EXPECT_FALSE(restores(rank));
  Tables seams = good;
  seams.seams = 8;
  EXPECT_FALSE(restores(seams));
  Tables bmp = good;  // a code-point model needs its unit table
  bmp.byte_level = 0;
  EXPECT_FALSE(restores(bmp));
  bmp.bmp = 0x10000;
  EXPECT_TRUE(restores(bmp));
}

TEST(PreparedForm, LengthsPastTheEndAreRefusedBeforeAnyAllocation) {
  hf::PreparedWriter out;
  out.value<std::uint64_t>(std::uint64_t{1} << 60);
  const std::string bytes = out.take();
  hf::PreparedReader in(bytes);
  EXPECT_THROW(in.array<std::uint64_t>(std::uint64_t{1} << 62), hf::PreparedFormError);
  hf::PreparedReader empty("");
  EXPECT_THROW(empty.value<std::uint32_t>(), hf::PreparedFormError);
  EXPECT_THROW(hf::open_prepared("short", 0, 0), hf::PreparedFormError);
}

}  // namespace
}  // namespace ctxwin
