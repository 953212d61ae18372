// The Claude marked stream as the core built it before it read the text in a bounded way: the
// whole text decoded to code points, a table entry, an offset and a run per character, every run
// kept. Kept here, unchanged but for its namespace and two `inline`s, as the oracle of the differential test
// (marked_stream_bounds_test.cc): the bounded builder must write the same bytes on every input.
#pragma once

#include <utf8proc.h>

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "ctxwin/tokenizer/normal_forms.hpp"
#include "ctxwin/tokenizer/utf8.hpp"
#include "tokenizer/claude/char_info.hpp"
#include "tokenizer/claude/marked_stream.hpp"
#include "tokenizer/claude/vocabulary.hpp"

namespace ctxwin::claude::reference {

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
  return c == 0x00A0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F;
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
inline std::u32string normalize(std::string_view text, bool fold_quotes, const Infos& info) {
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

namespace {

// ---------------------------------------------------------------- runs

struct Run {
  std::uint8_t cls;
  std::uint32_t begin, end;  // into the normalized code points
};

class StreamBuilder {
 public:
  StreamBuilder(const std::u32string& cps, const StreamOptions& options, const Infos& info) : cps_(cps), options_(options) {
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

  void body(std::string& out, const Run& r) const { out.append(utf8_, offsets_[r.begin], offsets_[r.end] - offsets_[r.begin]); }

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

inline MarkedStream build_marked_stream(std::string_view text, const StreamOptions& options) {
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

}  // namespace ctxwin::claude::reference
