// The quick check against utf8proc's full normalization: whenever it answers "no change", the
// normal form must indeed leave the text as it is, on every code point, on every code point's
// decompositions, and on adversarial strings (combining marks in every order, Hangul jamo and
// syllables, singletons, composition exclusions, composing vowel signs, compatibility characters,
// and the U+FFFD that lone surrogates become).
#include "ctxwin/tokenizer/normal_forms.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utf8proc.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ctxwin/tokenizer/utf8.hpp"

namespace ctxwin {
namespace {

constexpr std::array<NormalForm, 4> kForms = {NormalForm::Nfc, NormalForm::Nfd, NormalForm::Nfkc, NormalForm::Nfkd};

const char* name(NormalForm form) {
  switch (form) {
    case NormalForm::Nfc:
      return "NFC";
    case NormalForm::Nfd:
      return "NFD";
    case NormalForm::Nfkc:
      return "NFKC";
    case NormalForm::Nfkd:
      return "NFKD";
  }
  return "?";
}

// utf8proc_map directly: the reference the core's wrapper and quick check are held to.
std::string reference(NormalForm form, const std::string& text) {
  int options = UTF8PROC_STABLE;
  options |= (form == NormalForm::Nfc || form == NormalForm::Nfkc) ? UTF8PROC_COMPOSE : UTF8PROC_DECOMPOSE;
  if (form == NormalForm::Nfkc || form == NormalForm::Nfkd) options |= UTF8PROC_COMPAT;
  utf8proc_uint8_t* out = nullptr;
  const auto n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()), static_cast<utf8proc_ssize_t>(text.size()), &out,
                              static_cast<utf8proc_option_t>(options));
  const std::unique_ptr<utf8proc_uint8_t, decltype(&std::free)> owned(out, &std::free);
  if (n < 0) throw std::runtime_error("utf8proc_map failed");
  return std::string(reinterpret_cast<const char*>(out), static_cast<std::size_t>(n));
}

std::string utf8(std::initializer_list<char32_t> cps) {
  std::string out;
  for (const char32_t cp : cps) append_utf8(out, cp);
  return out;
}

std::string hex(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    std::size_t length = 0;
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "U+%04X ", static_cast<unsigned>(decode_utf8(text, i, length)));
    out += buffer;
    i += length;
  }
  return out;
}

TEST(NormalForms, EveryCodePointTheFormChangesIsFlagged) {
  for (char32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    std::string text;
    append_utf8(text, cp);
    for (const NormalForm form : kForms) {
      if (reference(form, text) == text) continue;
      ASSERT_TRUE(may_change(form, cp)) << name(form) << " " << hex(text);
      ASSERT_TRUE(may_change(form, text)) << name(form) << " " << hex(text);
    }
  }
}

TEST(NormalForms, EveryDecompositionThatRecomposesIsFlagged) {
  // The decomposed forms of each code point: NFC composes them again, so the check must see it.
  for (char32_t cp = 0x80; cp <= 0x10FFFF; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    std::string text;
    append_utf8(text, cp);
    for (const std::string& parts : {reference(NormalForm::Nfd, text), reference(NormalForm::Nfkd, text)}) {
      if (parts == text) continue;
      for (const NormalForm form : kForms) {
        if (reference(form, parts) != parts) {
          ASSERT_TRUE(may_change(form, parts)) << name(form) << " " << hex(parts);
        }
      }
    }
  }
}

TEST(NormalForms, AdversarialStringsAreLeftAloneOnlyWhenTheCheckSaysSo) {
  const std::vector<char32_t> pool = {
      // ASCII and common letters, which must stay on the fast path
      U'a',
      U'e',
      U'o',
      U'A',
      U' ',
      0x00E9,
      0x00C5,
      0x0439,
      0x03AD,
      0x4E2D,
      // combining marks in several classes (reordering)
      0x0300,
      0x0301,
      0x0308,
      0x0323,
      0x0327,
      0x0345,
      0x05B0,
      0x0591,
      0x093C,
      0x094D,
      0x0E48,
      0x1DC0,
      0x20D0,
      0x302A,
      // precomposed letters that are the first of a further composition
      0x1E69,
      0x01D6,
      0x00FC,
      0x1F00,
      0x0385,
      // singletons and composition exclusions
      0x2126,
      0x212A,
      0x212B,
      0xF900,
      0x0340,
      0x0341,
      0x0343,
      0x0374,
      0x037E,
      0x0387,
      0x1F71,
      0x2F800,
      0x0958,
      0x095F,
      0x0F43,
      0xFB1D,
      0x2ADC,
      0x1D15E,
      0x0344,
      0x0F73,
      // Hangul: leading, vowel and trailing jamo, LV and LVT syllables, old jamo
      0x1100,
      0x1112,
      0x1161,
      0x1175,
      0x11A8,
      0x11C2,
      0xAC00,
      0xAC01,
      0xD7A3,
      0x1113,
      0xA960,
      0xD7B0,
      // composing vowel signs and length marks, with the vowels they follow
      0x0B47,
      0x0B3E,
      0x0B56,
      0x0BC6,
      0x0BBE,
      0x0DD9,
      0x0DCF,
      0x1025,
      0x102E,
      0x1B05,
      0x1B35,
      0x11131,
      0x11127,
      0x11347,
      0x1133E,
      // compatibility characters
      0xFB01,
      0x00BD,
      0x2460,
      0xFF21,
      0x1D400,
      0x3300,
      0x00A8,
      0x00B4,
      0x1E9B,
      0x03D3,
      // what a lone surrogate becomes, emoji, a joiner, Thai SARA AM and its parts
      0xFFFD,
      0x1F600,
      0x1F469,
      0x200D,
      0x0E33,
      0x0E4D,
      0x0E32,
  };
  std::mt19937 random(20);
  std::uniform_int_distribution<std::size_t> pick(0, pool.size() - 1);
  std::uniform_int_distribution<int> length(1, 6);
  std::array<int, 4> unchanged{};
  for (int round = 0; round < 200'000; ++round) {
    std::string text;
    for (int k = length(random); k > 0; --k) append_utf8(text, pool[pick(random)]);
    for (std::size_t f = 0; f < kForms.size(); ++f) {
      if (may_change(kForms[f], text)) continue;
      ++unchanged[f];
      ASSERT_EQ(reference(kForms[f], text), text) << name(kForms[f]) << " " << hex(text);
      ASSERT_EQ(normalized(kForms[f], text), text);
    }
  }
  // The check answers "no change" often enough for the test to mean something in every form.
  for (const int n : unchanged) EXPECT_GT(n, 1000);
}

TEST(NormalForms, LoneSurrogatesFromJavaScriptAreReplacedThenChecked) {
  // A JavaScript string with lone surrogates next to what composes: each becomes U+FFFD, a starter
  // that composes with nothing, so only the marks after it are flagged.
  for (const std::u16string& units :
       {std::u16string(u"e\xD800\u0301"), std::u16string(u"\xDC00\u1161"), std::u16string(u"\u1100\xD800\u1161"), std::u16string(u"\xD800"),
        std::u16string(u"a\xDBFF"
                       u"b")}) {
    std::string text;
    append_utf16_as_utf8(units, text);
    for (const NormalForm form : kForms) {
      if (!may_change(form, text)) {
        EXPECT_EQ(reference(form, text), text) << name(form) << " " << hex(text);
      }
      std::string copy = text;
      normalize(form, copy);
      EXPECT_EQ(copy, reference(form, text));
    }
  }
  EXPECT_FALSE(may_change(NormalForm::Nfc, utf8({0xFFFD})));
  EXPECT_TRUE(may_change(NormalForm::Nfc, utf8({0xFFFD, 0x0301})));
}

TEST(NormalForms, CommonTextStaysOnTheFastPath) {
  // Precomposed letters, Cyrillic, Greek with tonos, CJK and Hangul syllables are NFC already.
  for (const std::string& text : {utf8({0x00E9, U't', 0x00E9}), std::string("Привет"), std::string("καλημέρα"), std::string("日本語"),
                                  std::string("한국어"), std::string("naïve café")}) {
    EXPECT_FALSE(may_change(NormalForm::Nfc, text)) << text;
  }
  EXPECT_TRUE(may_change(NormalForm::Nfd, std::string("한국어")));
  EXPECT_TRUE(may_change(NormalForm::Nfc, utf8({0x2126})));          // OHM SIGN, a singleton
  EXPECT_TRUE(may_change(NormalForm::Nfc, utf8({0x0958})));          // an excluded composition
  EXPECT_TRUE(may_change(NormalForm::Nfc, utf8({0x0B47, 0x0B3E})));  // a vowel sign that composes
  EXPECT_FALSE(may_change(NormalForm::Nfc, utf8({0xFB01})));
  EXPECT_TRUE(may_change(NormalForm::Nfkc, utf8({0xFB01})));
}

// normalized() runs utf8proc over the spans around the code points a form may change, joined
// when close, cut at a boundary past 64 KiB, and copies the rest (issue 40: normalizing 100 MB of
// prose whole took 4-8x its size). Long texts of every kind of neighbourhood, against utf8proc
// over the whole text: one mark in a sea of ASCII, marks just under and over the join distance
// apart, a run of flagged code points longer than a span, a text ending in a span, spans at both
// ends, Hangul jamo that compose across their span's edges, and dense mixes.
TEST(NormalForms, PiecewiseNormalizationEqualsTheWholeTextsForm) {
  const std::vector<char32_t> flagged = {0x0301, 0x0308, 0x0323, 0x0345, 0x093C, 0x094D, 0x1161, 0x11A8, 0x2126, 0x212B,
                                         0xF900, 0x0958, 0x0B3E, 0x1F71, 0x0385, 0xFB01, 0x00E9, 0xAC00, 0x1E0A, 0x0F73};
  const std::vector<char32_t> plain = {U'a', U'e', U' ', U'\n', U'.', 0x00E9, 0x0435, 0x65E5, 0x1100, 0x0B47, 0x1F600, 0x00C5};
  std::mt19937 random(40);
  std::uniform_int_distribution<std::size_t> pick_flagged(0, flagged.size() - 1);
  std::uniform_int_distribution<std::size_t> pick_plain(0, plain.size() - 1);
  const auto check = [](const std::string& text, const char* what) {
    for (const NormalForm form : kForms) ASSERT_EQ(normalized(form, text), reference(form, text)) << name(form) << ", " << what;
  };
  std::string text(300000, 'x');
  text.insert(150000, utf8({0x0301}));
  check(text, "one mark in ASCII");
  check(utf8({0x0301}) + std::string(1000, 'y') + utf8({U'e', 0x0301}), "spans at both ends");
  for (const std::size_t gap : {254, 255, 256, 257, 258, 1000}) {
    std::string spaced;
    for (int k = 0; k < 600; ++k) spaced += utf8({U'e', 0x0301, 0x0323}) + std::string(gap, 'z') + utf8({0x1100, 0x1161, 0x11A8});
    check(spaced, "marks a gap apart");
  }
  std::string marks;
  // No boundary: one span. One combining class (utf8proc's reordering is quadratic in a run of
  // mixed classes), a marks' mix at both ends.
  for (int k = 0; k < 40000; ++k) append_utf8(marks, 0x0301);
  marks = utf8({0x0301, 0x0323}) + marks + utf8({0x0301, 0x0323});
  check("a" + marks + "b", "a run of marks past a span's size");
  std::string accents;
  for (int k = 0; k < 80000; ++k) accents += utf8({U'e', 0x0301});  // a boundary every three bytes
  check(accents, "accents past a span's size");
  for (int round = 0; round < 12; ++round) {
    std::string mixed;
    std::uniform_int_distribution<int> run(0, round % 2 == 0 ? 600 : 8);
    while (mixed.size() < 100000) {
      for (int k = run(random); k > 0; --k) append_utf8(mixed, plain[pick_plain(random)]);
      for (int k = 1 + run(random) % 4; k > 0; --k) append_utf8(mixed, flagged[pick_flagged(random)]);
    }
    check(mixed, "a random mix");
  }
}

// The memory of normalizing a long text that holds one accent: the text and its normal form, not
// utf8proc's 32-bit buffers over the whole of it (issue 40: Qwen 3's NFC took 4-8x the input).
// Measured in a child process, whose peak resident size is its own: the growth from before the
// text is built to the peak, over the text's size (2 here; 6 when the whole text went to utf8proc).
TEST(NormalForms, ALongTextIsNormalizedInLittleMoreThanItsOwnSize) {
  constexpr std::size_t kBytes = std::size_t{32} << 20;
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    rusage before{};
    getrusage(RUSAGE_SELF, &before);
    std::string text(kBytes, 'a');
    for (std::size_t at = 0; at < kBytes; at += 4096) text[at] = ' ';
    text.replace(kBytes / 2, 2, utf8({0x0301}));  // after an `a`: they compose, one byte shorter
    const std::string nfc = normalized(NormalForm::Nfc, text);
    rusage after{};
    getrusage(RUSAGE_SELF, &after);
    const double growth = static_cast<double>(after.ru_maxrss - before.ru_maxrss) * 1024.0 / static_cast<double>(kBytes);
    std::printf("normalizing %zu MB grew the peak by %.2fx its size\n", kBytes >> 20, growth);
    std::fflush(stdout);
    _exit(nfc.size() == kBytes - 1 && growth < 3.0 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the peak grew by 3x the text or more (the child printed the figure)";
}

}  // namespace
}  // namespace ctxwin
