// Short keys read bytes with overlapping fixed-size loads; every byte must still count.
#include "ctxwin/tokenizer/bpe/short_bytes.hpp"

#include <gtest/gtest.h>

#include <string>

#include "ctxwin/tokenizer/bpe/piece_cache.hpp"
#include "ctxwin/tokenizer/utf8.hpp"

namespace ctxwin {
namespace {

std::string sample(std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s.push_back(static_cast<char>('a' + i));
  return s;
}

TEST(ShortBytes, EveryByteChangesTheKey) {
  for (std::size_t n = 1; n <= 8; ++n) {
    const std::string base = sample(n);
    const std::uint64_t key = short_bytes::key_up_to_8(base.data(), n);
    for (std::size_t at = 0; at < n; ++at) {
      for (int delta : {1, 0x80}) {
        std::string changed = base;
        changed[at] = static_cast<char>(changed[at] ^ delta);
        EXPECT_NE(short_bytes::key_up_to_8(changed.data(), n), key) << "length " << n << ", byte " << at;
      }
    }
  }
}

TEST(ShortBytes, PieceCacheTellsApartPiecesThatDifferInOneByte) {
  for (std::size_t n = 1; n <= PieceCache::kShortPiece; ++n) {
    PieceCache cache;
    const std::string base = sample(n);
    cache.insert_short(base, 7);
    ASSERT_EQ(cache.find_short(base), 7u);
    for (std::size_t at = 0; at < n; ++at) {
      std::string changed = base;
      changed[at] = static_cast<char>(changed[at] ^ 1);
      EXPECT_EQ(cache.find_short(changed), PieceCache::kMissing) << "length " << n << ", byte " << at;
    }
    EXPECT_EQ(cache.find_short(base.substr(0, n - 1)), PieceCache::kMissing);
  }
}

TEST(Utf16ToUtf8, AsciiBlocksSurrogatesAndAppending) {
  std::string out = "kept:";
  append_utf16_as_utf8(u"abc\u00e9defgh\u4e2d\U0001F600xyz", out);
  EXPECT_EQ(out,
            "kept:abc\xC3\xA9"
            "defgh\xE4\xB8\xAD\xF0\x9F\x98\x80xyz");
  // A pair split across the four-unit ASCII step, and lone surrogates (U+FFFD, as TextEncoder).
  const char16_t units[] = {u'a', u'b', u'c', 0xD83D, 0xDE00, 0xD800, u'x', 0xDC00};
  out.clear();
  append_utf16_as_utf8(std::u16string_view(units, 8), out);
  EXPECT_EQ(out, "abc\xF0\x9F\x98\x80\xEF\xBF\xBDx\xEF\xBF\xBD");
  out.clear();
  const char16_t trailing[] = {u'a', 0xD83D};
  append_utf16_as_utf8(std::u16string_view(trailing, 2), out);
  EXPECT_EQ(out, "a\xEF\xBF\xBD");
}

}  // namespace
}  // namespace ctxwin
