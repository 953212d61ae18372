// findModelLimits(id) -> { key, contextWindow, maxOutput } | null, and normalizeModelId(id).
#include "ctxwin/history/model_limits.hpp"

#include "errors.hpp"
#include "exports.hpp"

namespace ctxwin::binding {

namespace {

Napi::Value find_model_limits_js(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    const auto limits = find_model_limits(string_arg(info, 0, "model"));
    if (!limits) return info.Env().Null();
    Napi::Object out = Napi::Object::New(info.Env());
    out.Set("key", Napi::String::New(info.Env(), std::string(limits->key)));
    out.Set("contextWindow", Napi::Number::New(info.Env(), limits->context_window));
    out.Set("maxOutput", Napi::Number::New(info.Env(), limits->max_output));
    return out;
  });
}

Napi::Value normalize_model_id_js(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    return Napi::String::New(info.Env(), normalize_model_id(string_arg(info, 0, "model")));
  });
}

}  // namespace

void register_model_limits(Napi::Env env, Napi::Object exports) {
  exports.Set("findModelLimits", Napi::Function::New(env, find_model_limits_js, "findModelLimits"));
  exports.Set("normalizeModelId", Napi::Function::New(env, normalize_model_id_js, "normalizeModelId"));
}

}  // namespace ctxwin::binding
