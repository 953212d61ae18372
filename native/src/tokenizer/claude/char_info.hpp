// What each code point is to the Claude tokenizer: its stream class (word material, an isolated
// "hard" character, digit, punctuation, space, a stray combining mark) and the flags the marked
// stream's rules read (word separators, case, border markers, whether NFC may change it). Every
// entry is Unicode data (utf8proc) or a measured fact about how Claude's tokenizer splits text
// (ctok's measurements, each pinned by a count_tokens probe); the tables say which.
//
//   const Infos info;                 // the BMP table is built once per process, then shared
//   if (info(c).cls == kWordy) ...
//
// Internal to the core.
#pragma once

#include <cstdint>
#include <vector>

namespace ctxwin::claude {

// Stream classes. kStray is a combining mark with no letter before it to carry it: a word of its own.
enum Cls : std::uint8_t { kWordy, kHard, kDigit, kPunct, kSpace, kStray };

enum Flag : std::uint16_t {
  kSeparator = 1 << 0,    // closes the word before it, as a virama does
  kStrayMark = 1 << 1,    // a combining mark that opens a word where nothing can carry it
  kPunctLike = 1 << 2,    // takes punctuation's border markers inside a hard run
  kDigitBorder = 1 << 3,  // a number that takes border markers (non-ASCII Nd, and No, in the BMP)
  kSelector = 1 << 4,     // a variation selector: rides its base, takes no word model
  kUpper = 1 << 5,
  kLower = 1 << 6,
  kUnlowerable = 1 << 7,  // a letter or mark that no case marker can restore
  kNeedsNfc = 1 << 8,     // NFC may change text holding this character
  // What the stream builder ORs over a word's characters to decide its case marker without
  // reading the word again (marked_stream.cpp, write_word):
  kLowerOnly = 1 << 9,     // kLower without kUpper: the word is not all capitals
  kCaseSpecial = 1 << 10,  // İ or ẞ, which the case rules treat one by one
  kNonAscii = 1 << 11,     // lowering the word needs the general path
};

struct CharInfo {
  std::uint8_t cls;
  std::uint8_t category;  // utf8proc_category_t
  std::uint16_t flags;
};

// The letters whose case the tables below treat specially (the stream builder keeps them literal).
inline constexpr char32_t kCapitalDottedI = 0x0130;  // İ
inline constexpr char32_t kCapitalSharpS = 0x1E9E;   // ẞ

// The lowercase of `c` as the tokenizer's case markers undo it (Unicode's simple lowercase, with
// the Unicode 16 pairs the models know and one letter they treat as uncased).
char32_t lower_of_non_ascii(char32_t c);
inline char32_t lower_of(char32_t c) {
  if (c < 0x80) return (c >= U'A' && c <= U'Z') ? c + 32 : c;
  return lower_of_non_ascii(c);
}

// The classification of `c`, computed from the tables (Infos answers the BMP from a table of these).
CharInfo compute_info(char32_t c);

// One lookup per character: the Basic Multilingual Plane from a table built once per process
// (immutable, shared by every thread), astral characters computed.
class Infos {
 public:
  Infos();
  CharInfo operator()(char32_t c) const { return c < 0x10000 ? bmp_[c] : compute_info(c); }

 private:
  // The table itself, not the vector holding it: a lookup is one read, not three (the stream's
  // byte stores may alias the vector, so the compiler reloaded its pointer at every character).
  const CharInfo* bmp_;
};

}  // namespace ctxwin::claude
