#include "tokenizer/claude/char_info.hpp"

#include <utf8proc.h>

#include <algorithm>
#include <array>

#include "ctxwin/tokenizer/normal_forms.hpp"

namespace ctxwin::claude {

namespace {

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
    {0x0740, 0x074A}, {0x093C, 0x093C}, {0x0951, 0x0954}, {0x09BC, 0x09BC}, {0x09FE, 0x09FE}, {0x0A3C, 0x0A3C}, {0x0ABC, 0x0ABC},
    {0x0AFD, 0x0AFF}, {0x0B3C, 0x0B3C}, {0x0B55, 0x0B55}, {0x0C3C, 0x0C3C}, {0x0CBC, 0x0CBC}, {0x0E47, 0x0E4C}, {0x0E4E, 0x0E4E},
    {0x0EC8, 0x0ECC}, {0x0ECE, 0x0ECE}, {0x0F18, 0x0F19}, {0x0F35, 0x0F35}, {0x0F37, 0x0F37}, {0x0F39, 0x0F39}, {0x0F3E, 0x0F3F},
    {0x0F86, 0x0F87}, {0x0FC6, 0x0FC6}, {0x1037, 0x1037}, {0x17B4, 0x17B5}, {0x17C9, 0x17D1}, {0x17D3, 0x17D3}, {0x17DD, 0x17DD},
    {0x1A75, 0x1A7C}, {0x1A7F, 0x1A7F}, {0x1B34, 0x1B34}, {0x1B6B, 0x1B73}, {0xA9B3, 0xA9B3},
});
// The combining diacritics block but U+0345 and the combining Latin letters (ctok's
// SEPARATOR_MARKS): an accent splits a word in two.
constexpr auto kSeparatorMarks = std::to_array<Range>({{0x0300, 0x0344}, {0x0346, 0x0362}});
// Accents, tone marks, cantillation and annotation marks of the other combining blocks (ctok's
// SEPARATOR_ANNOTATIONS): outside the word, where vowel points and combining letters are inside.
constexpr auto kSeparatorAnnotations = std::to_array<Range>({
    {0x0483, 0x0489}, {0x0591, 0x05AF}, {0x0658, 0x0658}, {0x06DF, 0x06E0}, {0x06EA, 0x06EC}, {0x07EB, 0x07F3}, {0x07FD, 0x07FD},
    {0x0859, 0x085B}, {0x0898, 0x089F}, {0x08CA, 0x08D3}, {0x08E0, 0x08E1}, {0x0818, 0x0819}, {0x082D, 0x082D}, {0x08EA, 0x08EF},
    {0x135D, 0x135F}, {0x180B, 0x180D}, {0x180F, 0x180F}, {0x1939, 0x193B}, {0x1AB0, 0x1ABE}, {0x1AC1, 0x1ACB}, {0x1CD0, 0x1CE8},
    {0x1CED, 0x1CED}, {0x1CF4, 0x1CF4}, {0x1CF8, 0x1CF9}, {0x1BE6, 0x1BE6}, {0x1C37, 0x1C37}, {0x1CF7, 0x1CF7}, {0x1DC0, 0x1DD2},
    {0x1DF5, 0x1DFF}, {0x20D0, 0x20F0}, {0xA66F, 0xA672}, {0xA67C, 0xA67D}, {0x2CEF, 0x2CF1}, {0x302A, 0x302F}, {0x3099, 0x309A},
    {0xA6F0, 0xA6F1}, {0xA8E0, 0xA8F1}, {0xA92B, 0xA92D}, {0xAABF, 0xAABF}, {0xAAC1, 0xAAC1}, {0xABEC, 0xABEC}, {0xFE20, 0xFE2F},
});
// Symbol-letters that take the full word model like Latin letters (the block predicts, not the
// category).
constexpr auto kSymbolLetters = std::to_array<Range>({{0x16EE, 0x16F0}, {0x2160, 0x2188}, {0x24B6, 0x24E9}, {0xA6E6, 0xA6EF}});
// Non-ASCII symbols measured to tile over the punctuation vocabulary (`（` is, `）` is not).
constexpr auto kPunctSymbols = std::to_array<char32_t>({U'—', U'»', U'«',  U'•', U'°', U'„', U'–', U'−', U'£', U'§', U'€', U'…',
                                                        U'√', U'→', U'（', U'№', U'†', U'└', U'│', U'།', U'·', U'─', U'═', U'█'});
// So-category members of CJK Symbols and Punctuation, markerless like the block's punctuation.
constexpr std::array<char32_t, 8> kIdeographicSymbols = {U'〄', U'〒', U'〓', U'〠', U'〶', U'〷', U'〾', U'〿'};
// Unicode's Other_Uppercase and Other_Lowercase (Python's str.isupper / islower read them).
constexpr auto kOtherUpper =
    std::to_array<Range>({{0x2160, 0x216F}, {0x24B6, 0x24CF}, {0x1F130, 0x1F149}, {0x1F150, 0x1F169}, {0x1F170, 0x1F189}});
constexpr auto kOtherLower = std::to_array<Range>({
    {0xAA, 0xAA},     {0xBA, 0xBA},     {0x2B0, 0x2B8},     {0x2C0, 0x2C1},     {0x2E0, 0x2E4},     {0x345, 0x345},
    {0x37A, 0x37A},   {0x1D2C, 0x1D6A}, {0x1D78, 0x1D78},   {0x1D9B, 0x1DBF},   {0x2071, 0x2071},   {0x207F, 0x207F},
    {0x2090, 0x209C}, {0x2170, 0x217F}, {0x24D0, 0x24E9},   {0x2C7C, 0x2C7D},   {0xA69C, 0xA69D},   {0xA770, 0xA770},
    {0xA7F8, 0xA7F9}, {0xAB5C, 0xAB5F}, {0x10780, 0x10780}, {0x10783, 0x10785}, {0x10787, 0x107B0}, {0x107B2, 0x107BA},
});

// Unicode 16 case pairs the models know and utf8proc's tables (Unicode 15) do not.
constexpr char32_t kNewUpper1 = 0x1C89, kNewLower1 = 0x1C8A, kNewUpper2 = 0xA7CB, kNewLower2 = 0x0264;
// Uncased for the models, though Unicode calls `ϴ` a capital.
constexpr char32_t kUncased = 0x03F4;

bool is_new_cased(char32_t c) { return c == kNewUpper1 || c == kNewLower1 || c == kNewUpper2 || c == kNewLower2; }

}  // namespace

char32_t lower_of_non_ascii(char32_t c) {
  if (c == kUncased) return c;
  if (c == kNewUpper1) return kNewLower1;
  if (c == kNewUpper2) return kNewLower2;
  return static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c)));
}

namespace {

// Letters that take the isolated-character path (CJK, Hangul syllables, everything astral, the
// ideographic iteration marks and two measured ranges of Quranic annotation signs).
bool is_hard_cp(char32_t o) {
  return o >= 0x10000 || (o >= 0x4E00 && o <= 0x9FFF) || (o >= 0x3400 && o <= 0x4DBF) || (o >= 0xF900 && o <= 0xFAFF) ||
         (o >= 0xAC00 && o <= 0xD7A3) || o == 0x3005 || o == 0x3006 || (o >= 0x3031 && o <= 0x3035) || o == 0x303B || o == 0x303C ||
         (o >= 0x06DD && o <= 0x06E0) || (o >= 0x06E9 && o <= 0x06EC);
}

}  // namespace

CharInfo compute_info(char32_t c) {
  const utf8proc_property_t* p = utf8proc_get_property(static_cast<utf8proc_int32_t>(c));
  const auto cat = static_cast<utf8proc_category_t>(p->category);
  const bool letter_or_mark = cat >= UTF8PROC_CATEGORY_LU && cat <= UTF8PROC_CATEGORY_ME;
  const bool punct_or_symbol =
      (cat >= UTF8PROC_CATEGORY_PC && cat <= UTF8PROC_CATEGORY_PO) || (cat >= UTF8PROC_CATEGORY_SM && cat <= UTF8PROC_CATEGORY_SO);
  std::uint16_t flags = 0;
  // Viramas (combining class 9) but Thai PHINTHU, which measured as an ordinary mark.
  const bool separator = (p->combining_class == 9 && c != 0x0E3A) || in_ranges(c, kSeparatorSigns) || in_ranges(c, kSeparatorMarks) ||
                         in_ranges(c, kSeparatorAnnotations);
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
  } else if (cat == UTF8PROC_CATEGORY_ZS || cat == UTF8PROC_CATEGORY_ZL || cat == UTF8PROC_CATEGORY_ZP || (c >= 0x09 && c <= 0x0D)) {
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
  if (lower && !upper) flags |= kLowerOnly;
  if (c == kCapitalDottedI || c == kCapitalSharpS) flags |= kCaseSpecial;
  if (c >= 0x80) flags |= kNonAscii;
  if ((is_new_cased(c) || letter_or_mark) && !lower && (!upper || lower_of(c) == c)) flags |= kUnlowerable;
  // Text that NFC may change takes normalization's NFC path, and so does Thai SARA AM (U+0E4D),
  // which that path composes with a following U+0E32 into U+0E33.
  if (c == 0x0E4D || may_change(NormalForm::Nfc, c)) flags |= kNeedsNfc;
  return CharInfo{cls, static_cast<std::uint8_t>(is_new_cased(c) ? UTF8PROC_CATEGORY_LL : cat), flags};
}

namespace {

const std::vector<CharInfo>& bmp_infos() {
  static const std::vector<CharInfo> table = [] {
    std::vector<CharInfo> t(0x10000);
    for (char32_t c = 0; c < 0x10000; ++c) t[c] = (c >= 0xD800 && c < 0xE000) ? compute_info(0xFFFD) : compute_info(c);
    return t;
  }();
  return table;
}

}  // namespace

Infos::Infos() : bmp_(bmp_infos().data()) {}

}  // namespace ctxwin::claude
