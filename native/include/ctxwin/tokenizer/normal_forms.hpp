// Unicode normal forms for the tokenizers that normalize their input (Claude's NFC, the NFC / NFD /
// NFKC / NFKD normalizers of tokenizer.json files): a quick check that tells text a normal form
// certainly leaves as it is from text it may change, and the normalization itself (utf8proc).
//
// Most text of most languages is in NFC already, and the check costs a fraction of normalizing:
//
//   if (may_change(NormalForm::Nfc, text)) text = normalized(NormalForm::Nfc, text);
//
// The check is Unicode's quick check (UAX #15): a code point "may change" text holding it when it
// has a non-zero combining class (canonical reordering), can be the second of a composition
// (composed forms), or has a decomposition the form does not map back to itself (singletons,
// composition exclusions, every compatibility decomposition under NFKC / NFKD). Text without such
// a code point is left as it is. The answers for the Basic Multilingual Plane come from a table
// built once per process from utf8proc's data (immutable, shared by every thread); others are
// computed. test/native/tokenizer/normal_forms_test.cc checks them against utf8proc's own
// normalization on every code point and on adversarial strings.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ctxwin {

enum class NormalForm : std::uint8_t { Nfc, Nfd, Nfkc, Nfkd };

// Whether `form` may change text that holds `cp`. False: it certainly does not, whatever the text
// around `cp` (as long as that text holds no code point for which this is true).
bool may_change(NormalForm form, char32_t cp) noexcept;

// Whether `form` may change `text` (valid UTF-8). False: normalized(form, text) == text.
bool may_change(NormalForm form, std::string_view text) noexcept;

// `text` (valid UTF-8) in `form`. Throws std::bad_alloc when memory runs out, ctxwin::Error when
// utf8proc refuses the text (it does not, for valid UTF-8 of any length a string can have).
std::string normalized(NormalForm form, std::string_view text);

// normalized() in place, which leaves `text` untouched (and allocates nothing) when may_change
// says it would not change.
void normalize(NormalForm form, std::string& text);

}  // namespace ctxwin
