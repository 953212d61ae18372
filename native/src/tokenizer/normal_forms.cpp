#include "ctxwin/tokenizer/normal_forms.hpp"

#include <utf8proc.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

#include "ctxwin/error.hpp"
#include "ctxwin/tokenizer/utf8.hpp"

namespace ctxwin {

namespace {

// One bit per form: set when the form may change text holding the code point.
constexpr std::uint8_t bit(NormalForm form) noexcept { return static_cast<std::uint8_t>(1u << static_cast<unsigned>(form)); }
constexpr std::uint8_t kAllForms = 0x0F;

utf8proc_option_t options_of(NormalForm form) noexcept {
  switch (form) {
    case NormalForm::Nfc:
      return static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE);
    case NormalForm::Nfd:
      return static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_DECOMPOSE);
    case NormalForm::Nfkc:
      return static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT);
    case NormalForm::Nfkd:
      return static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT);
  }
  return UTF8PROC_STABLE;
}

bool is_hangul_syllable(char32_t cp) noexcept { return cp >= 0xAC00 && cp <= 0xD7A3; }
// The vowel and trailing jamo that compose with a preceding syllable or leading jamo (composed
// algorithmically, so they appear in no decomposition table).
bool is_hangul_second(char32_t cp) noexcept { return (cp >= 0x1161 && cp <= 0x1175) || (cp >= 0x11A8 && cp <= 0x11C2); }

// Whether `form` (a composed form) maps `cp`, which has a decomposition, back to itself: false
// for singletons, composition exclusions and (under NFKC) compatibility characters.
bool composes_back(char32_t cp, NormalForm form) noexcept {
  std::array<utf8proc_uint8_t, 4> utf8{};
  const utf8proc_ssize_t n = utf8proc_encode_char(static_cast<utf8proc_int32_t>(cp), utf8.data());
  std::array<utf8proc_int32_t, 32> buffer{};  // the longest decomposition is 18 code points
  const utf8proc_option_t options = options_of(form);
  utf8proc_ssize_t length = utf8proc_decompose(utf8.data(), n, buffer.data(), static_cast<utf8proc_ssize_t>(buffer.size()), options);
  if (length < 0 || length > static_cast<utf8proc_ssize_t>(buffer.size())) return false;
  length = utf8proc_normalize_utf32(buffer.data(), length, options);
  return length == 1 && buffer[0] == static_cast<utf8proc_int32_t>(cp);
}

// Starters (combining class 0) that are the second of a canonical composition: vowel signs and
// length marks of Indic and other scripts, such as U+0B3E in U+0B47 U+0B3E -> U+0B4B. Every
// non-starter is flagged for its combining class anyway. Found as the starters that follow the
// first code point of a canonical decomposition: a few dozen, in a sorted list built once.
const std::vector<char32_t>& composing_starters() {
  static const std::vector<char32_t> list = [] {
    std::vector<char32_t> out;
    for (char32_t cp = 0; cp <= 0x10FFFF; ++cp) {
      const utf8proc_property_t* p = utf8proc_get_property(static_cast<utf8proc_int32_t>(cp));
      if (p->decomp_seqindex == UINT16_MAX || p->decomp_type != 0) continue;
      std::array<utf8proc_int32_t, 32> parts{};
      int boundclass = UTF8PROC_BOUNDCLASS_START;
      const utf8proc_ssize_t n = utf8proc_decompose_char(static_cast<utf8proc_int32_t>(cp), parts.data(),
                                                         static_cast<utf8proc_ssize_t>(parts.size()), UTF8PROC_DECOMPOSE, &boundclass);
      for (utf8proc_ssize_t i = 1; i < n && i < static_cast<utf8proc_ssize_t>(parts.size()); ++i) {
        if (utf8proc_get_property(parts[i])->combining_class == 0) out.push_back(static_cast<char32_t>(parts[i]));
      }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }();
  return list;
}

std::uint8_t compute(char32_t cp) noexcept {
  if (cp >= 0xD800 && cp <= 0xDFFF) return 0;  // never in valid UTF-8
  const utf8proc_property_t* p = utf8proc_get_property(static_cast<utf8proc_int32_t>(cp));
  if (p->combining_class != 0) return kAllForms;
  std::uint8_t flags = 0;
  const bool decomposes = p->decomp_seqindex != UINT16_MAX;
  const bool canonical = decomposes && p->decomp_type == 0;
  if (canonical || is_hangul_syllable(cp)) flags |= bit(NormalForm::Nfd);
  if (decomposes || is_hangul_syllable(cp)) flags |= bit(NormalForm::Nfkd);
  const std::vector<char32_t>& seconds = composing_starters();
  if (is_hangul_second(cp) || std::binary_search(seconds.begin(), seconds.end(), cp)) {
    flags |= bit(NormalForm::Nfc);
    flags |= bit(NormalForm::Nfkc);
  }
  if (canonical && !composes_back(cp, NormalForm::Nfc)) flags |= bit(NormalForm::Nfc);
  if (decomposes && !composes_back(cp, NormalForm::Nfkc)) flags |= bit(NormalForm::Nfkc);
  return flags;
}

const std::array<std::uint8_t, 0x10000>& bmp_flags() {
  static const std::array<std::uint8_t, 0x10000> table = [] {
    std::array<std::uint8_t, 0x10000> t{};
    for (char32_t cp = 0; cp < 0x10000; ++cp) t[cp] = compute(cp);
    return t;
  }();
  return table;
}

inline std::uint8_t flags_of(char32_t cp) noexcept { return cp < 0x10000 ? bmp_flags()[cp] : compute(cp); }

}  // namespace

bool may_change(NormalForm form, char32_t cp) noexcept { return (flags_of(cp) & bit(form)) != 0; }

bool may_change(NormalForm form, std::string_view text) noexcept {
  const std::uint8_t mask = bit(form);
  for (std::size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {  // ASCII: every form leaves it as it is
      ++i;
      continue;
    }
    std::size_t length = 0;
    const char32_t cp = decode_utf8(text, i, length);
    i += length;
    if (flags_of(cp) & mask) return true;
  }
  return false;
}

namespace {

// utf8proc_map of `text` appended to `out`.
void append_mapped(NormalForm form, std::string_view text, std::string& out) {
  utf8proc_uint8_t* mapped = nullptr;
  const utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                                          static_cast<utf8proc_ssize_t>(text.size()), &mapped, options_of(form));
  const std::unique_ptr<utf8proc_uint8_t, decltype(&std::free)> owned(mapped, &std::free);
  if (n == UTF8PROC_ERROR_NOMEM) throw std::bad_alloc();
  if (n < 0) throw Error(ErrorKind::Other, ErrorCode::InvalidArgument, std::string("normalization failed: ") + utf8proc_errmsg(n));
  out.append(reinterpret_cast<const char*>(mapped), static_cast<std::size_t>(n));
}

// Spans closer than this to the one before are normalized with it (one utf8proc call, not two).
constexpr std::size_t kJoinGap = 256;
// A span stops growing at its first boundary past this size, so that utf8proc's buffers (four
// bytes a code point, twice) stay small whatever the text's size.
constexpr std::size_t kLongestSpan = std::size_t{64} << 10;

}  // namespace

// Only the spans around the code points `form` may change go through utf8proc; the text between
// them is copied. A code point the quick check passes (combining class 0, never the second of a
// composition, its own normal form) has a normalization boundary before it (UAX #15), so the form
// of the text is the forms of the pieces between such boundaries put end to end. utf8proc_map
// decodes its input into 32-bit code points, twice over: on 100 MB of prose holding one accent,
// normalizing it whole cost 4-8x the text in memory (issue 40, Qwen 3's NFC).
std::string normalized(NormalForm form, std::string_view text) {
  const std::uint8_t mask = bit(form);
  const std::size_t n = text.size();
  std::string out;
  out.reserve(n);
  std::size_t done = 0;      // text[0, done) is in `out`; `done` is a boundary
  std::size_t boundary = 0;  // the last boundary seen at or after `done`
  for (std::size_t i = 0; i < n;) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {  // ASCII: every form leaves it, a boundary before it
      boundary = i++;
      continue;
    }
    std::size_t length = 0;
    const char32_t cp = decode_utf8(text, i, length);
    if (!(flags_of(cp) & mask)) {
      boundary = i;
      i += length;
      continue;
    }
    // A span from the boundary before this code point to one after the last flagged code point
    // of its neighbourhood.
    const std::size_t begin = boundary;
    std::size_t flagged_end = i + length;
    std::size_t k = flagged_end;
    while (k < n) {
      if (static_cast<unsigned char>(text[k]) < 0x80) {
        if (k - flagged_end >= kJoinGap || k - begin >= kLongestSpan) break;
        ++k;
        continue;
      }
      const char32_t next = decode_utf8(text, k, length);
      if (flags_of(next) & mask) {
        flagged_end = k + length;
      } else if (k - flagged_end >= kJoinGap || k - begin >= kLongestSpan) {
        break;
      }
      k += length;
    }
    // text[flagged_end] is a boundary (or the end): every code point after the last flagged one is not.
    out.append(text, done, begin - done);
    append_mapped(form, text.substr(begin, flagged_end - begin), out);
    done = boundary = i = flagged_end;
  }
  out.append(text, done, n - done);
  return out;
}

void normalize(NormalForm form, std::string& text) {
  if (may_change(form, text)) text = normalized(form, text);
}

}  // namespace ctxwin
