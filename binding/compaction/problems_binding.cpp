// clearedToolResults(texts, ids, tools?, args?), observeToolResults(record, events) and describeProblems(record).
#include "ctxwin/compaction/cleared_result.hpp"
#include "ctxwin/compaction/problem_ledger.hpp"

#include <string>
#include <string_view>
#include <vector>

#include "errors.hpp"
#include "exports.hpp"

namespace ctxwin::binding {

namespace {

std::vector<std::string> strings_arg(const Napi::CallbackInfo& info, std::size_t index, const char* name) {
  if (info.Length() <= index || !info[index].IsArray()) {
    throw Error::type(ErrorCode::InvalidArgument, std::string(name) + " must be an array of strings");
  }
  auto array = info[index].As<Napi::Array>();
  std::vector<std::string> out;
  out.reserve(array.Length());
  for (uint32_t i = 0; i < array.Length(); ++i) {
    Napi::Value item = array.Get(i);
    if (!item.IsString()) throw Error::type(ErrorCode::InvalidArgument, std::string(name) + "[" + std::to_string(i) + "] must be a string");
    out.push_back(item.As<Napi::String>().Utf8Value());
  }
  return out;
}

// clearedToolResults(texts, ids, tools?, args?) -> the placeholder of each text, its id named;
// given each result's tool name and arguments (JSON text), judged with its call.
Napi::Value cleared_tool_results_js(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    const auto texts = strings_arg(info, 0, "texts");
    const auto ids = strings_arg(info, 1, "ids");
    if (ids.size() != texts.size()) throw Error::range(ErrorCode::OutOfRange, "ids must have one id per text");
    const bool with_calls = info.Length() > 2 && !info[2].IsUndefined();
    const auto tools = with_calls ? strings_arg(info, 2, "tools") : std::vector<std::string>();
    const auto args = with_calls ? strings_arg(info, 3, "args") : std::vector<std::string>();
    if (with_calls && (tools.size() != texts.size() || args.size() != texts.size())) {
      throw Error::range(ErrorCode::OutOfRange, "tools and args must have one entry per text");
    }
    auto out = Napi::Array::New(info.Env(), texts.size());
    for (std::size_t i = 0; i < texts.size(); ++i) {
      const std::string placeholder =
          with_calls ? cleared_tool_result(texts[i], ids[i], tools[i], args[i]) : cleared_tool_result(texts[i], ids[i]);
      out.Set(static_cast<uint32_t>(i), Napi::String::New(info.Env(), placeholder));
    }
    return out;
  });
}

// observeToolResults(record, events) -> the record (JSON) after the events.
Napi::Value observe_tool_results_js(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    const std::string record = string_arg(info, 0, "record");
    const auto events = strings_arg(info, 1, "events");
    const std::vector<std::string_view> views(events.begin(), events.end());
    return Napi::String::New(info.Env(), observe_tool_results(record, views));
  });
}

// describeProblems(record, maxOpen, maxResolved) -> the open and resolved problems as a summary lists them.
Napi::Value describe_problems_js(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    const std::string record = string_arg(info, 0, "record");
    const auto max_open = static_cast<std::size_t>(number_arg(info, 1, "maxOpen"));
    const auto max_resolved = static_cast<std::size_t>(number_arg(info, 2, "maxResolved"));
    return Napi::String::New(info.Env(), describe_problems(ProblemLedger::from_json(record), max_open, max_resolved));
  });
}

}  // namespace

void register_problems(Napi::Env env, Napi::Object exports) {
  exports.Set("clearedToolResults", Napi::Function::New(env, cleared_tool_results_js, "clearedToolResults"));
  exports.Set("observeToolResults", Napi::Function::New(env, observe_tool_results_js, "observeToolResults"));
  exports.Set("describeProblems", Napi::Function::New(env, describe_problems_js, "describeProblems"));
}

}  // namespace ctxwin::binding
