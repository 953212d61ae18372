#include "tokenizer/claude/marked_stream.hpp"

#include <utf8proc.h>

#include "ctxwin/tokenizer/utf8.hpp"
#include "tokenizer/claude/char_info.hpp"
#include "tokenizer/claude/text_normalization.hpp"
#include "tokenizer/claude/vocabulary.hpp"

namespace ctxwin::claude {

namespace {

// ---------------------------------------------------------------- runs

// A run of characters of one stream class, as byte offsets into the normalized text, with what the
// stream's rules read of it: its first and last characters and whether its characters share one
// category. The rules look at most two runs back and one ahead, so runs are read as the stream is
// written, a few at a time, and nothing is kept per character: the stream costs the text it reads
// and the bytes it writes.
struct Run {
  std::uint8_t cls = kWordy;
  bool one_category = true;      // every character has the first one's category
  std::uint16_t rest_flags = 0;  // the flags of the characters after the first, ORed
  std::uint32_t chars = 1;
  CharInfo first{}, last{};
  char32_t first_char = 0, last_char = 0;
  std::size_t begin = 0, end = 0;
};

int hard_kind(std::uint16_t flags) {
  if (flags & kPunctLike) return 0;
  if (flags & kDigitBorder) return 1;
  return 2;
}

// Splits the normalized text into runs, one at a time: consecutive characters of one class, with
// unattached combining marks one run of their own, and a hard run split where the pretokenizer's
// alternative changes (punctuation-like, number, letter; a variation selector rides its base).
class RunReader {
 public:
  RunReader(std::string_view text, const Infos& info) : text_(text), info_(info) {
    lower_ = info_(U'a');
    for (char32_t c = U'b'; c <= U'z'; ++c) {
      const CharInfo ci = info_(c);
      lower_same_ &= ci.cls == lower_.cls && ci.category == lower_.category && ci.flags == lower_.flags;
    }
    read_char();
  }

  // Reads into locals and writes `run` once at the end: Run's byte-wide fields may alias anything,
  // so writing them character by character made every read around them a reload.
  bool next(Run& run) {
    const std::size_t n = text_.size();
    if (at_ >= n) return false;
    const CharInfo first = info_now_;
    const bool stray = first.cls == kWordy && (first.flags & kStrayMark);
    const std::uint8_t cls = stray ? std::uint8_t{kStray} : first.cls;
    const int kind = hard_kind(first.flags);
    const char* const data = text_.data();
    const std::size_t begin = at_;
    CharInfo last = first;
    const char32_t first_char = char_now_;
    char32_t last_char = char_now_;
    bool one_category = true;
    std::uint16_t rest_flags = 0;
    std::uint32_t chars = 1;
    std::size_t at = at_, len = len_now_;
    char32_t c = char_now_;
    CharInfo ci = first;
    for (;;) {
      at += len;
      if (cls == kWordy && lower_same_) {
        // ASCII lowercase letters, most of a word's characters, share one entry (checked when
        // the reader is made): a stretch of them continues the run without a lookup each.
        std::size_t k = at;
        while (k < n && static_cast<unsigned>(static_cast<unsigned char>(data[k])) - 'a' < 26u) ++k;
        if (k > at) {
          last = lower_;
          last_char = static_cast<unsigned char>(data[k - 1]);
          one_category &= lower_.category == first.category;
          rest_flags |= lower_.flags;
          chars += static_cast<std::uint32_t>(k - at);
          at = k;
        }
      }
      if (at >= n) break;
      const auto b = static_cast<unsigned char>(data[at]);
      if (b < 0x80) {
        c = b;
        len = 1;
      } else {
        c = decode_utf8(text_, at, len);
      }
      ci = info_(c);
      const bool stray_mark = ci.cls == kWordy && (ci.flags & kStrayMark);
      if (!(cls == kStray && stray_mark)) {  // consecutive unattached marks are one run
        if (ci.cls != cls) break;
        if (cls == kHard && !(ci.flags & kSelector) && hard_kind(ci.flags) != kind) break;
      }
      last = ci;
      last_char = c;
      one_category &= ci.category == first.category;
      rest_flags |= ci.flags;
      ++chars;
    }
    run.cls = cls;
    run.one_category = one_category;
    run.rest_flags = rest_flags;
    run.chars = chars;
    run.first = first;
    run.last = last;
    run.first_char = first_char;
    run.last_char = last_char;
    run.begin = begin;
    run.end = at < n ? at : n;
    at_ = at;
    len_now_ = len;
    char_now_ = c;
    info_now_ = ci;
    return true;
  }

 private:
  void read_char() {
    if (at_ >= text_.size()) return;
    char_now_ = decode_utf8(text_, at_, len_now_);
    info_now_ = info_(char_now_);
  }

  std::string_view text_;
  const Infos& info_;
  CharInfo lower_{};        // the entry of `a`
  bool lower_same_ = true;  // `b` to `z` have it too
  std::size_t at_ = 0;      // the start of the character read last: the next run's first
  std::size_t len_now_ = 0;
  char32_t char_now_ = 0;
  CharInfo info_now_{};
};

// The runs around the one being written: two back, one ahead (null where the text has none).
struct Around {
  const Run* before2;
  const Run* before;
  const Run& run;
  const Run* after;
};

class StreamBuilder {
 public:
  StreamBuilder(std::string_view text, const StreamOptions& options, const Infos& info) : text_(text), options_(options), info_(info) {}

  std::string build() {
    std::string out;
    // Address space only: pages the stream never writes are never touched.
    out.reserve(text_.size() + text_.size() / 2 + 8);
    RunReader reader(text_, info_);
    Run ring[4];
    std::size_t i = 0;
    bool have_next = reader.next(ring[0]);
    if (!have_next) {
      // Content that normalizes away still pays for the frame's ⟨bow⟩.
      if (options_.frame_bow) out.push_back(static_cast<char>(kBow));
      return out;
    }
    while (have_next) {
      const Run& run = ring[i & 3];
      have_next = reader.next(ring[(i + 1) & 3]);
      const Around a{i >= 2 ? &ring[(i - 2) & 3] : nullptr, i >= 1 ? &ring[(i - 1) & 3] : nullptr, run,
                     have_next ? &ring[(i + 1) & 3] : nullptr};
      if (i == 0) write_frame_bow(out, a);
      write_run(out, a);
      ++i;
    }
    return out;
  }

 private:
  // The frame ends in ⟨bow⟩. A first run that writes no ⟨bow⟩ of its own gets the frame's; a
  // word-opening apostrophe gets the space that ⟨bow⟩ stands for, as itself.
  void write_frame_bow(std::string& out, const Around& a) const {
    const bool head_quote = opens_word(a);
    const Run& first = a.run;
    const bool own_bow = !head_quote && (first.cls == kWordy || first.cls == kPunct || first.cls == kStray || hard_bow(first) ||
                                         ((first.cls == kDigit || first.cls == kHard) && digit_bow(first)) ||
                                         (first.cls == kSpace && first.first_char == U' '));
    if (!own_bow && options_.frame_bow) out.push_back(head_quote ? ' ' : static_cast<char>(kBow));
  }

  void write_run(std::string& out, const Around& a) const {
    const Run& run = a.run;
    if (run.cls == kWordy) {
      const bool fused = a.before != nullptr && a.before->cls == kStray;
      write_word(out, run, fused, !(fused || contraction_seam(a)));
    } else if (run.cls == kStray) {
      const bool letter_follows = a.after != nullptr && a.after->cls == kWordy;
      open_word(out, 0);
      body(out, run);
      if (!letter_follows) out.push_back(static_cast<char>(kEow));
    } else if (run.cls == kPunct || hard_bow(run) || hard_eow(run)) {
      // Marked only on a side that borders a space: `a! b` gets `!⟨eow⟩`, `a!b` a bare `!`.
      const bool punct = run.cls == kPunct;
      if (space_before(a) && !opens_word(a) && (punct || hard_bow(run))) open_word(out, 0);
      body(out, run);
      if (space_after(a) && (punct || hard_eow(run))) out.push_back(static_cast<char>(kEow));
    } else if ((run.cls == kDigit || run.cls == kHard) && digit_run(run)) {
      // Digits take border markers decided by their border character (ASCII digits take none).
      if (digit_bow(run) && space_before(a)) open_word(out, 0);
      body(out, run);
      if (digit_eow(run) && space_after(a)) out.push_back(static_cast<char>(kEow));
    } else {
      body(out, run);  // whitespace and the isolated letters of hard scripts: no markers
    }
  }

  bool is_apostrophe(const Run& r) const { return r.end - r.begin == 1 && text_[r.begin] == '\''; }

  // A lone `'` that opens the word after it: the boundary before it is not absorbed into it.
  bool opens_word(const Around& a) const {
    return is_apostrophe(a.run) && a.after != nullptr && (a.after->cls == kWordy || a.after->cls == kStray);
  }

  static bool digit_run(const Run& r) {
    const auto cat = r.first.category;
    return (cat == UTF8PROC_CATEGORY_ND || cat == UTF8PROC_CATEGORY_NO) && r.one_category;
  }
  static bool digit_bow(const Run& r) { return digit_run(r) && (r.first.flags & kDigitBorder); }
  static bool digit_eow(const Run& r) { return digit_run(r) && (r.last.flags & kDigitBorder); }
  static bool hard_bow(const Run& r) { return (r.first.flags & (kSelector | kPunctLike)) != 0; }
  static bool hard_eow(const Run& r) { return (r.last.flags & (kSelector | kPunctLike)) != 0; }

  static bool takes_right_border(const Run& r) {
    return r.cls == kPunct || hard_eow(r) || ((r.cls == kDigit || r.cls == kHard) && digit_eow(r));
  }

  // `it's` is one word boundary: a lone apostrophe before a lowercase English contraction suffix
  // is that word's ⟨bow⟩, unless the run before the apostrophe writes a right border of its own.
  bool contraction_seam(const Around& a) const {
    if (a.before == nullptr) return false;
    const Run& r = a.run;
    // The suffixes are ASCII: a run of one or two of their bytes is one or two characters.
    const std::size_t len = r.end - r.begin;
    const char x = text_[r.begin];
    const char y = len > 1 ? text_[r.begin + 1] : '\0';
    const bool suffix = (len == 1 && (x == 's' || x == 't' || x == 'd' || x == 'm')) ||
                        (len == 2 && ((x == 'l' && y == 'l') || (x == 'r' && y == 'e') || (x == 'v' && y == 'e')));
    if (!suffix) return false;
    const Run& prev = *a.before;
    if (prev.cls != kPunct || !is_apostrophe(prev)) return false;
    return a.before2 == nullptr || !takes_right_border(*a.before2);
  }

  // Does a side of the run touch a space? The message start does where the frame ends in ⟨bow⟩;
  // a right-hand marker is written for a single space only.
  bool space_before(const Around& a) const {
    if (a.before == nullptr) return options_.frame_bow;
    return a.before->cls == kSpace && a.before->last_char == U' ';
  }
  bool space_after(const Around& a) const {
    if (a.after == nullptr) return false;
    const Run& r = *a.after;
    if (r.cls != kSpace || r.first_char != U' ') return false;
    return !(r.end - r.begin >= 2 && text_[r.begin + 1] == ' ');
  }

  void body(std::string& out, const Run& r) const { out.append(text_, r.begin, r.end - r.begin); }

  // A case marker fires on a whole word only: all capitals (at least allcaps_min letters, v3)
  // become ⟨caps⟩ + lowercase, a title-case word ⟨shift⟩ + lowercase; anything else is literal.
  void write_word(std::string& out, const Run& r, bool head_mark, bool bow) const {
    const std::uint16_t all = r.first.flags | r.rest_flags;
    const Mode mode = (head_mark || (all & kCaseSpecial)) ? special_word_mode(r, head_mark) : word_mode(r);
    const unsigned char mark = mode == Shift || mode == ShiftKeepDottedI ? kShift : mode == Caps ? kCaps : 0;
    if (bow) {
      open_word(out, mark);
    } else if (mark != 0) {
      out.push_back(static_cast<char>(mark));
    }
    if (mode == Literal) {
      body(out, r);
    } else if (!(all & kNonAscii)) {
      // ASCII: lowering is byte by byte (no İ here: the special path keeps it literal).
      const std::size_t at = out.size();
      body(out, r);
      for (char* p = out.data() + at; p != out.data() + out.size(); ++p) {
        if (*p >= 'A' && *p <= 'Z') *p = static_cast<char>(*p + 32);
      }
    } else {
      for (std::size_t k = r.begin; k < r.end;) {
        std::size_t len;
        const char32_t c = decode_utf8(text_, k, len);
        append_utf8(out, (mode == ShiftKeepDottedI && k > r.begin && c == kCapitalDottedI) ? c : lower_of(c));
        k += len;
      }
    }
    out.push_back(static_cast<char>(kEow));
  }

  enum Mode { Literal, Shift, Caps, ShiftKeepDottedI };

  // The case marker of a word without İ or ẞ, from the flags the run reader ORed over it: the
  // word is not read again.
  Mode word_mode(const Run& r) const {
    const std::uint16_t all = r.first.flags | r.rest_flags;
    const bool all_upper = !(all & kLowerOnly);
    if (options_.allcaps_min != 0 && (all & (kUpper | kLower)) && all_upper && r.chars >= options_.allcaps_min && !(all & kUnlowerable)) {
      return Caps;
    }
    if (lower_of(r.first_char) == r.first_char) return Literal;
    if ((r.first.flags & kUpper) && !(r.rest_flags & kUpper)) return Shift;
    return Literal;
  }

  // The case marker of any word, reading it character by character (word_mode() gives the same
  // for words without İ or ẞ, which are not the head of a fused stray mark).
  Mode special_word_mode(const Run& r, bool head_mark) const {
    Mode mode = Literal;
    bool sharp_s = false, dotted_i = false, unlowerable = false, any_cased = false, all_upper = true;
    bool upper_after_head = false, upper_after_head_not_i = false;
    std::size_t chars = 0;
    for (std::size_t k = r.begin; k < r.end; ++chars) {
      std::size_t len;
      const char32_t c = decode_utf8(text_, k, len);
      const auto flags = info_(c).flags;
      sharp_s |= c == kCapitalSharpS;
      dotted_i |= c == kCapitalDottedI;
      unlowerable |= (flags & kUnlowerable) != 0;
      if (flags & (kUpper | kLower)) {
        any_cased = true;
        if (!(flags & kUpper)) all_upper = false;
      }
      if (k > r.begin && (flags & kUpper)) {
        upper_after_head = true;
        if (c != kCapitalDottedI) upper_after_head_not_i = true;
      }
      k += len;
    }
    const char32_t head = r.first_char;
    const bool head_upper = (r.first.flags & kUpper) != 0;
    if (head_mark || sharp_s) {
      mode = Literal;
    } else if (dotted_i) {
      // İ is transparent to the title-case test and stays literal in the lowered body.
      if (head_upper && head != kCapitalDottedI && !upper_after_head_not_i) mode = ShiftKeepDottedI;
    } else if (options_.allcaps_min != 0 && any_cased && all_upper && chars >= options_.allcaps_min && !unlowerable) {
      mode = Caps;
    } else if (lower_of(head) == head) {
      mode = Literal;
    } else if (head_upper && !upper_after_head) {
      mode = Shift;
    }
    return mode;
  }

  // Writes [case marker] ⟨bow⟩. ⟨eow⟩ ' ' [case marker] ⟨bow⟩: a single space between two marked
  // words is the seam itself, so the space goes. The space before can only be a space run's
  // (no other run writes one, and nothing else writes after an ⟨eow⟩), so looking at the last
  // two bytes here is the same as scanning the stream for the pattern afterwards.
  static void open_word(std::string& out, unsigned char mark) {
    const std::size_t n = out.size();
    if (n >= 2 && out[n - 1] == ' ' && static_cast<unsigned char>(out[n - 2]) == kEow) out.pop_back();
    if (mark != 0) out.push_back(static_cast<char>(mark));
    out.push_back(static_cast<char>(kBow));
  }

  std::string_view text_;
  const StreamOptions& options_;
  const Infos& info_;
};

}  // namespace

MarkedStream build_marked_stream(std::string_view text, const StreamOptions& options, std::size_t normalization_chunk_bytes) {
  const Infos info;
  const bool raw_head_space = !text.empty() && text.front() == ' ';
  if (options.free_tail) {
    // The frame absorbs trailing ASCII whitespace as it was sent: before NFC folds an NBSP into
    // a space, which is not free.
    while (!text.empty() && (text.back() == ' ' || (text.back() >= '\t' && text.back() <= '\r'))) text.remove_suffix(1);
  }
  std::string storage;
  std::string_view normal = normalize(text, options.fold_quotes, info, storage, normalization_chunk_bytes);
  MarkedStream result{{}, 0};
  if (!options.free_tail) {
    while (!normal.empty() && normal.back() == '\n') {
      normal.remove_suffix(1);
      ++result.tail_newlines;
    }
  }
  // One leading space is the frame's ⟨bow⟩; two or more are a whitespace token of their own. A
  // space that normalization exposed or made is not the raw head, and is not absorbed.
  if (options.frame_bow && raw_head_space && !normal.empty() && normal[0] == ' ' && (normal.size() < 2 || normal[1] != ' ')) {
    normal.remove_prefix(1);
  }
  result.bytes = StreamBuilder(normal, options, info).build();
  return result;
}

}  // namespace ctxwin::claude
