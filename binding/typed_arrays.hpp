// Typed arrays the glue fills for JavaScript.
//
// Natively a typed array's Data() is the JavaScript ArrayBuffer's own memory. In the WebAssembly
// build (emnapi) it is not: Data() points at a copy inside the module's memory, refreshed from
// JavaScript each time it is asked for, so what the glue writes there has to be copied back
// before JavaScript reads the array. publish() does that, and costs nothing natively.
#pragma once

#include <napi.h>

#include <algorithm>
#include <span>

#ifdef __EMSCRIPTEN__
#include <emnapi.h>
#endif

namespace ctxwin::binding {

// Makes what the glue wrote into `array`'s Data() visible to JavaScript.
inline void publish(const Napi::TypedArray& array) {
#ifdef __EMSCRIPTEN__
  if (array.ByteLength() == 0) return;  // an empty array has no copy in the module's memory
  napi_value value = array;
  NAPI_THROW_IF_FAILED_VOID(array.Env(), emnapi_sync_memory(array.Env(), false, &value, 0, NAPI_AUTO_LENGTH));
#else
  (void)array;
#endif
}

// A new JavaScript typed array holding `values`.
template <typename T>
Napi::TypedArrayOf<T> typed_array_of(Napi::Env env, std::span<const T> values) {
  auto out = Napi::TypedArrayOf<T>::New(env, values.size());
  std::copy(values.begin(), values.end(), out.Data());
  publish(out);
  return out;
}

}  // namespace ctxwin::binding
