#include "ctxwin/summary/estimate.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "ctxwin/error.hpp"

namespace ctxwin {
namespace {

TEST(EstimateTokens, MatchesCeilOfLengthOverThreePointFive) {
  EXPECT_EQ(estimate_tokens(0), 0u);
  EXPECT_EQ(estimate_tokens(1), 1u);
  EXPECT_EQ(estimate_tokens(5), 2u);  // "hello"
  EXPECT_EQ(estimate_tokens(7), 2u);
  EXPECT_EQ(estimate_tokens(8), 3u);
  for (std::uint64_t n = 0; n < 100000; ++n) {
    ASSERT_EQ(estimate_tokens(n), static_cast<std::uint64_t>(std::ceil(static_cast<double>(n) / 3.5))) << n;
  }
}

TEST(EstimateTokens, ExactAtLargeLengths) {
  for (std::uint64_t n : {std::uint64_t{1} << 31, (std::uint64_t{1} << 53) - 1, std::uint64_t{9007199254740990}}) {
    EXPECT_EQ(estimate_tokens(n), static_cast<std::uint64_t>(std::ceil(static_cast<double>(n) / 3.5)));
  }
}

TEST(EstimateTokens, OtherRatios) {
  EXPECT_EQ(estimate_tokens(10, 4.0), 3u);
  EXPECT_EQ(estimate_tokens(8, 4.0), 2u);
}

TEST(EstimateTokens, InPlaceBatch) {
  std::vector<std::uint32_t> values = {0, 1, 5, 7, 8, 350, 0xFFFFFFFFu};
  estimate_tokens_in_place(values);
  EXPECT_EQ(values, (std::vector<std::uint32_t>{0, 1, 2, 2, 3, 100, 1227133513u}));
}

TEST(EstimateTokens, InPlaceSaturatesBelowOneCharPerToken) {
  std::vector<std::uint32_t> values = {0xFFFFFFFFu};
  estimate_tokens_in_place(values, 0.5);
  EXPECT_EQ(values[0], 0xFFFFFFFFu);
}

TEST(CheckedLength, RejectsWhatIsNotALength) {
  EXPECT_EQ(checked_length(12, "text.length"), 12u);
  for (double bad : {-1.0, 0.5, std::nan(""), std::numeric_limits<double>::infinity(), 1e300}) {
    try {
      checked_length(bad, "text.length");
      FAIL() << bad;
    } catch (const Error& error) {
      EXPECT_EQ(error.kind(), ErrorKind::Range);
      EXPECT_EQ(error.js_code(), "ERR_CTXWIN_OUT_OF_RANGE");
      EXPECT_NE(std::string(error.what()).find("text.length"), std::string::npos);
    }
  }
}

TEST(CheckedCharsPerToken, RejectsZeroNegativeAndNaN) {
  EXPECT_EQ(checked_chars_per_token(3.5, "charsPerToken"), 3.5);
  EXPECT_THROW(checked_chars_per_token(0, "charsPerToken"), Error);
  EXPECT_THROW(checked_chars_per_token(-2, "charsPerToken"), Error);
  EXPECT_THROW(checked_chars_per_token(std::nan(""), "charsPerToken"), Error);
}

TEST(DescribeNumber, PrintsLikeJavaScript) {
  EXPECT_EQ(describe_number(3), "3");
  EXPECT_EQ(describe_number(-1.5), "-1.5");
  EXPECT_EQ(describe_number(std::nan("")), "NaN");
  EXPECT_EQ(describe_number(-std::numeric_limits<double>::infinity()), "-Infinity");
}

}  // namespace
}  // namespace ctxwin

namespace ctxwin {
namespace {

TEST(EstimateTokensByWords, SeedExample) {
  EXPECT_EQ(count_words(u"one two three four five"), 5u);
  EXPECT_EQ(estimate_tokens_by_words(u"one two three four five", 1.3), 7u);  // 6.5 -> 7
  EXPECT_EQ(count_words(u"  leading\u00A0and\u3000ideographic  spaces "), 4u);
  EXPECT_EQ(estimate_tokens_by_words(u"", 1.3), 0u);
}

}  // namespace
}  // namespace ctxwin
