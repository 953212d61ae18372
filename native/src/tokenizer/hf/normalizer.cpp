#include "tokenizer/hf/normalizer.hpp"

#include "ctxwin/tokenizer/normal_forms.hpp"
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
    out.push_back(
        {Normalizer::Kind::Replace, pattern_of(node, "normalizer Replace", false), string_field(node, "content", "normalizer Replace")});
  } else if (type == "Prepend") {
    out.push_back({Normalizer::Kind::Prepend, {}, string_field(node, "prepend", "normalizer Prepend")});
  } else {
    unsupported("normalizer \"" + type + "\"");
  }
}

void apply(const Normalizer& step, std::string& text, RegexBudget& budget) {
  switch (step.kind) {
    case Normalizer::Kind::Nfc:
      return normalize(NormalForm::Nfc, text);
    case Normalizer::Kind::Nfd:
      return normalize(NormalForm::Nfd, text);
    case Normalizer::Kind::Nfkc:
      return normalize(NormalForm::Nfkc, text);
    case Normalizer::Kind::Nfkd:
      return normalize(NormalForm::Nfkd, text);
    case Normalizer::Kind::Prepend:
      if (!text.empty()) text.insert(0, step.content);
      return;
    case Normalizer::Kind::Replace: {
      std::string out;
      std::size_t last = 0;
      for_each_match(step.pattern, text, budget, [&](std::size_t start, std::size_t end) {
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
