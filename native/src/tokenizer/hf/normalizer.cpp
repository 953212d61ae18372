#include "tokenizer/hf/normalizer.hpp"

#include <utf8proc.h>

#include <cstdlib>

#include "ctxwin/error.hpp"
#include "ctxwin/tokenizer/utf8.hpp"
#include "tokenizer/hf/json_fields.hpp"

namespace ctxwin::hf {

using json = nlohmann::json;

void collect_normalizers(const json& node, std::vector<Normalizer>& out) {
  if (node.is_null()) return;
  const std::string type = type_of(node, "normalizer");
  if (type == "Sequence") {
    if (!node.contains("normalizers") || !node["normalizers"].is_array()) invalid("normalizer Sequence needs \"normalizers\"");
    for (const json& child : node["normalizers"]) collect_normalizers(child, out);
  } else if (type == "NFC") {
    out.push_back({Normalizer::Kind::Nfc, {}, {}});
  } else if (type == "NFD") {
    out.push_back({Normalizer::Kind::Nfd, {}, {}});
  } else if (type == "NFKC") {
    out.push_back({Normalizer::Kind::Nfkc, {}, {}});
  } else if (type == "NFKD") {
    out.push_back({Normalizer::Kind::Nfkd, {}, {}});
  } else if (type == "Replace") {
    out.push_back({Normalizer::Kind::Replace, pattern_of(node, "normalizer Replace", false), string_field(node, "content", "normalizer Replace")});
  } else if (type == "Prepend") {
    out.push_back({Normalizer::Kind::Prepend, {}, string_field(node, "prepend", "normalizer Prepend")});
  } else {
    unsupported("normalizer \"" + type + "\"");
  }
}

namespace {

bool is_ascii(std::string_view text) noexcept {
  for (char c : text) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

// False when the composed normal forms (NFC, and NFKC when `compat`) certainly leave `text` as it
// is: every code point is a starter without a canonical (or, for NFKC, any) decomposition that
// cannot combine with what precedes it (the Unicode quick check, from utf8proc's properties).
// True means "maybe": the text is normalized for real. Most text of most languages is NFC already,
// and this scan costs a fraction of utf8proc_map.
bool may_change_composed(std::string_view text, bool compat) {
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b < 0x80) {
      ++i;
      continue;
    }
    std::size_t length = 0;
    const char32_t cp = decode_utf8(text, i, length);
    i += length;
    if ((cp >= 0x1161 && cp <= 0x1175) || (cp >= 0x11A8 && cp <= 0x11C2)) return true;  // Hangul V / T jamo
    const utf8proc_property_t* p = utf8proc_get_property(static_cast<utf8proc_int32_t>(cp));
    if (p->combining_class != 0) return true;
    if (p->decomp_seqindex != UINT16_MAX && (compat || p->decomp_type == 0)) return true;
    if (p->comb_index != UINT16_MAX && p->comb_index >= 0x8000) return true;  // can be a composition's second
  }
  return false;
}

void unicode_normalize(std::string& text, int options) {
  if (is_ascii(text)) return;  // every normal form leaves ASCII as it is
  if ((options & UTF8PROC_COMPOSE) && !may_change_composed(text, (options & UTF8PROC_COMPAT) != 0)) return;
  utf8proc_uint8_t* out = nullptr;
  const utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                                          static_cast<utf8proc_ssize_t>(text.size()), &out,
                                          static_cast<utf8proc_option_t>(options | UTF8PROC_STABLE));
  if (n < 0) {
    std::free(out);
    throw Error(ErrorKind::Other, ErrorCode::InvalidArgument, std::string("normalization failed: ") + utf8proc_errmsg(n));
  }
  text.assign(reinterpret_cast<const char*>(out), static_cast<std::size_t>(n));
  std::free(out);
}

}  // namespace

void apply(const Normalizer& step, std::string& text) {
  switch (step.kind) {
    case Normalizer::Kind::Nfc:
      return unicode_normalize(text, UTF8PROC_COMPOSE);
    case Normalizer::Kind::Nfd:
      return unicode_normalize(text, UTF8PROC_DECOMPOSE);
    case Normalizer::Kind::Nfkc:
      return unicode_normalize(text, UTF8PROC_COMPOSE | UTF8PROC_COMPAT);
    case Normalizer::Kind::Nfkd:
      return unicode_normalize(text, UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT);
    case Normalizer::Kind::Prepend:
      if (!text.empty()) text.insert(0, step.content);
      return;
    case Normalizer::Kind::Replace: {
      std::string out;
      std::size_t last = 0;
      for_each_match(step.pattern, text, [&](std::size_t start, std::size_t end) {
        out.append(text, last, start - last);
        out.append(step.content);
        last = end;
      });
      if (last == 0 && out.empty()) return;
      out.append(text, last, std::string::npos);
      text = std::move(out);
      return;
    }
  }
}

}  // namespace ctxwin::hf
