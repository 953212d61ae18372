#include "tokenizer/hf/pattern.hpp"

#include "tokenizer/hf/json_fields.hpp"

namespace ctxwin::hf {

using json = nlohmann::json;

std::optional<Pattern> recognized_pattern(std::string_view regex) {
  static constexpr std::string_view kCl100k =
      R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
  static constexpr std::string_view kQwen =
      R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
  static constexpr std::string_view kO200k =
      R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
  static constexpr std::string_view kGpt2 = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
  if (regex == kCl100k) return Pattern::Cl100k;
  if (regex == kQwen) return Pattern::Cl100kSingleDigit;
  if (regex == kO200k) return Pattern::O200k;
  if (regex == kGpt2) return Pattern::R50k;
  return std::nullopt;
}

PatternSpec pattern_of(const json& node, const std::string& where, bool allow_builtin) {
  if (!node.contains("pattern") || !node["pattern"].is_object()) invalid(where + ".pattern must be an object");
  const json& p = node["pattern"];
  PatternSpec spec;
  if (p.contains("String") && p["String"].is_string()) {
    spec.literal = p["String"].get<std::string>();
    return spec;
  }
  if (p.contains("Regex") && p["Regex"].is_string()) {
    const std::string regex = p["Regex"].get<std::string>();
    spec.is_literal = false;
    if (allow_builtin) {
      spec.builtin = recognized_pattern(regex);
      if (!spec.builtin) spec.scanner = recognized_split_scanner(regex);
    }
    if (!spec.builtin && !spec.scanner) spec.regex = std::make_shared<const Regex>(regex);
    return spec;
  }
  invalid(where + ".pattern must hold \"String\" or \"Regex\"");
}

}  // namespace ctxwin::hf
