// The loader of the Claude vocabulary files (data/claude/*.bin) on damaged bytes: refused with a
// ctxwin::Error before anything is sized from an untrusted count. Regressions of what
// test/fuzz/claude_vocab_fuzz.cc found (docs/reliability.md).
#include "tokenizer/claude/vocabulary.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ctxwin/error.hpp"

namespace ctxwin::claude {
namespace {

std::string u32(std::uint32_t v) {
  return std::string{static_cast<char>(v & 0xFF), static_cast<char>((v >> 8) & 0xFF), static_cast<char>((v >> 16) & 0xFF),
                     static_cast<char>(v >> 24)};
}

// A vocabulary file: header, pieces (u16 length + bytes), prefixes (u8 length + bytes).
std::string file(std::uint32_t n_pieces, const std::vector<std::string>& pieces, std::uint32_t n_prefixes,
                 const std::vector<std::string>& prefixes) {
  std::string out = "ctxwcl01" + u32(7) + u32(0) + u32(0) + u32(n_pieces);
  for (const auto& p : pieces) out += std::string{static_cast<char>(p.size() & 0xFF), static_cast<char>(p.size() >> 8)} + p;
  out += u32(n_prefixes);
  for (const auto& p : prefixes) out += static_cast<char>(p.size()) + p;
  return out;
}

void expect_refused(const std::string& bytes, const std::string& why) {
  try {
    Vocabulary::parse(bytes, "bad.bin");
    FAIL() << "expected an error (" << why << ") for " << bytes.size() << " bytes";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::RankDataUnavailable);
    EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
  }
}

TEST(ClaudeVocabulary, AValidFileLoadsAndTiles) {
  const auto v = Vocabulary::parse(file(3, {"he", "llo", "hello"}, 1, {"\xC3"}), "tiny.bin");
  EXPECT_EQ(v->message_overhead(), 7u);
  EXPECT_EQ(v->piece_count(), 3u);
  EXPECT_EQ(v->tile("hello"), 1u);
  EXPECT_EQ(v->tile("hellohe"), 2u);
  EXPECT_EQ(v->tile("\xC3\xA9"), 2u);  // é: the held lead byte, then its continuation byte
}

// Found by claude_vocab_fuzz: a piece count of 2^32 - 1 in a 3 KB file reserved 32 bytes per
// announced piece (128 GB) before reading any; under ASan it ran out of memory, in a release build
// a count of 10^8 took 3.2 GB. Counts the file cannot hold are refused first.
TEST(ClaudeVocabulary, APieceCountTheFileCannotHoldIsRefusedBeforeAllocating) {
  expect_refused(file(0xFFFFFFFFu, {"he", "llo"}, 0, {}), "4294967295 pieces announced");
  expect_refused(file(100000000u, {"he"}, 0, {}), "100000000 pieces announced");
  expect_refused(file(0, {}, 0xFFFFFFFFu, {"\xC3"}), "4294967295 prefixes announced");
}

TEST(ClaudeVocabulary, TruncatedAndForeignBytesAreRefused) {
  expect_refused("", "truncated");
  expect_refused("ctxwcl02" + u32(7) + u32(0) + u32(0) + u32(0) + u32(0), "bad magic");
  const std::string good = file(3, {"he", "llo", "hello"}, 1, {"\xC3"});
  for (std::size_t n = 0; n < good.size(); ++n) expect_refused(good.substr(0, n), n < 8 ? "truncated" : "");
  expect_refused(file(1, {""}, 0, {}), "an empty piece");
  expect_refused(file(0, {}, 1, {"abcde"}), "longer than a character");
}

}  // namespace
}  // namespace ctxwin::claude
