// The Claude counter against recorded count_tokens figures (ctok's pinned probes: each content
// number below is a measurement) and the marked streams they imply.
#include "ctxwin/tokenizer/claude/claude_tokenizer.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "ctxwin/error.hpp"
#include "ctxwin/tokenizer/normal_forms.hpp"
#include "ctxwin/tokenizer/utf8.hpp"

namespace ctxwin::claude {
namespace {

const ClaudeTokenizer& v3() { return ClaudeTokenizer::get("v3", CTXWIN_CLAUDE_DATA_DIR); }
const ClaudeTokenizer& v47() { return ClaudeTokenizer::get("v4.7", CTXWIN_CLAUDE_DATA_DIR); }
const ClaudeTokenizer& v5() { return ClaudeTokenizer::get("v5", CTXWIN_CLAUDE_DATA_DIR); }

TEST(ClaudeTokenizer, FamiliesAndFrames) {
  EXPECT_EQ(v3().message_overhead(), 7u);
  EXPECT_EQ(v47().message_overhead(), 11u);
  EXPECT_EQ(v5().message_overhead(), 6u);
  EXPECT_EQ(v3().name(), "v3");
  // The same object every time, from any thread.
  const ClaudeTokenizer* seen = nullptr;
  std::thread([&] { seen = &v3(); }).join();
  EXPECT_EQ(seen, &v3());
}

// A host without the files (Node reading the package's data modules) gives the vocabulary's bytes:
// the same family as from the folder, the bytes asked for at most once, never for an unknown family.
TEST(ClaudeTokenizer, AFamilyLoadsFromTheBytesAHostGives) {
  int reads = 0;
  const auto read = [&reads] {
    ++reads;
    std::ifstream file(std::string(CTXWIN_CLAUDE_DATA_DIR) + "/v3.bin", std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  };
  const ClaudeTokenizer& from_bytes = ClaudeTokenizer::get("v3", read);
  EXPECT_EQ(&from_bytes, &v3());
  EXPECT_EQ(from_bytes.count_message("hello"), 8u);
  EXPECT_EQ(&ClaudeTokenizer::get("v3", read), &from_bytes);
  EXPECT_LE(reads, 1);
  EXPECT_THROW(ClaudeTokenizer::get("v4", read), Error);
  EXPECT_LE(reads, 1);
}

TEST(ClaudeTokenizer, UnknownFamilyIsARangeError) {
  try {
    ClaudeTokenizer::get("v4", CTXWIN_CLAUDE_DATA_DIR);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Range);
    EXPECT_NE(std::string(e.what()).find("v3, v4.7, v5"), std::string::npos);
  }
}

TEST(ClaudeTokenizer, WordsAndSeams) {
  EXPECT_EQ(v3().marked_stream("hello, world"), "⟨bow⟩hello⟨eow⟩,⟨eow⟩⟨bow⟩world⟨eow⟩");
  EXPECT_EQ(v3().marked_stream("hello"), "⟨bow⟩hello⟨eow⟩");
  EXPECT_EQ(v3().count("hello"), 1u);
  EXPECT_EQ(v47().count("hello"), 2u);  // v4.7's smaller vocabulary holds no ⟨bow⟩hello⟨eow⟩
  EXPECT_EQ(v3().count(""), 0u);
  // Case markers: title case and (v3 only) four or more capitals.
  EXPECT_EQ(v3().marked_stream("Hello WORLD"), "⟨shift⟩⟨bow⟩hello⟨eow⟩⟨caps⟩⟨bow⟩world⟨eow⟩");
  EXPECT_EQ(v47().marked_stream("Hello WORLD"), "⟨shift⟩⟨bow⟩hello⟨eow⟩⟨bow⟩WORLD⟨eow⟩");
}

struct MarkRow {
  const char* text;
  const char* stream;  // nullptr: not pinned
  int content;         // -1: not pinned
};

// Marks and boundaries, identical in v3 and v4.7 (ctok tests/test_api.py MARK_ROWS).
const std::vector<MarkRow> kMarkRows = {
    {"क्", "⟨bow⟩क⟨eow⟩्", -1},
    {"क्ष", "⟨bow⟩क⟨eow⟩्⟨bow⟩ष⟨eow⟩", -1},
    {"क् ष", "⟨bow⟩क⟨eow⟩्⟨eow⟩⟨bow⟩ष⟨eow⟩", -1},
    {"h\u0301b", "⟨bow⟩h⟨eow⟩\u0301⟨bow⟩b⟨eow⟩", -1},
    {"h\u0345b", "⟨bow⟩h\u0345b⟨eow⟩", -1},
    {"ܒ݁ܒ", "⟨bow⟩ܒ⟨eow⟩݁⟨bow⟩ܒ⟨eow⟩", 10},
    {"ܒ݂ ܒ", "⟨bow⟩ܒ⟨eow⟩݂⟨eow⟩⟨bow⟩ܒ⟨eow⟩", 11},
    {"ܒ݂ܶܒ", "⟨bow⟩ܒ⟨eow⟩݂⟨bow⟩ܶܒ⟨eow⟩", 12},
    {"ܒܰܒ", "⟨bow⟩ܒܰܒ⟨eow⟩", 8},
    {"\u0363", "⟨bow⟩\u0363⟨eow⟩", 4},
    {"x \u0363 x", "⟨bow⟩x⟨eow⟩⟨bow⟩\u0363⟨eow⟩⟨bow⟩x⟨eow⟩", 6},
    {"x \u03635 x", "⟨bow⟩x⟨eow⟩⟨bow⟩\u0363⟨eow⟩5 ⟨bow⟩x⟨eow⟩", 8},
    {"x \u0363abc x", "⟨bow⟩x⟨eow⟩⟨bow⟩\u0363abc⟨eow⟩⟨bow⟩x⟨eow⟩", 7},
    {"!\u0363a", "⟨bow⟩!⟨bow⟩\u0363a⟨eow⟩", 5},
    {"\u1be6\ua75b", "⟨bow⟩\u1be6⟨bow⟩\ua75b⟨eow⟩", 9},
    {"\u0302", "⟨bow⟩\u0302", 3},
    {"!\u0302", "⟨bow⟩!\u0302", 3},
    {"'\u064b", nullptr, 4},
    {"a '\u0363 x", nullptr, 8},
    {"  ☀️夏", nullptr, 7},
    {"🏻️ 5", nullptr, 8},
    {"☀️ 5", nullptr, 7},
};

TEST(ClaudeTokenizer, MarksAndBoundaries) {
  for (const ClaudeTokenizer* t : {&v3(), &v47()}) {
    for (const MarkRow& row : kMarkRows) {
      if (row.stream != nullptr) {
        EXPECT_EQ(t->marked_stream(row.text), row.stream) << t->name() << ": " << row.text;
      }
      if (row.content >= 0) {
        EXPECT_EQ(t->count(row.text), static_cast<std::size_t>(row.content)) << t->name() << ": " << row.text;
      }
    }
  }
}

TEST(ClaudeTokenizer, FrameEdges) {
  // One leading space is the frame's ⟨bow⟩ (v3, v4.7); v5's frame ends in none.
  EXPECT_EQ(v3().count(" a"), v3().count("a"));
  EXPECT_EQ(v5().count(" a"), v5().count("a") + 1);
  // Trailing whitespace is free on v5; on v3 newlines follow the frame's ladder.
  EXPECT_EQ(v5().count("a \n\t"), v5().count("a"));
  EXPECT_EQ(v3().count("a\n"), v3().count("a"));
  EXPECT_EQ(v3().count_message("a"), v3().count("a") + 7);
  // Content that normalizes away still pays the frame's ⟨bow⟩.
  EXPECT_EQ(v3().count("\x01"), 1u);
}

TEST(ClaudeTokenizer, Normalization) {
  // NFC: a decomposed é counts as the composed one; controls vanish; v3 folds curly quotes.
  EXPECT_EQ(v3().count("caf\x65\xCC\x81"), v3().count("caf\xC3\xA9"));
  EXPECT_EQ(v3().count("ab\x01\x02"), v3().count("ab"));
  EXPECT_EQ(v3().marked_stream("\xE2\x80\x9Cx\xE2\x80\x9D"), v3().marked_stream("\"x\""));
  EXPECT_NE(v47().marked_stream("\xE2\x80\x9Cx\xE2\x80\x9D"), v47().marked_stream("\"x\""));
  // Invalid UTF-8 is repaired, never a crash.
  EXPECT_GT(v3().count("a\xFF\xFE b"), 0u);
}

TEST(ClaudeTokenizer, ByteFallbackAndLongInput) {
  // An astral character no piece covers costs its bytes; long runs tile in linear time.
  EXPECT_GE(v3().count("\xF0\x9F\x98\x80"), 1u);
  EXPECT_EQ(v3().count(std::string(20000, 'a')) > 0, true);
  // ASCII digits write no ⟨bow⟩, so the frame's stands alone; then groups of three.
  EXPECT_EQ(v3().count(std::string(3000, '1')), 1001u);
}

TEST(ClaudeTokenizer, SegmentCacheNeverChangesACount) {
  const std::vector<std::string> texts = {
      "The quick brown fox jumps over the lazy dog. THE QUICK BROWN FOX!",
      "int main() { return 0; }  // it's done\n\n\n",
      "日本語のテキスト、中文。 한국어 텍스트",
      "naïve café — “quoted” text, 1234567 and ٣٤٥",
      "क्षत्रिय ภาษาไทย ܒ݂ܶܒ 😀👩‍💻 ☀️ 5",
  };
  for (const ClaudeTokenizer* t : {&v3(), &v47(), &v5()}) {
    SegmentCache cache;
    for (int round = 0; round < 2; ++round) {  // the second round is served from the cache
      for (const auto& text : texts) EXPECT_EQ(t->count(text, &cache), t->count(text)) << t->name() << ": " << text;
    }
    EXPECT_GT(cache.size(), 0u);
  }
}

TEST(ClaudeTokenizer, TextCountsAsItsNfcFormDoes) {
  // Claude normalizes to NFC first; text the quick check passes skips utf8proc. Whichever path a
  // text takes, it must count as its NFC form does: marks in every order, Hangul jamo, singletons,
  // excluded compositions, composing vowel signs, Thai SARA AM in both spellings, controls.
  const std::vector<char32_t> pool = {U'a',   U'E',   U' ',   U'\n',  0x01,   0x00E9, 0x0301, 0x0308, 0x0323,  0x0345, 0x093C, 0x094D,
                                      0x0928, 0x0E01, 0x0E33, 0x0E4D, 0x0E32, 0x0E48, 0x1100, 0x1161, 0x11A8,  0xAC00, 0x2126, 0x212B,
                                      0xF900, 0x0958, 0x0B47, 0x0B3E, 0x1F71, 0x0385, 0xFB01, 0xFFFD, 0x1F600, 0x2019};
  std::mt19937 random(7);
  std::uniform_int_distribution<std::size_t> pick(0, pool.size() - 1);
  std::uniform_int_distribution<int> length(1, 8);
  for (int round = 0; round < 3000; ++round) {
    std::string text;
    for (int k = length(random); k > 0; --k) append_utf8(text, pool[pick(random)]);
    const std::string nfc = normalized(NormalForm::Nfc, text);
    for (const ClaudeTokenizer* t : {&v3(), &v47(), &v5()}) {
      ASSERT_EQ(t->count(text), t->count(nfc)) << t->name() << ": " << text;
      ASSERT_EQ(t->marked_stream(text), t->marked_stream(nfc)) << t->name() << ": " << text;
    }
  }
  // Thai SARA AM spelled as its two parts is composed (NFC leaves it; Claude does not).
  for (const ClaudeTokenizer* t : {&v3(), &v47(), &v5()}) {
    EXPECT_EQ(t->marked_stream("\u0E01\u0E4D\u0E32"), t->marked_stream("\u0E01\u0E33")) << t->name();
  }
}

TEST(SegmentCache, StaysWithinItsBudget) {
  SegmentCache cache(64 * 1024);
  for (int i = 0; i < 20000; ++i) {
    const std::string segment = "segment-" + std::to_string(i);
    if (cache.find(segment) < 0) cache.put(segment, static_cast<std::uint32_t>(i % 100));
    EXPECT_EQ(cache.find(segment), i % 100);
  }
  EXPECT_LT(cache.size(), 20000u);  // it started over at least once
  cache.clear();
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.find("segment-1"), -1);
}

// Segments of up to 8 bytes are held as their own bytes in the slot, longer ones by hash in the
// arena: each is found as itself only, whatever its length, across both kinds and across growth
// (segments that differ by a trailing zero byte, by one byte anywhere, or are prefixes of others).
TEST(SegmentCache, EverySegmentLengthIsItsOwnEntry) {
  std::mt19937 rng(47);
  const std::string alphabet("\0a\xF8\xF9\xC3\xA9", 6);
  std::uniform_int_distribution<std::size_t> letter(0, alphabet.size() - 1);
  std::uniform_int_distribution<std::size_t> length(1, 20);
  std::map<std::string, std::uint32_t> expected;
  SegmentCache cache(std::size_t{16} << 20);
  for (std::uint32_t i = 0; i < 20000; ++i) {
    std::string segment;
    for (std::size_t n = length(rng); n > 0; --n) segment += alphabet[letter(rng)];
    if (expected.count(segment) != 0) continue;
    ASSERT_EQ(cache.find(segment), -1) << i;
    cache.put(segment, i % 1000);
    expected[segment] = i % 1000;
  }
  for (const auto& [segment, cost] : expected) {
    ASSERT_EQ(cache.find(segment), cost);
    for (const std::string& other : {segment + std::string(1, '\0'), segment.substr(0, segment.size() - 1), "b" + segment.substr(1)}) {
      const auto it = expected.find(other);
      ASSERT_EQ(cache.find(other), it == expected.end() ? -1 : std::int64_t{it->second});
    }
  }
}

}  // namespace
}  // namespace ctxwin::claude
