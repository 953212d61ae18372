#include "tokenizer/claude/marked_stream.hpp"

#include <utf8proc.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <cstdlib>
#include <memory>
#include <vector>

#include "ctxwin/tokenizer/utf8.hpp"
#include "tokenizer/claude/vocabulary.hpp"

namespace ctxwin::claude {

namespace {

// ---------------------------------------------------------------- what each code point is

// Stream classes. kStray is a combining mark with no letter before it to carry it: a word of its own.
enum Cls : std::uint8_t { kWordy, kHard, kDigit, kPunct, kSpace, kStray };

enum Flag : std::uint16_t {
  kSeparator = 1 << 0,     // closes the word before it, as a virama does
  kStrayMark = 1 << 1,     // a combining mark that opens a word where nothing can carry it
  kPunctLike = 1 << 2,     // takes punctuation's border markers inside a hard run
  kDigitBorder = 1 << 3,   // a number that takes border markers (non-ASCII Nd, and No, in the BMP)
  kSelector = 1 << 4,      // a variation selector: rides its base, takes no word model
  kUpper = 1 << 5,
  kLower = 1 << 6,
  kUnlowerable = 1 << 7,   // a letter or mark that no case marker can restore
  kNeedsNfc = 1 << 8,      // NFC may change text holding this character
};

struct CharInfo {
  std::uint8_t cls;
  std::uint8_t category;  // utf8proc_category_t
  std::uint16_t flags;
};

struct Range {
  char32_t lo, hi;
};

template <std::size_t N>
constexpr bool in_ranges(char32_t c, const std::array<Range, N>& ranges) {
  for (const Range& r : ranges) {
    if (c >= r.lo && c <= r.hi) return true;
  }
  return false;
}

// Marks that separate words the way a virama does without combining class 9, measured one at a
// time (ctok's SEPARATOR_SIGNS): orthographic, so enumerated.
constexpr auto kSeparatorSigns = std::to_array<Range>({
    {0x0740, 0x074A}, {0x093C, 0x093C}, {0x0951, 0x0954}, {0x09BC, 0x09BC}, {0x09FE, 0x09FE}, {0x0A3C, 0x0A3C},
    {0x0ABC, 0x0ABC}, {0x0AFD, 0x0AFF}, {0x0B3C, 0x0B3C}, {0x0B55, 0x0B55}, {0x0C3C, 0x0C3C}, {0x0CBC, 0x0CBC},
    {0x0E47, 0x0E4C}, {0x0E4E, 0x0E4E}, {0x0EC8, 0x0ECC}, {0x0ECE, 0x0ECE}, {0x0F18, 0x0F19}, {0x0F35, 0x0F35},
    {0x0F37, 0x0F37}, {0x0F39, 0x0F39}, {0x0F3E, 0x0F3F}, {0x0F86, 0x0F87}, {0x0FC6, 0x0FC6}, {0x1037, 0x1037},
    {0x17B4, 0x17B5}, {0x17C9, 0x17D1}, {0x17D3, 0x17D3}, {0x17DD, 0x17DD}, {0x1A75, 0x1A7C}, {0x1A7F, 0x1A7F},
    {0x1B34, 0x1B34}, {0x1B6B, 0x1B73}, {0xA9B3, 0xA9B3},
});
// The combining diacritics block but U+0345 and the combining Latin letters (ctok's
// SEPARATOR_MARKS): an accent splits a word in two.
constexpr auto kSeparatorMarks = std::to_array<Range>({{0x0300, 0x0344}, {0x0346, 0x0362}});
// Accents, tone marks, cantillation and annotation marks of the other combining blocks (ctok's
// SEPARATOR_ANNOTATIONS): outside the word, where vowel points and combining letters are inside.
constexpr auto kSeparatorAnnotations = std::to_array<Range>({
    {0x0483, 0x0489}, {0x0591, 0x05AF}, {0x0658, 0x0658}, {0x06DF, 0x06E0}, {0x06EA, 0x06EC}, {0x07EB, 0x07F3},
    {0x07FD, 0x07FD}, {0x0859, 0x085B}, {0x0898, 0x089F}, {0x08CA, 0x08D3}, {0x08E0, 0x08E1}, {0x0818, 0x0819},
    {0x082D, 0x082D}, {0x08EA, 0x08EF}, {0x135D, 0x135F}, {0x180B, 0x180D}, {0x180F, 0x180F}, {0x1939, 0x193B},
    {0x1AB0, 0x1ABE}, {0x1AC1, 0x1ACB}, {0x1CD0, 0x1CE8}, {0x1CED, 0x1CED}, {0x1CF4, 0x1CF4}, {0x1CF8, 0x1CF9},
    {0x1BE6, 0x1BE6}, {0x1C37, 0x1C37}, {0x1CF7, 0x1CF7}, {0x1DC0, 0x1DD2}, {0x1DF5, 0x1DFF}, {0x20D0, 0x20F0},
    {0xA66F, 0xA672}, {0xA67C, 0xA67D}, {0x2CEF, 0x2CF1}, {0x302A, 0x302F}, {0x3099, 0x309A}, {0xA6F0, 0xA6F1},
    {0xA8E0, 0xA8F1}, {0xA92B, 0xA92D}, {0xAABF, 0xAABF}, {0xAAC1, 0xAAC1}, {0xABEC, 0xABEC}, {0xFE20, 0xFE2F},
});
// Symbol-letters that take the full word model like Latin letters (the block predicts, not the
// category).
constexpr auto kSymbolLetters = std::to_array<Range>({{0x16EE, 0x16F0}, {0x2160, 0x2188}, {0x24B6, 0x24E9}, {0xA6E6, 0xA6EF}});
// Non-ASCII symbols measured to tile over the punctuation vocabulary (`（` is, `）` is not).
constexpr auto kPunctSymbols = std::to_array<char32_t>({U'—', U'»', U'«', U'•', U'°', U'„', U'–', U'−', U'£', U'§', U'€', U'…',
                                                         U'√', U'→', U'（', U'№', U'†', U'└', U'│', U'།', U'·', U'─', U'═', U'█'});
// So-category members of CJK Symbols and Punctuation, markerless like the block's punctuation.
constexpr std::array<char32_t, 8> kIdeographicSymbols = {U'〄', U'〒', U'〓', U'〠', U'〶', U'〷', U'〾', U'〿'};
// Unicode's Other_Uppercase and Other_Lowercase (Python's str.isupper / islower read them).
constexpr auto kOtherUpper = std::to_array<Range>({{0x2160, 0x216F}, {0x24B6, 0x24CF}, {0x1F130, 0x1F149}, {0x1F150, 0x1F169}, {0x1F170, 0x1F189}});
constexpr auto kOtherLower = std::to_array<Range>({
    {0xAA, 0xAA}, {0xBA, 0xBA}, {0x2B0, 0x2B8}, {0x2C0, 0x2C1}, {0x2E0, 0x2E4}, {0x345, 0x345}, {0x37A, 0x37A},
    {0x1D2C, 0x1D6A}, {0x1D78, 0x1D78}, {0x1D9B, 0x1DBF}, {0x2071, 0x2071}, {0x207F, 0x207F}, {0x2090, 0x209C},
    {0x2170, 0x217F}, {0x24D0, 0x24E9}, {0x2C7C, 0x2C7D}, {0xA69C, 0xA69D}, {0xA770, 0xA770}, {0xA7F8, 0xA7F9},
    {0xAB5C, 0xAB5F}, {0x10780, 0x10780}, {0x10783, 0x10785}, {0x10787, 0x107B0}, {0x107B2, 0x107BA},
});

// Unicode 16 case pairs the models know and utf8proc's tables (Unicode 15) do not.
constexpr char32_t kNewUpper1 = 0x1C89, kNewLower1 = 0x1C8A, kNewUpper2 = 0xA7CB, kNewLower2 = 0x0264;
// Uncased for the models, though Unicode calls `ϴ` a capital.
constexpr char32_t kUncased = 0x03F4;
constexpr char32_t kCapitalDottedI = 0x0130;  // İ
constexpr char32_t kCapitalSharpS = 0x1E9E;   // ẞ

bool is_new_cased(char32_t c) { return c == kNewUpper1 || c == kNewLower1 || c == kNewUpper2 || c == kNewLower2; }

char32_t lower_of(char32_t c) {
  if (c < 0x80) return (c >= U'A' && c <= U'Z') ? c + 32 : c;
  if (c == kUncased) return c;
  if (c == kNewUpper1) return kNewLower1;
  if (c == kNewUpper2) return kNewLower2;
  return static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c)));
}

// Letters that take the isolated-character path (CJK, Hangul syllables, everything astral, the
// ideographic iteration marks and two measured ranges of Quranic annotation signs).
bool is_hard_cp(char32_t o) {
  return o >= 0x10000 || (o >= 0x4E00 && o <= 0x9FFF) || (o >= 0x3400 && o <= 0x4DBF) || (o >= 0xF900 && o <= 0xFAFF) ||
         (o >= 0xAC00 && o <= 0xD7A3) || o == 0x3005 || o == 0x3006 || (o >= 0x3031 && o <= 0x3035) || o == 0x303B ||
         o == 0x303C || (o >= 0x06DD && o <= 0x06E0) || (o >= 0x06E9 && o <= 0x06EC);
}

bool needs_nfc(char32_t c, const utf8proc_property_t* p) {
  if (c < 0x300) return false;
  const auto cat = p->category;
  if (p->combining_class != 0 || cat == UTF8PROC_CATEGORY_MN || cat == UTF8PROC_CATEGORY_MC || cat == UTF8PROC_CATEGORY_ME) {
    return true;
  }
  if ((c >= 0x1100 && c <= 0x11FF) || (c >= 0xA960 && c <= 0xA97F) || (c >= 0xD7B0 && c <= 0xD7FF)) return true;
  if (p->decomp_seqindex != UINT16_MAX && p->decomp_type == 0) {
    // Canonical decomposition: NFC keeps precomposed letters, changes singletons and exclusions.
    std::array<utf8proc_uint8_t, 4> in{};
    const auto n = utf8proc_encode_char(static_cast<utf8proc_int32_t>(c), in.data());
    utf8proc_uint8_t* out = nullptr;
    const auto len = utf8proc_map(in.data(), n, &out, static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
    const bool same = len == n && out != nullptr && std::equal(in.begin(), in.begin() + n, out);
    std::free(out);
    return !same;
  }
  return false;
}

CharInfo compute_info(char32_t c) {
  const utf8proc_property_t* p = utf8proc_get_property(static_cast<utf8proc_int32_t>(c));
  const auto cat = static_cast<utf8proc_category_t>(p->category);
  const bool letter_or_mark = cat >= UTF8PROC_CATEGORY_LU && cat <= UTF8PROC_CATEGORY_ME;
  const bool punct_or_symbol = (cat >= UTF8PROC_CATEGORY_PC && cat <= UTF8PROC_CATEGORY_PO) ||
                               (cat >= UTF8PROC_CATEGORY_SM && cat <= UTF8PROC_CATEGORY_SO);
  std::uint16_t flags = 0;
  // Viramas (combining class 9) but Thai PHINTHU, which measured as an ordinary mark.
  const bool separator = (p->combining_class == 9 && c != 0x0E3A) || in_ranges(c, kSeparatorSigns) ||
                         in_ranges(c, kSeparatorMarks) || in_ranges(c, kSeparatorAnnotations);
  if (separator) flags |= kSeparator;
  const bool syriac_vowel = c == 0x0711 || (c >= 0x0730 && c <= 0x073F);
  if (!syriac_vowel && p->combining_class != 0 && !separator) flags |= kStrayMark;
  const bool selector = c >= 0xFE00 && c <= 0xFE0F;
  if (selector) flags |= kSelector;

  std::uint8_t cls;
  if (separator) {
    cls = kHard;
  } else if (is_new_cased(c)) {
    cls = kWordy;
  } else if (cat == UTF8PROC_CATEGORY_ZS || cat == UTF8PROC_CATEGORY_ZL || cat == UTF8PROC_CATEGORY_ZP ||
             (c >= 0x09 && c <= 0x0D)) {
    cls = kSpace;
  } else if (in_ranges(c, kSymbolLetters)) {
    cls = kWordy;
  } else if (cat == UTF8PROC_CATEGORY_ND && (c < 0x80 || (c >= 0x0660 && c <= 0x0669) || (c >= 0x06F0 && c <= 0x06F9))) {
    cls = kDigit;
  } else if (c < 0x80 && punct_or_symbol) {
    cls = kPunct;
  } else if (std::find(kPunctSymbols.begin(), kPunctSymbols.end(), c) != kPunctSymbols.end()) {
    cls = kPunct;
  } else if (selector) {
    cls = kHard;
  } else if (c == 0x0CF3) {
    cls = kWordy;  // Kannada sign assigned in Unicode 15.0, measured as plain word material
  } else if (letter_or_mark && !is_hard_cp(c)) {
    cls = kWordy;
  } else {
    cls = kHard;
  }

  if (c < 0x10000) {
    const bool ideographic_punct = c >= 0x3001 && c <= 0x303F &&
                                   ((cat >= UTF8PROC_CATEGORY_PC && cat <= UTF8PROC_CATEGORY_PO) ||
                                    std::find(kIdeographicSymbols.begin(), kIdeographicSymbols.end(), c) != kIdeographicSymbols.end());
    if (separator || ((punct_or_symbol || cat == UTF8PROC_CATEGORY_CF || cat == UTF8PROC_CATEGORY_CN) && !ideographic_punct)) {
      flags |= kPunctLike;
    }
    if (cat == UTF8PROC_CATEGORY_NO || (cat == UTF8PROC_CATEGORY_ND && c >= 0x80)) flags |= kDigitBorder;
  }

  const bool upper = c != kUncased && (c == kNewUpper1 || c == kNewUpper2 || cat == UTF8PROC_CATEGORY_LU || in_ranges(c, kOtherUpper));
  const bool lower = c == kNewLower1 || c == kNewLower2 || cat == UTF8PROC_CATEGORY_LL || in_ranges(c, kOtherLower);
  if (upper) flags |= kUpper;
  if (lower) flags |= kLower;
  if ((is_new_cased(c) || letter_or_mark) && !lower && (!upper || lower_of(c) == c)) flags |= kUnlowerable;
  if (needs_nfc(c, p)) flags |= kNeedsNfc;
  return CharInfo{cls, static_cast<std::uint8_t>(is_new_cased(c) ? UTF8PROC_CATEGORY_LL : cat), flags};
}

const std::vector<CharInfo>& bmp_infos() {
  static const std::vector<CharInfo> table = [] {
    std::vector<CharInfo> t(0x10000);
    for (char32_t c = 0; c < 0x10000; ++c) t[c] = (c >= 0xD800 && c < 0xE000) ? compute_info(0xFFFD) : compute_info(c);
    return t;
  }();
  return table;
}

class Infos {
 public:
  Infos() : bmp_(bmp_infos()) {}
  CharInfo operator()(char32_t c) const { return c < 0x10000 ? bmp_[c] : compute_info(c); }

 private:
  const std::vector<CharInfo>& bmp_;
};

// ---------------------------------------------------------------- normalization

void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

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
  utf8proc_uint8_t* out = nullptr;
  const auto len = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()), static_cast<utf8proc_ssize_t>(text.size()), &out,
                                static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
  std::unique_ptr<utf8proc_uint8_t, decltype(&std::free)> owned(out, &std::free);
  if (len >= 0) {
    decode_all(std::string_view(reinterpret_cast<const char*>(out), static_cast<std::size_t>(len)), cps);
  } else {
    decode_all(text, cps);
  }
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
    // Thai SARA AM (U+0E4D) is a mark, so text holding it takes the NFC path, which composes it.
    if (c >= 0x300 && (info(c).flags & kNeedsNfc)) return normalize_with_nfc(text, fold_quotes);
    if (is_stripped_control(c) || (c >= 0xE000 && c <= 0xF8FF)) continue;
    cps.push_back(fold(c, fold_quotes));
  }
  return cps;
}

// ---------------------------------------------------------------- runs

struct Run {
  std::uint8_t cls;
  std::uint32_t begin, end;  // into the normalized code points
};

class StreamBuilder {
 public:
  StreamBuilder(const std::u32string& cps, const StreamOptions& options, const Infos& info)
      : cps_(cps), options_(options) {
    // One table lookup per character, and the text in UTF-8 with each character's offset, so
    // that a run's body is one copy.
    infos_.reserve(cps.size());
    offsets_.reserve(cps.size() + 1);
    utf8_.reserve(cps.size() + 8);
    for (const char32_t c : cps) {
      infos_.push_back(info(c));
      offsets_.push_back(static_cast<std::uint32_t>(utf8_.size()));
      append_utf8(utf8_, c);
    }
    offsets_.push_back(static_cast<std::uint32_t>(utf8_.size()));
  }

  std::string build() {
    split_runs();
    std::string out;
    out.reserve(cps_.size() * 2 + 8);
    if (runs_.empty()) {
      // Content that normalizes away still pays for the frame's ⟨bow⟩.
      if (options_.frame_bow) out.push_back(static_cast<char>(kBow));
      return out;
    }
    // The frame ends in ⟨bow⟩. A first run that writes no ⟨bow⟩ of its own gets the frame's; a
    // word-opening apostrophe gets the space that ⟨bow⟩ stands for, as itself.
    const bool head_quote = opens_word(0);
    const Run& first = runs_[0];
    const bool own_bow = !head_quote && (first.cls == kWordy || first.cls == kPunct || first.cls == kStray || hard_bow(first) ||
                                         ((first.cls == kDigit || first.cls == kHard) && digit_bow(first)) ||
                                         (first.cls == kSpace && cps_[first.begin] == U' '));
    if (!own_bow && options_.frame_bow) out.push_back(head_quote ? ' ' : static_cast<char>(kBow));
    const std::size_t n = runs_.size();
    for (std::size_t i = 0; i < n; ++i) {
      const Run& run = runs_[i];
      if (run.cls == kWordy) {
        const bool fused = i > 0 && runs_[i - 1].cls == kStray;
        write_word(out, run, fused, !(fused || contraction_seam(i)));
      } else if (run.cls == kStray) {
        const bool letter_follows = i + 1 < n && runs_[i + 1].cls == kWordy;
        out.push_back(static_cast<char>(kBow));
        body(out, run);
        if (!letter_follows) out.push_back(static_cast<char>(kEow));
      } else if (run.cls == kPunct || hard_bow(run) || hard_eow(run)) {
        // Marked only on a side that borders a space: `a! b` gets `!⟨eow⟩`, `a!b` a bare `!`.
        const bool punct = run.cls == kPunct;
        if (borders_space(i, -1) && !opens_word(i) && (punct || hard_bow(run))) out.push_back(static_cast<char>(kBow));
        body(out, run);
        if (borders_space(i, +1) && (punct || hard_eow(run))) out.push_back(static_cast<char>(kEow));
      } else if ((run.cls == kDigit || run.cls == kHard) && digit_run(run)) {
        // Digits take border markers decided by their border character (ASCII digits take none).
        if (digit_bow(run) && borders_space(i, -1)) out.push_back(static_cast<char>(kBow));
        body(out, run);
        if (digit_eow(run) && borders_space(i, +1)) out.push_back(static_cast<char>(kEow));
      } else {
        body(out, run);  // whitespace and the isolated letters of hard scripts: no markers
      }
    }
    absorb_seams(out);
    return out;
  }

 private:
  const CharInfo& at(std::uint32_t k) const { return infos_[k]; }

  void split_runs() {
    const std::size_t n = cps_.size();
    if (n == 0) return;
    std::vector<Run> raw;
    auto initial = [&](std::uint32_t k, std::uint8_t cls) -> std::uint8_t {
      return (cls == kWordy && (at(k).flags & kStrayMark)) ? std::uint8_t{kStray} : cls;
    };
    std::uint8_t cur = initial(0, at(0).cls);
    std::uint32_t begin = 0;
    for (std::uint32_t k = 1; k < n; ++k) {
      const CharInfo ci = at(k);
      const bool stray = ci.cls == kWordy && (ci.flags & kStrayMark);
      if (cur == kStray && stray) continue;  // consecutive unattached marks are one run
      if (ci.cls == cur) continue;
      raw.push_back({cur, begin, k});
      begin = k;
      cur = (stray && cur != kWordy) ? std::uint8_t{kStray} : ci.cls;
    }
    raw.push_back({cur, begin, static_cast<std::uint32_t>(n)});
    // A hard run splits where the pretokenizer's alternative changes (punctuation-like, number,
    // letter); a variation selector rides its base.
    for (const Run& r : raw) {
      if (r.cls != kHard || r.end - r.begin == 1) {
        runs_.push_back(r);
        continue;
      }
      std::uint32_t b = r.begin;
      int kind = hard_kind(r.begin);
      for (std::uint32_t k = r.begin + 1; k < r.end; ++k) {
        if (at(k).flags & kSelector) continue;
        const int kk = hard_kind(k);
        if (kk == kind) continue;
        runs_.push_back({kHard, b, k});
        b = k;
        kind = kk;
      }
      runs_.push_back({kHard, b, r.end});
    }
  }

  int hard_kind(std::uint32_t k) const {
    const auto flags = at(k).flags;
    if (flags & kPunctLike) return 0;
    if (flags & kDigitBorder) return 1;
    return 2;
  }

  bool is_apostrophe(const Run& r) const { return r.end - r.begin == 1 && cps_[r.begin] == U'\''; }

  // A lone `'` that opens the word after it: the boundary before it is not absorbed into it.
  bool opens_word(std::size_t i) const {
    return is_apostrophe(runs_[i]) && i + 1 < runs_.size() && (runs_[i + 1].cls == kWordy || runs_[i + 1].cls == kStray);
  }

  bool digit_run(const Run& r) const {
    const auto cat = at(r.begin).category;
    if (cat != UTF8PROC_CATEGORY_ND && cat != UTF8PROC_CATEGORY_NO) return false;
    for (std::uint32_t k = r.begin + 1; k < r.end; ++k) {
      if (at(k).category != cat) return false;
    }
    return true;
  }
  bool digit_bow(const Run& r) const { return digit_run(r) && (at(r.begin).flags & kDigitBorder); }
  bool digit_eow(const Run& r) const { return digit_run(r) && (at(r.end - 1).flags & kDigitBorder); }
  bool hard_bow(const Run& r) const { return (at(r.begin).flags & (kSelector | kPunctLike)) != 0; }
  bool hard_eow(const Run& r) const { return (at(r.end - 1).flags & (kSelector | kPunctLike)) != 0; }

  bool takes_right_border(const Run& r) const {
    return r.cls == kPunct || hard_eow(r) || ((r.cls == kDigit || r.cls == kHard) && digit_eow(r));
  }

  // `it's` is one word boundary: a lone apostrophe before a lowercase English contraction suffix
  // is that word's ⟨bow⟩, unless the run before the apostrophe writes a right border of its own.
  bool contraction_seam(std::size_t i) const {
    if (i == 0) return false;
    const Run& r = runs_[i];
    const std::uint32_t len = r.end - r.begin;
    const char32_t a = cps_[r.begin];
    const char32_t b = len > 1 ? cps_[r.begin + 1] : 0;
    const bool suffix = (len == 1 && (a == U's' || a == U't' || a == U'd' || a == U'm')) ||
                        (len == 2 && ((a == U'l' && b == U'l') || (a == U'r' && b == U'e') || (a == U'v' && b == U'e')));
    if (!suffix) return false;
    const Run& prev = runs_[i - 1];
    if (prev.cls != kPunct || !is_apostrophe(prev)) return false;
    return i < 2 || !takes_right_border(runs_[i - 2]);
  }

  // Does side `side` of run i touch a space? The message start does where the frame ends in
  // ⟨bow⟩; a right-hand marker is written for a single space only.
  bool borders_space(std::size_t i, int side) const {
    if (side < 0 && i == 0) return options_.frame_bow;
    const std::size_t j = side < 0 ? i - 1 : i + 1;
    if (j >= runs_.size()) return false;
    const Run& r = runs_[j];
    if (r.cls != kSpace) return false;
    if (side < 0) return cps_[r.end - 1] == U' ';
    return cps_[r.begin] == U' ' && !(r.end - r.begin >= 2 && cps_[r.begin + 1] == U' ');
  }

  void body(std::string& out, const Run& r) const {
    out.append(utf8_, offsets_[r.begin], offsets_[r.end] - offsets_[r.begin]);
  }

  bool upper(std::uint32_t k) const { return (at(k).flags & kUpper) != 0; }

  // A case marker fires on a whole word only: all capitals (at least allcaps_min letters, v3)
  // become ⟨caps⟩ + lowercase, a title-case word ⟨shift⟩ + lowercase; anything else is literal.
  void write_word(std::string& out, const Run& r, bool head_mark, bool bow) const {
    enum { Literal, Shift, Caps, ShiftKeepDottedI } mode = Literal;
    const std::uint32_t b = r.begin, e = r.end;
    bool sharp_s = false, dotted_i = false, unlowerable = false, any_cased = false, all_upper = true;
    bool upper_after_head = false, upper_after_head_not_i = false;
    for (std::uint32_t k = b; k < e; ++k) {
      const char32_t c = cps_[k];
      const auto flags = at(k).flags;
      sharp_s |= c == kCapitalSharpS;
      dotted_i |= c == kCapitalDottedI;
      unlowerable |= (flags & kUnlowerable) != 0;
      if (flags & (kUpper | kLower)) {
        any_cased = true;
        if (!(flags & kUpper)) all_upper = false;
      }
      if (k > b && (flags & kUpper)) {
        upper_after_head = true;
        if (c != kCapitalDottedI) upper_after_head_not_i = true;
      }
    }
    if (head_mark || sharp_s) {
      mode = Literal;
    } else if (dotted_i) {
      // İ is transparent to the title-case test and stays literal in the lowered body.
      if (upper(b) && cps_[b] != kCapitalDottedI && !upper_after_head_not_i) mode = ShiftKeepDottedI;
    } else if (options_.allcaps_min != 0 && any_cased && all_upper && e - b >= options_.allcaps_min && !unlowerable) {
      mode = Caps;
    } else if (lower_of(cps_[b]) == cps_[b]) {
      mode = Literal;
    } else if (upper(b) && !upper_after_head) {
      mode = Shift;
    }
    if (mode == Shift || mode == ShiftKeepDottedI) out.push_back(static_cast<char>(kShift));
    if (mode == Caps) out.push_back(static_cast<char>(kCaps));
    if (bow) out.push_back(static_cast<char>(kBow));
    if (mode == Literal) {
      body(out, r);
    } else {
      for (std::uint32_t k = b; k < e; ++k) {
        const char32_t c = cps_[k];
        append_utf8(out, (mode == ShiftKeepDottedI && k > b && c == kCapitalDottedI) ? c : lower_of(c));
      }
    }
    out.push_back(static_cast<char>(kEow));
  }

  // ⟨eow⟩ ' ' [case markers] ⟨bow⟩: a single space between two marked words is the seam itself.
  // Only the byte after an ⟨eow⟩ can go, so the scan jumps from one ⟨eow⟩ to the next.
  static void absorb_seams(std::string& s) {
    const std::size_t n = s.size();
    char* data = s.data();
    std::size_t w = 0, r = 0;
    for (;;) {
      const void* hit = std::memchr(data + r, static_cast<char>(kEow), n - r);
      if (hit == nullptr) break;
      const std::size_t eow = static_cast<std::size_t>(static_cast<const char*>(hit) - data);
      const std::size_t space = eow + 1;
      if (space >= n || data[space] != ' ') {
        std::memmove(data + w, data + r, space - r);
        w += space - r;
        r = space;
        continue;
      }
      std::size_t k = space + 1;
      while (k < n && (static_cast<unsigned char>(data[k]) == kShift || static_cast<unsigned char>(data[k]) == kCaps)) ++k;
      const bool seam = k < n && static_cast<unsigned char>(data[k]) == kBow;
      const std::size_t keep_to = seam ? space : space + 1;
      std::memmove(data + w, data + r, keep_to - r);
      w += keep_to - r;
      r = space + 1;
    }
    std::memmove(data + w, data + r, n - r);
    w += n - r;
    s.resize(w);
  }

  const std::u32string& cps_;
  const StreamOptions& options_;
  std::vector<CharInfo> infos_;
  std::vector<std::uint32_t> offsets_;
  std::string utf8_;
  std::vector<Run> runs_;
};

}  // namespace

MarkedStream build_marked_stream(std::string_view text, const StreamOptions& options) {
  const Infos info;
  const bool raw_head_space = !text.empty() && text.front() == ' ';
  if (options.free_tail) {
    // The frame absorbs trailing ASCII whitespace as it was sent: before NFC folds an NBSP into
    // a space, which is not free.
    while (!text.empty() && (text.back() == ' ' || (text.back() >= '\t' && text.back() <= '\r'))) text.remove_suffix(1);
  }
  std::u32string cps = normalize(text, options.fold_quotes, info);
  MarkedStream result{{}, 0};
  if (!options.free_tail) {
    while (!cps.empty() && cps.back() == U'\n') {
      cps.pop_back();
      ++result.tail_newlines;
    }
  }
  // One leading space is the frame's ⟨bow⟩; two or more are a whitespace token of their own. A
  // space that normalization exposed or made is not the raw head, and is not absorbed.
  if (options.frame_bow && raw_head_space && !cps.empty() && cps[0] == U' ' && (cps.size() < 2 || cps[1] != U' ')) {
    cps.erase(0, 1);
  }
  result.bytes = StreamBuilder(cps, options, info).build();
  return result;
}

}  // namespace ctxwin::claude
