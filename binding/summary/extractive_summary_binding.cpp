// summarizeExtractive(texts: string[]), summarizePrompt(prompt: string) and
// failureDigest(texts: string[], reason: string).
#include "ctxwin/summary/extractive_summary.hpp"
#include "ctxwin/summary/task_digest.hpp"

#include <string>
#include <string_view>
#include <vector>

#include "errors.hpp"
#include "exports.hpp"

namespace ctxwin::binding {

namespace {

std::vector<std::string> string_array_arg(const Napi::CallbackInfo& info, std::size_t index, const char* name) {
  if (info.Length() <= index || !info[index].IsArray()) {
    throw Error::type(ErrorCode::InvalidArgument, std::string(name) + " must be an array of strings");
  }
  auto array = info[index].As<Napi::Array>();
  std::vector<std::string> texts;
  texts.reserve(array.Length());
  for (uint32_t i = 0; i < array.Length(); ++i) {
    Napi::Value item = array.Get(i);
    if (!item.IsString()) {
      throw Error::type(ErrorCode::InvalidArgument, std::string(name) + "[" + std::to_string(i) + "] must be a string");
    }
    texts.push_back(item.As<Napi::String>().Utf8Value());
  }
  return texts;
}

std::vector<std::string_view> views_of(const std::vector<std::string>& texts) { return {texts.begin(), texts.end()}; }

// summarizeExtractive(texts, complete?): `complete` writes out every tool, path and error.
Napi::Value summarize_extractive_js(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    const auto texts = string_array_arg(info, 0, "texts");
    const bool complete = info.Length() > 1 && info[1].ToBoolean().Value();
    return Napi::String::New(info.Env(),
                             summarize_extractive(views_of(texts), complete ? ExtractiveOptions::complete() : ExtractiveOptions{}));
  });
}

Napi::Value summarize_prompt_js(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value { return Napi::String::New(info.Env(), summarize_prompt(string_arg(info, 0, "prompt"))); });
}

// summarizeTask(texts, complete?): the sectioned digest message-history compaction writes.
Napi::Value summarize_task_js(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    const auto texts = string_array_arg(info, 0, "texts");
    TaskDigestOptions options;
    options.complete = info.Length() > 1 && info[1].ToBoolean().Value();
    return Napi::String::New(info.Env(), summarize_task(views_of(texts), options));
  });
}

Napi::Value failure_digest_js(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    const auto texts = string_array_arg(info, 0, "texts");
    const std::string reason = string_arg(info, 1, "reason");
    return Napi::String::New(info.Env(), failure_digest(views_of(texts), reason));
  });
}

}  // namespace

void register_extractive_summary(Napi::Env env, Napi::Object exports) {
  exports.Set("summarizeExtractive", Napi::Function::New(env, summarize_extractive_js, "summarizeExtractive"));
  exports.Set("summarizePrompt", Napi::Function::New(env, summarize_prompt_js, "summarizePrompt"));
  exports.Set("summarizeTask", Napi::Function::New(env, summarize_task_js, "summarizeTask"));
  exports.Set("failureDigest", Napi::Function::New(env, failure_digest_js, "failureDigest"));
}

}  // namespace ctxwin::binding
