// Each binding file registers its functions on the module's exports.
#pragma once

#include <napi.h>

namespace ctxwin::binding {

void register_estimate(Napi::Env env, Napi::Object exports);
void register_thread_plan(Napi::Env env, Napi::Object exports);
void register_extractive_summary(Napi::Env env, Napi::Object exports);
void register_counter(Napi::Env env, Napi::Object exports);
void register_model_catalog(Napi::Env env, Napi::Object exports);
void register_truncation(Napi::Env env, Napi::Object exports);

}  // namespace ctxwin::binding
