// planTruncation(roles: Uint8Array, tokens: Uint32Array, flags: Uint8Array, units: Int32Array,
//                target: number, strategies: StrategySpec[]) -> plan
// One strategy plans alone; several plan as a composite. One crossing either way.
#include "ctxwin/history/truncation.hpp"

#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "ctxwin/summary/estimate.hpp"  // checked_length
#include "errors.hpp"
#include "exports.hpp"
#include "typed_arrays.hpp"

namespace ctxwin::binding {

namespace {

std::uint32_t u32_field(const Napi::Object& spec, const char* key, std::uint32_t fallback, const std::string& where) {
  Napi::Value value = spec.Get(key);
  if (value.IsUndefined()) return fallback;
  if (!value.IsNumber()) throw Error::type(ErrorCode::InvalidArgument, where + "." + key + " must be a number");
  const double d = value.As<Napi::Number>().DoubleValue();
  if (!std::isfinite(d) || d < 0 || d > 4294967295.0 || std::floor(d) != d) {
    throw Error::range(ErrorCode::OutOfRange, where + "." + key + " must be an integer >= 0, got " + describe_number(d));
  }
  return static_cast<std::uint32_t>(d);
}

bool bool_field(const Napi::Object& spec, const char* key, bool fallback) {
  Napi::Value value = spec.Get(key);
  return value.IsUndefined() ? fallback : value.ToBoolean().Value();
}

StrategySpec spec_of(const Napi::Value& value, const std::string& where) {
  if (!value.IsObject()) throw Error::type(ErrorCode::InvalidArgument, where + " must be a strategy object");
  const Napi::Object o = value.As<Napi::Object>();
  StrategySpec spec;
  const std::uint32_t kind = u32_field(o, "kind", 1, where);
  if (kind > 3) throw Error::range(ErrorCode::OutOfRange, where + ".kind must be 0 to 3");
  spec.kind = static_cast<StrategyKind>(kind);
  spec.window_size = u32_field(o, "windowSize", spec.window_size, where);
  spec.preserve_first = u32_field(o, "preserveFirst", spec.preserve_first, where);
  spec.preserve_last = u32_field(o, "preserveLast", spec.preserve_last, where);
  spec.marker_tokens = u32_field(o, "markerTokens", 0, where);
  spec.drop_middle_as_needed = bool_field(o, "dropMiddleAsNeeded", false);
  spec.preserve_roles = static_cast<std::uint8_t>(u32_field(o, "preserveRoles", 0, where) & 0xFF);
  spec.preserve_marked = bool_field(o, "preserveMarked", true);
  spec.drop_tool_results_first = bool_field(o, "dropToolResultsFirst", true);
  spec.options.preserve_system = bool_field(o, "preserveSystem", true);
  spec.options.start_on = bool_field(o, "startOnUser", false) ? StartOn::User : StartOn::Any;
  spec.options.keep_last_user = bool_field(o, "keepLastUser", true);
  spec.options.keep_newest_exchange = bool_field(o, "keepNewestExchange", true);
  if (!o.Get("requestLimit").IsUndefined()) spec.options.request_limit = u32_field(o, "requestLimit", 0, where);
  return spec;
}

Napi::Value plan_truncation_js(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    auto roles = typed_array_arg<uint8_t>(info, 0, "roles", napi_uint8_array, "Uint8Array");
    auto tokens = typed_array_arg<uint32_t>(info, 1, "tokens", napi_uint32_array, "Uint32Array");
    auto flags = typed_array_arg<uint8_t>(info, 2, "flags", napi_uint8_array, "Uint8Array");
    auto units = typed_array_arg<int32_t>(info, 3, "units", napi_int32_array, "Int32Array");
    const std::uint64_t target_tokens = checked_length(number_arg(info, 4, "targetTokens"), "targetTokens");
    const std::size_t n = roles.ElementLength();
    if (tokens.ElementLength() != n || flags.ElementLength() != n || units.ElementLength() != n) {
      throw Error::range(ErrorCode::InvalidArgument, "roles, tokens, flags and units must have one entry per message");
    }
    if (info.Length() <= 5 || !info[5].IsArray()) throw Error::type(ErrorCode::InvalidArgument, "strategies must be an array");
    auto list = info[5].As<Napi::Array>();
    std::vector<StrategySpec> specs;
    for (uint32_t i = 0; i < list.Length(); ++i) specs.push_back(spec_of(list.Get(i), "strategies[" + std::to_string(i) + "]"));

    std::vector<MessageMeta> meta(n);
    for (std::size_t i = 0; i < n; ++i) {
      if (roles[i] > 4) throw Error::range(ErrorCode::OutOfRange, "roles[" + std::to_string(i) + "] must be 0 to 4");
      meta[i] = MessageMeta{static_cast<Role>(roles[i]), tokens[i], flags[i], units[i]};
    }
    const TruncationPlan plan =
        specs.size() == 1 ? plan_truncation(meta, target_tokens, specs.front()) : plan_composite(meta, target_tokens, specs);
    Napi::Env env = info.Env();
    auto kept = typed_array_of<uint32_t>(env, plan.kept);
    auto removed = typed_array_of<uint32_t>(env, plan.removed);
    Napi::Object out = Napi::Object::New(env);
    out.Set("kept", kept);
    out.Set("removed", removed);
    out.Set("keptTokens", Napi::Number::New(env, static_cast<double>(plan.kept_tokens)));
    out.Set("removedTokens", Napi::Number::New(env, static_cast<double>(plan.removed_tokens)));
    out.Set("fits", Napi::Boolean::New(env, plan.fits));
    out.Set("markerPosition", Napi::Number::New(env, static_cast<double>(plan.marker_position)));
    out.Set("warning", Napi::String::New(env, plan.warning));
    out.Set("newestExchangeExcess", Napi::Number::New(env, static_cast<double>(plan.newest_exchange_excess)));
    return out;
  });
}

}  // namespace

void register_truncation(Napi::Env env, Napi::Object exports) {
  exports.Set("planTruncation", Napi::Function::New(env, plan_truncation_js, "planTruncation"));
}

}  // namespace ctxwin::binding
