#include "tokenizer/claude/text_normalization.hpp"

#include "ctxwin/tokenizer/normal_forms.hpp"
#include "ctxwin/tokenizer/utf8.hpp"

namespace ctxwin::claude {

namespace {

bool is_funny_space(char32_t c) {
  return c == 0x00A0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F;
}

bool is_stripped_control(char32_t c) { return (c >= 0x01 && c <= 0x08) || (c >= 0x0B && c <= 0x1F) || (c >= 0x7F && c <= 0x9F); }

bool is_private_use(char32_t c) { return c >= 0xE000 && c <= 0xF8FF; }

char32_t fold(char32_t c, bool fold_quotes) {
  if (fold_quotes) {
    if (c == 0x2018 || c == 0x2019) return U'\'';
    if (c == 0x201C || c == 0x201D) return U'"';
  }
  return is_funny_space(c) ? U' ' : c;
}

bool needs_nfc(char32_t c, const Infos& info) { return c >= 0x80 && (info(c).flags & kNeedsNfc) != 0; }

// Whether the character-by-character steps leave `c` as it is (NFC aside).
bool kept_as_is(char32_t c, bool fold_quotes) {
  if (c < 0x80) return c >= 0x20 ? c != 0x7F : (c == U'\t' || c == U'\n');
  // Latin to Mongolian: no control, private use, fold or space separator; only Thai SARA AM. From
  // past the last space separator (U+205F) to private use, and after it (CJK, Hangul, astral):
  // nothing any step changes.
  if (c >= 0xA1 && c < 0x1680) return c != 0x0E4D;
  if ((c >= 0x2060 && c < 0xE000) || c >= 0xF900) return true;
  return !is_stripped_control(c) && !is_private_use(c) && fold(c, fold_quotes) == c && c != 0x0E4D;
}

// The steps after NFC, in their written order, over the NFC'd code points as they come: controls
// removed (NUL read as a space), then U+0E4D U+0E32 composed to U+0E33 (across removed controls,
// which are gone by then, but not across anything kept), then private use removed and the folds.
// The one character of state is a U+0E4D waiting to see what follows it.
class AfterNfc {
 public:
  AfterNfc(bool fold_quotes, std::string& out) : fold_quotes_(fold_quotes), out_(out) {}

  void feed(std::string_view nfc) {
    for (std::size_t i = 0; i < nfc.size();) {
      // A run of characters the steps keep as they are (printable ASCII, and most letters of
      // other scripts) is appended at once: appending European text's letters one code point at
      // a time was most of this pass.
      std::size_t end = i;
      if (!sara_am_waits_) {
        while (end < nfc.size()) {
          const auto b = static_cast<unsigned char>(nfc[end]);
          if (b >= 0x20 && b < 0x7F) {
            ++end;
            continue;
          }
          if (b < 0x80) break;
          std::size_t len;
          if (!kept_as_is(decode_utf8(nfc, end, len), fold_quotes_)) break;
          end += len;
        }
      }
      if (end > i) {
        out_.append(nfc, i, end - i);
        i = end;
        continue;
      }
      const auto b = static_cast<unsigned char>(nfc[i]);
      if (b < 0x80 && !sara_am_waits_) {  // an ASCII control: only the control rules apply
        ++i;
        if (b == 0) {
          out_.push_back(' ');
        } else if (!is_stripped_control(b)) {
          out_.push_back(static_cast<char>(b));
        }
        continue;
      }
      std::size_t len;
      const char32_t c = decode_utf8(nfc, i, len);
      i += len;
      take(c);
    }
  }

  void finish() {
    if (sara_am_waits_) append_utf8(out_, 0x0E4D);
    sara_am_waits_ = false;
  }

 private:
  void take(char32_t c) {
    if (is_stripped_control(c)) return;
    if (c == 0) c = U' ';
    if (sara_am_waits_) {
      sara_am_waits_ = false;
      if (c == 0x0E32) {
        append_utf8(out_, 0x0E33);
        return;
      }
      append_utf8(out_, 0x0E4D);
    }
    if (c == 0x0E4D) {
      sara_am_waits_ = true;
      return;
    }
    if (is_private_use(c)) return;
    append_utf8(out_, fold(c, fold_quotes_));
  }

  bool fold_quotes_;
  std::string& out_;
  bool sara_am_waits_ = false;
};

}  // namespace

// Claude's normalization: NFC; C0/C1 controls but TAB and LF removed, NUL read as a space;
// decomposed Thai SARA AM composed; BMP private use removed; on v3 the four curly quotes folded;
// the other space separators read as U+0020.
//
// The text is read once up to the first character any step changes (usually there is none, and
// the text is its own normal form). From there on it is normalized piece by piece, each piece
// ending before a character that NFC leaves alone whatever surrounds it (not flagged kNeedsNfc:
// combining class 0, never the second of a composition, its own NFC). Such a character has a
// normalization boundary before it (Unicode's "boundary before", UAX #15), so NFC of the whole
// text is the NFC of the pieces put end to end: the pieces change nothing, and NFC's buffer holds
// one piece, not the text. The steps after NFC read one code point at a time but for the SARA AM
// pair, whose first half AfterNfc carries from one piece to the next.
std::string_view normalize(std::string_view text, bool fold_quotes, const Infos& info, std::string& storage, std::size_t chunk_bytes) {
  const std::size_t n = text.size();
  std::size_t i = 0;
  std::size_t previous = 0;  // where the character before i starts
  for (;;) {
    if (i == n) return text;
    std::size_t len;
    const char32_t c = decode_utf8(text, i, len);
    if (!kept_as_is(c, fold_quotes) || needs_nfc(c, info)) break;
    previous = i;
    i += len;
  }
  // NFC may join the first changed character to the one before it (a letter, then its accent), so
  // the piecewise part starts there; everything before that one is kept as it is.
  std::size_t begin = previous;
  storage.clear();
  storage.reserve(n);
  storage.append(text.substr(0, begin));
  AfterNfc after(fold_quotes, storage);
  const std::size_t chunk = chunk_bytes == 0 ? 1 : chunk_bytes;
  while (begin < n) {
    std::size_t end = begin + chunk < n ? begin + chunk : n;
    while (end < n && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;  // a character's start
    bool nfc = false;
    for (std::size_t k = begin; k < end && !nfc;) {  // one such character decides it
      std::size_t len;
      nfc |= needs_nfc(decode_utf8(text, k, len), info);
      k += len;
    }
    // Extend to the next boundary: the characters that NFC may join to the piece come with it.
    while (end < n) {
      std::size_t len;
      if (!needs_nfc(decode_utf8(text, end, len), info)) break;
      nfc = true;
      end += len;
    }
    const std::string_view piece = text.substr(begin, end - begin);
    if (nfc) {
      after.feed(normalized(NormalForm::Nfc, piece));
    } else {
      after.feed(piece);
    }
    begin = end;
  }
  after.finish();
  return storage;
}

}  // namespace ctxwin::claude
