#include "ctxwin/history/model_limits.hpp"

#include <array>
#include <cctype>

namespace ctxwin {

namespace {

struct Entry {
  std::string_view key;
  std::uint32_t context_window;
  std::uint32_t max_output;
};

// Context window / maximum output tokens as each provider documents them for its API (seed 003's
// rows first, kept as the seed gives them). 0 output: none published, 20% is reserved instead.
constexpr std::array kModels = {
    // seed 003
    Entry{"claude-3-opus", 200000, 4096},
    Entry{"claude-3-sonnet", 200000, 4096},
    Entry{"claude-3-haiku", 200000, 4096},
    Entry{"gpt-4-turbo", 128000, 4096},
    Entry{"gpt-4", 8192, 4096},
    Entry{"gpt-3.5-turbo", 16385, 4096},
    Entry{"llama-3-70b", 8192, 4096},
    Entry{"mistral-large", 32000, 4096},
    // OpenAI
    Entry{"gpt-4-32k", 32768, 4096},
    Entry{"gpt-4o", 128000, 16384},
    Entry{"gpt-4o-mini", 128000, 16384},
    Entry{"chatgpt-4o", 128000, 16384},
    Entry{"gpt-4.1", 1047576, 32768},
    Entry{"gpt-4.1-mini", 1047576, 32768},
    Entry{"gpt-4.1-nano", 1047576, 32768},
    Entry{"gpt-4.5", 128000, 16384},
    Entry{"gpt-5", 400000, 128000},
    Entry{"gpt-5-mini", 400000, 128000},
    Entry{"gpt-5-nano", 400000, 128000},
    Entry{"o1", 200000, 100000},
    Entry{"o1-mini", 128000, 65536},
    Entry{"o1-preview", 128000, 32768},
    Entry{"o3", 200000, 100000},
    Entry{"o3-mini", 200000, 100000},
    Entry{"o4-mini", 200000, 100000},
    // Anthropic
    Entry{"claude-3-5-sonnet", 200000, 8192},
    Entry{"claude-3-5-haiku", 200000, 8192},
    Entry{"claude-3-7-sonnet", 200000, 64000},
    Entry{"claude-sonnet-4", 200000, 64000},
    Entry{"claude-sonnet-4-5", 200000, 64000},
    Entry{"claude-opus-4", 200000, 32000},
    Entry{"claude-opus-4-1", 200000, 32000},
    Entry{"claude-opus-4-5", 200000, 64000},
    Entry{"claude-haiku-4-5", 200000, 64000},
    Entry{"claude-2", 100000, 4096},
    // Google
    Entry{"gemini-1.5-pro", 2097152, 8192},
    Entry{"gemini-1.5-flash", 1048576, 8192},
    Entry{"gemini-2.0-flash", 1048576, 8192},
    Entry{"gemini-2.0-flash-lite", 1048576, 8192},
    Entry{"gemini-2.5-pro", 1048576, 65536},
    Entry{"gemini-2.5-flash", 1048576, 65536},
    Entry{"gemini-2.5-flash-lite", 1048576, 65536},
    // Meta
    Entry{"llama-3-8b", 8192, 4096},
    Entry{"llama-3.1-8b", 131072, 0},
    Entry{"llama-3.1-70b", 131072, 0},
    Entry{"llama-3.1-405b", 131072, 0},
    Entry{"llama-3.2-1b", 131072, 0},
    Entry{"llama-3.2-3b", 131072, 0},
    Entry{"llama-3.3-70b", 131072, 0},
    // Mistral
    Entry{"mistral-small", 32000, 4096},
    Entry{"mistral-medium", 131072, 0},
    Entry{"mistral-nemo", 131072, 0},
    Entry{"codestral", 256000, 0},
    Entry{"mixtral-8x7b", 32768, 0},
    // DeepSeek
    Entry{"deepseek-chat", 128000, 8192},
    Entry{"deepseek-reasoner", 128000, 65536},
    Entry{"deepseek-coder", 128000, 8192},
    // Qwen
    Entry{"qwen-max", 32768, 8192},
    Entry{"qwen-plus", 131072, 8192},
    Entry{"qwen-turbo", 1000000, 8192},
    Entry{"qwen2.5-72b", 131072, 8192},
    Entry{"qwen3", 131072, 0},
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

namespace {

// One pass of the rules below. A pass can expose what an earlier rule would have removed
// ("x/ gpt-4o" leaves a space to trim, "anthropic.anthropic.x" a second prefix), so
// normalize_model_id repeats it until nothing changes: normalizing is then idempotent
// (found by test/fuzz/model_limits_fuzz).
std::string normalize_once(std::string_view id) {
  std::string out;
  out.reserve(id.size());
  for (char c : id) out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  // Trim surrounding whitespace.
  while (!out.empty() && std::isspace(static_cast<unsigned char>(out.back()))) out.pop_back();
  std::size_t lead = 0;
  while (lead < out.size() && std::isspace(static_cast<unsigned char>(out[lead]))) ++lead;
  out.erase(0, lead);
  // Provider and path prefixes: everything up to the last '/' ("openai/", "models/", ...).
  if (const auto slash = out.rfind('/'); slash != std::string::npos) out.erase(0, slash + 1);
  // Vertex-style version tags ("claude-3-5-sonnet@20240620") and Bedrock prefixes ("anthropic.").
  if (const auto at = out.find('@'); at != std::string::npos) out.erase(at);
  if (out.starts_with("anthropic.")) out.erase(0, 10);
  // Claude versions are written both ways; the table uses dashes ("claude-3-5-sonnet").
  if (out.starts_with("claude-")) {
    for (std::size_t i = 1; i + 1 < out.size(); ++i) {
      if (out[i] == '.' && is_digit(out[i - 1]) && is_digit(out[i + 1])) out[i] = '-';
    }
  }
  return out;
}

}  // namespace

std::string normalize_model_id(std::string_view id) {
  // Each pass that changes anything shortens the id or turns a '.' into '-': this ends.
  std::string out = normalize_once(id);
  for (std::string next = normalize_once(out); next != out; next = normalize_once(out)) out = std::move(next);
  return out;
}

std::optional<ModelLimits> find_model_limits(std::string_view id) {
  const std::string normalized = normalize_model_id(id);
  const Entry* best = nullptr;
  for (const Entry& entry : kModels) {
    if (!std::string_view(normalized).starts_with(entry.key)) continue;
    // The key must end at a boundary: "gpt-4o" must not match "gpt-4", nor "o1" match "o10".
    const bool boundary = normalized.size() == entry.key.size() || normalized[entry.key.size()] == '-' ||
                          normalized[entry.key.size()] == ':';
    if (boundary && (best == nullptr || entry.key.size() > best->key.size())) best = &entry;
  }
  if (best == nullptr) return std::nullopt;
  return ModelLimits{best->key, best->context_window, best->max_output};
}

std::size_t builtin_model_count() noexcept { return kModels.size(); }

std::vector<ModelLimits> builtin_models() {
  std::vector<ModelLimits> out;
  out.reserve(kModels.size());
  for (const Entry& entry : kModels) out.push_back(ModelLimits{entry.key, entry.context_window, entry.max_output});
  return out;
}

}  // namespace ctxwin
