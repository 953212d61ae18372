// The .tiktoken loader on rank data from outside (a caller's rankDataDir): malformed files are
// refused with an error, never sized by what they claim. Regressions of test/fuzz/rank_data_fuzz.
#include "ctxwin/tokenizer/bpe/rank_table.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "ctxwin/error.hpp"

namespace ctxwin {
namespace {

std::string base64(std::string_view bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    std::uint32_t chunk = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) chunk |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) chunk |= static_cast<unsigned char>(bytes[i + 2]);
    for (std::size_t k = 0; k < 4; ++k) out += i + k <= bytes.size() ? kAlphabet[(chunk >> (18 - 6 * k)) & 63] : '=';
  }
  return out;
}

std::string all_bytes() {
  std::string contents;
  for (int b = 0; b < 256; ++b) contents += base64(std::string(1, static_cast<char>(b))) + " " + std::to_string(b) + "\n";
  return contents;
}

void expect_refused(const std::string& contents, std::string_view message) {
  try {
    RankTable::parse(contents, "custom.tiktoken");
    ADD_FAILURE() << "accepted: " << message;
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::RankDataUnavailable);
    EXPECT_NE(std::string(error.what()).find(message), std::string::npos) << error.what();
  }
}

TEST(RankTable, ParsesAFileWithEveryByte) {
  const RankTable table = RankTable::parse(all_bytes() + base64("ab") + " 256\n", "custom.tiktoken");
  EXPECT_EQ(table.rank_of("ab"), 256u);
  EXPECT_EQ(table.bytes_of(256), "ab");
}

TEST(RankTable, AHugeRankIsRefusedBeforeAnythingIsSizedByIt) {
  // A 40-byte file claiming rank 999,999,999 used to allocate gigabytes before being refused.
  expect_refused(all_bytes() + base64("ab") + " 999999999\n", "rank past 2^20");
  expect_refused(all_bytes() + base64("ab") + " 1048576\n", "rank past 2^20");
}

TEST(RankTable, ATokenOrARankGivenTwiceIsRefused) {
  // Either would leave rank_of and bytes_of disagreeing.
  expect_refused(all_bytes() + base64("ab") + " 256\n" + base64("ab") + " 257\n", "twice");
  expect_refused(all_bytes() + base64("ab") + " 256\n" + base64("cd") + " 256\n", "twice");
}

}  // namespace
}  // namespace ctxwin
