// validateThreadConfig(maxContextTokens, keepRecentIterations) and
// planSummarization(iterations: Float64Array, isSummary: Uint8Array, keepRecentIterations).
#include "ctxwin/summary/thread_plan.hpp"

#include <span>

#include "errors.hpp"
#include "exports.hpp"
#include "typed_arrays.hpp"

namespace ctxwin::binding {

namespace {

Napi::Value validate_thread_config_js(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    ThreadPolicy::from_numbers(number_arg(info, 0, "config.maxContextTokens"), number_arg(info, 1, "config.keepRecentIterations"));
    return info.Env().Undefined();
  });
}

// The plan comes back as flat typed arrays (CSR layout): old iteration g owns
// events[offsets[g] .. offsets[g + 1]).
Napi::Value plan_summarization_js(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    auto iterations = typed_array_arg<double>(info, 0, "iterations", napi_float64_array, "Float64Array");
    auto is_summary = typed_array_arg<uint8_t>(info, 1, "isSummary", napi_uint8_array, "Uint8Array");
    ThreadPolicy policy = ThreadPolicy::from_numbers(1, number_arg(info, 2, "keepRecentIterations"));

    const SummarizationPlan plan = plan_summarization(std::span<const double>(iterations.Data(), iterations.ElementLength()),
                                                      std::span<const std::uint8_t>(is_summary.Data(), is_summary.ElementLength()), policy);

    Napi::Env env = info.Env();
    const std::size_t groups = plan.old_iterations.size();
    std::size_t total = 0;
    for (const auto& old : plan.old_iterations) total += old.events.size();

    auto group_iterations = Napi::Float64Array::New(env, groups);
    auto offsets = Napi::Uint32Array::New(env, groups + 1);
    auto events = Napi::Uint32Array::New(env, total);
    auto reuse = Napi::Uint8Array::New(env, groups);
    std::size_t cursor = 0;
    for (std::size_t g = 0; g < groups; ++g) {
      const auto& old = plan.old_iterations[g];
      group_iterations[g] = old.iteration;
      reuse[g] = old.reuse_existing_summary ? 1 : 0;
      offsets[g] = static_cast<uint32_t>(cursor);
      for (std::uint32_t index : old.events) events[cursor++] = index;
    }
    offsets[groups] = static_cast<uint32_t>(cursor);
    publish(group_iterations);
    publish(offsets);
    publish(events);
    publish(reuse);

    Napi::Object result = Napi::Object::New(env);
    result.Set("iterations", group_iterations);
    result.Set("offsets", offsets);
    result.Set("events", events);
    result.Set("reuse", reuse);
    return result;
  });
}

}  // namespace

void register_thread_plan(Napi::Env env, Napi::Object exports) {
  exports.Set("validateThreadConfig", Napi::Function::New(env, validate_thread_config_js, "validateThreadConfig"));
  exports.Set("planSummarization", Napi::Function::New(env, plan_summarization_js, "planSummarization"));
}

}  // namespace ctxwin::binding
