// findModelLimits(id) -> { key, contextWindow, maxOutput } | null, listModelLimits() -> the table,
// and normalizeModelId(id).
#include "ctxwin/history/model_limits.hpp"

#include "errors.hpp"
#include "exports.hpp"

namespace ctxwin::binding {

namespace {

Napi::Object limits_object(Napi::Env env, const ModelLimits& limits) {
  Napi::Object out = Napi::Object::New(env);
  out.Set("key", Napi::String::New(env, std::string(limits.key)));
  out.Set("contextWindow", Napi::Number::New(env, limits.context_window));
  out.Set("maxOutput", Napi::Number::New(env, limits.max_output));
  return out;
}

Napi::Value find_model_limits_js(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    const auto limits = find_model_limits(string_arg(info, 0, "model"));
    if (!limits) return info.Env().Null();
    return limits_object(info.Env(), *limits);
  });
}

Napi::Value list_model_limits_js(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    const auto models = builtin_models();
    Napi::Array out = Napi::Array::New(info.Env(), models.size());
    for (std::size_t i = 0; i < models.size(); ++i) out.Set(static_cast<std::uint32_t>(i), limits_object(info.Env(), models[i]));
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
  exports.Set("listModelLimits", Napi::Function::New(env, list_model_limits_js, "listModelLimits"));
  exports.Set("normalizeModelId", Napi::Function::New(env, normalize_model_id_js, "normalizeModelId"));
}

}  // namespace ctxwin::binding
