// The ctxwin.node module. Its only state is per environment (JsThreadState: the counters' caches
// and conversion buffers), so it loads in any number of worker_threads and contexts at once.
#include <napi.h>

#include "exports.hpp"
#include "js_thread_state.hpp"

namespace {

Napi::Object init(Napi::Env env, Napi::Object exports) {
  ctxwin::binding::JsThreadState::install(env);
  ctxwin::binding::register_estimate(env, exports);
  ctxwin::binding::register_thread_plan(env, exports);
  ctxwin::binding::register_extractive_summary(env, exports);
  ctxwin::binding::register_counter(env, exports);
  ctxwin::binding::register_model_catalog(env, exports);
  ctxwin::binding::register_truncation(env, exports);
  exports.Set("napiVersion", Napi::Number::New(env, NAPI_VERSION));
  return exports;
}

}  // namespace

NODE_API_MODULE(ctxwin, init)
