#include "ctxwin/catalog/model_id.hpp"

#include <algorithm>
#include <array>

namespace ctxwin {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool all_digits(std::string_view s) { return !s.empty() && std::all_of(s.begin(), s.end(), is_digit); }

// A router's tag for a tier or mode of a model it serves ("...:free", "...:thinking"), not another model.
constexpr std::array<std::string_view, 10> kRouterTags = {"free",     "beta",   "nitro",  "floor",  "extended",
                                                          "thinking", "online", "exacto", "latest", "default"};

// Bedrock's cross-region inference profiles put a geography before the model id.
constexpr std::array<std::string_view, 13> kBedrockRegions = {"us.", "eu.", "apac.", "ap.", "global.", "us-gov.", "jp.",
                                                              "au.", "ca.", "sa.",   "me.", "af.",     "in."};

// Weight formats and quantizations in local runtimes' tags ("q4_K_M", "fp16"): the same model.
bool is_quantization(std::string_view segment) {
  if (segment.size() >= 2 && segment[0] == 'q' && is_digit(segment[1])) return true;
  constexpr std::array<std::string_view, 12> kFormats = {"fp16", "fp32", "fp8",  "bf16", "int4", "int8",
                                                         "awq",  "gguf", "gptq", "mlx",  "4bit", "8bit"};
  return std::find(kFormats.begin(), kFormats.end(), segment) != kFormats.end();
}

// An Ollama-style tag ("70b-instruct-q4_K_M") without its quantization segments.
std::string tag_without_quantization(std::string_view tag) {
  std::string out;
  while (!tag.empty()) {
    const auto dash = tag.find('-');
    const std::string_view segment = tag.substr(0, dash);
    if (!segment.empty() && !is_quantization(segment)) {
      if (!out.empty()) out.push_back('-');
      out.append(segment);
    }
    if (dash == std::string_view::npos) break;
    tag.remove_prefix(dash + 1);
  }
  return out;
}

// The last '-'-separated segment of `s`, or all of it.
std::string_view last_segment(std::string_view s) {
  const auto dash = s.rfind('-');
  return dash == std::string_view::npos ? s : s.substr(dash + 1);
}

std::string_view drop_last_segment(std::string_view s) {
  const auto dash = s.rfind('-');
  return dash == std::string_view::npos ? std::string_view() : s.substr(0, dash);
}

bool is_parameter_size(std::string_view s) {
  // "70b", "500m", "8x7b", "e4b" (Gemma's effective size), "a22b" (a mixture's active size).
  if (s.size() >= 2 && (s.back() == 'b' || s.back() == 'm')) {
    std::string_view digits = s.substr(0, s.size() - 1);
    if (!digits.empty() && (digits[0] == 'e' || digits[0] == 'a')) digits.remove_prefix(1);
    if (all_digits(digits)) return true;
    const auto x = digits.find('x');
    return x != std::string_view::npos && all_digits(digits.substr(0, x)) && all_digits(digits.substr(x + 1));
  }
  return false;
}

constexpr std::array<std::string_view, 23> kSiblingWords = {"mini",    "nano",  "lite",   "light", "micro", "tiny",  "small", "medium",
                                                            "large",   "pro",   "plus",   "max",   "ultra", "turbo", "flash", "fast",
                                                            "premier", "haiku", "sonnet", "opus",  "air",   "heavy", "deep"};

bool is_tuning_word(std::string_view s) { return s == "instruct" || s == "it" || s == "chat" || s == "text" || s == "base"; }

}  // namespace

std::string fold_model_id(std::string_view id) {
  while (!id.empty() && is_space(id.front())) id.remove_prefix(1);
  while (!id.empty() && is_space(id.back())) id.remove_suffix(1);
  std::string out(id);
  for (char& c : out) c = lower(c);
  return out;
}

std::string canonical_model_name(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 4);
  std::size_t letters = 0;  // the ASCII letters just written, since the last other character
  auto separator = [&] {
    if (!out.empty() && out.back() != '-') out.push_back('-');
    letters = 0;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = lower(text[i]);
    if (is_lower(c)) {
      out.push_back(c);
      ++letters;
    } else if (is_digit(c)) {
      if (letters >= 3) out.push_back('-');  // "llama3" -> "llama-3"; "o3", "v3" stay
      out.push_back(c);
      letters = 0;
    } else if (static_cast<unsigned char>(c) >= 0x80) {
      out.push_back(c);  // non-ASCII text is kept as it is
      letters = 0;
    } else {
      separator();
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

std::vector<std::string> model_names(std::string_view id) {
  std::string s = fold_model_id(id);
  // OpenAI fine-tunes: "ft:<base model>:<organization>:<suffix>:<id>".
  if (s.starts_with("ft:")) {
    s.erase(0, 3);
    if (const auto colon = s.find(':'); colon != std::string::npos) s.erase(colon);
  }
  if (const auto slash = s.rfind('/'); slash != std::string::npos) s.erase(0, slash + 1);
  if (s.starts_with("hf:")) s.erase(0, 3);
  // Vertex AI: "claude-3-5-sonnet@20240620" (a date: kept) or "gemini-1.5-pro@002" (a revision).
  // Before a date, Vertex marks a model's second release with "-v2" where Anthropic's id has only
  // the date ("claude-3-5-sonnet-v2@20241022" is claude-3-5-sonnet-20241022): the date says it.
  if (const auto at = s.find('@'); at != std::string::npos) {
    const std::string tail = s.substr(at + 1);
    s.erase(at);
    if (tail.size() == 8 && all_digits(tail)) {
      const std::string_view last = last_segment(s);
      if (last.size() >= 2 && last.size() < s.size() && last[0] == 'v' && all_digits(last.substr(1))) s.erase(s.size() - last.size() - 1);
      s += "-" + tail;
    }
  }
  bool bedrock_version = false;
  if (const auto colon = s.find(':'); colon != std::string::npos) {
    const std::string tag = s.substr(colon + 1);
    s.erase(colon);
    if (all_digits(tag)) {
      bedrock_version = true;  // "anthropic.claude-3-5-sonnet-20241022-v2:0"
    } else if (std::find(kRouterTags.begin(), kRouterTags.end(), tag) == kRouterTags.end()) {
      const std::string kept = tag_without_quantization(tag);  // Ollama: "llama3.3:70b"
      if (!kept.empty()) s += "-" + kept;
    }
  }
  s = std::string(without_bedrock_region(s));
  std::vector<std::string> forms{s};
  // Bedrock's model version ("-v1" of "-v1:0") goes too, unless the model's name would be left a
  // bare word: in "anthropic.claude-v2:1" (Claude 2.1) it is the model's own version.
  if (bedrock_version) {
    const std::string_view last = last_segment(s);
    const std::string_view rest = drop_last_segment(s);
    const auto dot = rest.find('.');
    const std::string_view model = dot == std::string_view::npos ? rest : rest.substr(dot + 1);
    const bool bare_word = model.find('-') == std::string_view::npos && std::none_of(model.begin(), model.end(), is_digit);
    if (last.size() >= 2 && last[0] == 'v' && all_digits(last.substr(1)) && !bare_word) forms.emplace_back(rest);
  }
  std::vector<std::string> names;
  auto add = [&](std::string_view text) {
    std::string name = canonical_model_name(text);
    if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) names.push_back(std::move(name));
  };
  for (const std::string& form : forms) {
    if (const std::size_t vendor = vendor_prefix_length(form); vendor > 0) {
      add(std::string_view(form).substr(vendor));
      add(form);  // vendor and model joined: "deepseek.r1" -> "deepseek-r1"
    } else {
      add(form);
    }
  }
  return names;
}

std::size_t vendor_prefix_length(std::string_view folded) {
  std::size_t dot = 0;
  while (dot < folded.size() && (is_lower(folded[dot]) || (dot > 0 && is_digit(folded[dot])))) ++dot;
  return dot > 0 && dot + 1 < folded.size() && folded[dot] == '.' && is_lower(folded[dot + 1]) ? dot + 1 : 0;
}

std::string_view without_bedrock_region(std::string_view folded) {
  for (std::string_view region : kBedrockRegions) {
    if (folded.starts_with(region) && folded.size() > region.size()) return folded.substr(region.size());
  }
  return folded;
}

bool is_router_tier(std::string_view id) {
  const auto colon = id.rfind(':');
  if (colon == std::string_view::npos) return false;
  const std::string tag = fold_model_id(id.substr(colon + 1));
  return std::find(kRouterTags.begin(), kRouterTags.end(), tag) != kRouterTags.end();
}

std::string model_family(std::string_view name) {
  std::string_view s = name;
  for (bool changed = true; changed;) {
    changed = false;
    const std::string_view rest = drop_last_segment(s);
    if (rest.empty()) break;  // never the whole name
    const std::string_view last = last_segment(s);
    if (last == "latest" || (all_digits(last) && last.size() >= 4) || (all_digits(last) && last.size() == 3 && last[0] == '0')) {
      s = rest;  // "-latest", "-20241022", "-0613", "-2411", "-001"
      changed = true;
      continue;
    }
    // "-MM-DD" (Gemini's previews, and the tail of "-YYYY-MM-DD"), after a word or a year.
    const std::string_view month = last_segment(rest);
    const std::string_view before = drop_last_segment(rest);
    if (last.size() == 2 && all_digits(last) && month.size() == 2 && all_digits(month) && !before.empty()) {
      const int mm = (month[0] - '0') * 10 + (month[1] - '0');
      const int dd = (last[0] - '0') * 10 + (last[1] - '0');
      const std::string_view prior = last_segment(before);
      const bool after_word_or_year = !all_digits(prior) || prior.size() == 4;
      if (mm >= 1 && mm <= 12 && dd >= 1 && dd <= 31 && after_word_or_year) {
        s = before;
        changed = true;
      }
    }
  }
  return std::string(s);
}

std::string model_base(std::string_view name) {
  const std::string_view last = last_segment(name);
  if (last.size() < name.size() && (last == "instruct" || last == "it" || last == "chat")) return std::string(drop_last_segment(name));
  return std::string(name);
}

bool is_variant_rest(std::string_view rest, bool size_or_tuning_only) {
  if (rest.size() < 2 || rest[0] != '-') return false;
  rest.remove_prefix(1);
  const std::string_view segment = rest.substr(0, rest.find('-'));
  if (is_parameter_size(segment) || is_tuning_word(segment)) return true;
  if (size_or_tuning_only) return false;
  if (all_digits(segment)) return segment.size() >= 4;  // a date, not a version number
  if (!is_lower(segment[0])) return false;              // "-32k", "-4o"
  // "-v2", "-v3-1": another version of the model.
  if (segment[0] == 'v' && segment.size() >= 2 && is_digit(segment[1])) return false;
  // Words that name a smaller or larger sibling, with its own window and prices: "gpt-4o-mini" is
  // not a variant of gpt-4o, nor "gemini-2.5-flash-lite" of gemini-2.5-flash.
  return std::find(kSiblingWords.begin(), kSiblingWords.end(), segment) == kSiblingWords.end();
}

}  // namespace ctxwin
