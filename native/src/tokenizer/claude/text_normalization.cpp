#include "tokenizer/claude/text_normalization.hpp"

#include "ctxwin/tokenizer/normal_forms.hpp"
#include "ctxwin/tokenizer/utf8.hpp"

namespace ctxwin::claude {

namespace {

void decode_all(std::string_view text, std::u32string& out) {
  out.clear();
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    std::size_t len;
    out.push_back(decode_utf8(text, i, len));
    i += len;
  }
}

bool is_funny_space(char32_t c) {
  return c == 0x00A0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
         c == 0x205F;
}

bool is_stripped_control(char32_t c) { return (c >= 0x01 && c <= 0x08) || (c >= 0x0B && c <= 0x1F) || (c >= 0x7F && c <= 0x9F); }

char32_t fold(char32_t c, bool fold_quotes) {
  if (fold_quotes) {
    if (c == 0x2018 || c == 0x2019) return U'\'';
    if (c == 0x201C || c == 0x201D) return U'"';
  }
  return is_funny_space(c) ? U' ' : c;
}

// The normalization in its written order, for text that NFC may change.
std::u32string normalize_with_nfc(std::string_view text, bool fold_quotes) {
  std::u32string cps;
  decode_all(normalized(NormalForm::Nfc, text), cps);
  std::size_t w = 0;
  for (const char32_t c : cps) {
    if (is_stripped_control(c)) continue;
    cps[w++] = c == 0 ? U' ' : c;
  }
  cps.resize(w);
  w = 0;
  for (std::size_t r = 0; r < cps.size(); ++r) {
    char32_t c = cps[r];
    if (c == 0x0E4D && r + 1 < cps.size() && cps[r + 1] == 0x0E32) {
      c = 0x0E33;
      ++r;
    }
    if (c >= 0xE000 && c <= 0xF8FF) continue;
    cps[w++] = fold(c, fold_quotes);
  }
  cps.resize(w);
  return cps;
}

}  // namespace

// Claude's normalization: NFC; C0/C1 controls but TAB and LF removed, NUL read as a space;
// decomposed Thai SARA AM composed; BMP private use removed; on v3 the four curly quotes folded;
// the other space separators read as U+0020. One pass while no character needs NFC (the usual
// case); text that does takes the written order through utf8proc.
std::u32string normalize(std::string_view text, bool fold_quotes, const Infos& info) {
  std::u32string cps;
  cps.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    std::size_t len;
    const char32_t c = decode_utf8(text, i, len);
    i += len;
    if (c < 0x80) {
      if (is_stripped_control(c)) continue;
      cps.push_back(c == 0 ? U' ' : c);
      continue;
    }
    // Thai SARA AM (U+0E4D) is flagged too: the NFC path composes it with a following U+0E32.
    if (c >= 0x300 && (info(c).flags & kNeedsNfc)) return normalize_with_nfc(text, fold_quotes);
    if (is_stripped_control(c) || (c >= 0xE000 && c <= 0xF8FF)) continue;
    cps.push_back(fold(c, fold_quotes));
  }
  return cps;
}

}  // namespace ctxwin::claude
