#include "ctxwin/tokenizer/utf8.hpp"

#include <gtest/gtest.h>
#include <utf8proc.h>

#include <string>

namespace ctxwin {
namespace {

TEST(Utf8, EncodesEveryScalarValueAsUtf8procDoes) {
  for (char32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    std::string mine;
    append_utf8(mine, cp);
    utf8proc_uint8_t theirs[4];
    const auto n = utf8proc_encode_char(static_cast<utf8proc_int32_t>(cp), theirs);
    ASSERT_EQ(mine, std::string(reinterpret_cast<const char*>(theirs), static_cast<std::size_t>(n)))
        << std::hex << static_cast<unsigned>(cp);
    ASSERT_TRUE(is_valid_utf8(mine));
    std::size_t length = 0;
    ASSERT_EQ(static_cast<unsigned>(decode_utf8(mine, 0, length)), static_cast<unsigned>(cp));
    ASSERT_EQ(length, mine.size());
  }
}

TEST(Utf8, Utf16LoneSurrogatesBecomeTheReplacementCharacterAsTextEncoderWrites) {
  std::string out;
  append_utf16_as_utf8(
      u"a\xD800"
      u"b\xDC00\xD83D\xDE00"
      u"c\xD83D",
      out);
  EXPECT_EQ(out,
            "a\xEF\xBF\xBD"
            "b\xEF\xBF\xBD\xF0\x9F\x98\x80"
            "c\xEF\xBF\xBD");
}

// Long texts are sized exactly by a first pass: the same bytes as short ones, whatever they hold
// (ASCII, two- and three-byte units, pairs, lone surrogates, one cut at the very end).
TEST(Utf8, LongUtf16TextsConvertAsShortOnesDo) {
  const std::u16string units[] = {u"a", u"\u00e9", u"\u65e5", u"\xD83D\xDE00", u"\xD800", u"\xDC00", u" "};
  std::u16string text;
  std::string expected;
  for (std::size_t k = 0; text.size() < (1u << 17); ++k) {
    const std::u16string unit = units[(k * 7 + k / 5) % 7] + u"x";  // no two lone halves pair up
    text += unit;
    append_utf16_as_utf8(unit, expected);
  }
  text += u'\xD83D';  // a high surrogate with nothing after it
  expected += "\xEF\xBF\xBD";
  std::string out = "prefix";
  append_utf16_as_utf8(text, out);
  EXPECT_EQ(out, "prefix" + expected);
}

TEST(Utf8, RepairReplacesEachMaximalInvalidSubsequence) {
  EXPECT_FALSE(is_valid_utf8("\xED\xA0\x80"));      // an encoded surrogate
  EXPECT_FALSE(is_valid_utf8("\xC0\xAF"));          // an overlong
  EXPECT_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));  // past U+10FFFF
  EXPECT_EQ(repair_utf8("a\xFF"
                        "b"),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(repair_utf8("ok \xE2\x82\xAC"), "ok \xE2\x82\xAC");
  EXPECT_TRUE(is_valid_utf8(repair_utf8("\xE2\x82\xF0\x9F\x98")));
}

}  // namespace
}  // namespace ctxwin
