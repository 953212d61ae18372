// Turns core errors into the JavaScript errors callers expect.
//
// Every exported function runs its body through `guarded`: a ctxwin::Error becomes a TypeError,
// RangeError or Error with `code` set to its stable ERR_CTXWIN_* code; running out of memory
// becomes an Error with code ERR_CTXWIN_OUT_OF_MEMORY, any other standard exception an Error with
// code ERR_CTXWIN_INTERNAL. Nothing thrown by the core can reach node's abort path.
#pragma once

#include <napi.h>

#include <new>
#include <string>
#include <utility>

#include "ctxwin/error.hpp"

namespace ctxwin::binding {

inline Napi::Error to_js_error(Napi::Env env, const Error& error) {
  Napi::Error js_error;
  switch (error.kind()) {
    case ErrorKind::Type:
      js_error = Napi::TypeError::New(env, error.what());
      break;
    case ErrorKind::Range:
      js_error = Napi::RangeError::New(env, error.what());
      break;
    case ErrorKind::Other:
      js_error = Napi::Error::New(env, error.what());
      break;
  }
  js_error.Set("code", Napi::String::New(env, std::string(error.js_code())));
  return js_error;
}

template <typename Body>
Napi::Value guarded(const Napi::CallbackInfo& info, Body&& body) {
  try {
    return std::forward<Body>(body)();
  } catch (const Error& error) {
    throw to_js_error(info.Env(), error);
  } catch (const std::bad_alloc&) {
    Napi::Error js_error = Napi::Error::New(info.Env(), "ctxwin: out of memory");
    js_error.Set("code", Napi::String::New(info.Env(), std::string(error_code_name(ErrorCode::OutOfMemory))));
    throw js_error;
  } catch (const Napi::Error&) {
    throw;  // already a JavaScript error (a caller's getter threw, or the environment is going away)
  } catch (const std::exception& error) {
    // Anything else from the standard library (length_error, a JSON library exception): still an
    // Error with a code, never a bare one node-addon-api would make of it.
    Napi::Error js_error = Napi::Error::New(info.Env(), std::string("ctxwin: internal error: ") + error.what());
    js_error.Set("code", Napi::String::New(info.Env(), std::string(error_code_name(ErrorCode::Internal))));
    throw js_error;
  }
}

// Argument readers. The TypeScript layer validates the public API first and names the user's
// argument; these checks keep the addon safe when it is called directly.
inline double number_arg(const Napi::CallbackInfo& info, std::size_t index, const char* name) {
  if (info.Length() <= index || !info[index].IsNumber()) {
    throw Error::type(ErrorCode::InvalidArgument, std::string(name) + " must be a number");
  }
  return info[index].As<Napi::Number>().DoubleValue();
}

inline std::string string_arg(const Napi::CallbackInfo& info, std::size_t index, const char* name) {
  if (info.Length() <= index || !info[index].IsString()) {
    throw Error::type(ErrorCode::InvalidArgument, std::string(name) + " must be a string");
  }
  return info[index].As<Napi::String>().Utf8Value();
}

template <typename T>
Napi::TypedArrayOf<T> typed_array_arg(const Napi::CallbackInfo& info, std::size_t index, const char* name, napi_typedarray_type type,
                                      const char* type_name) {
  if (info.Length() <= index || !info[index].IsTypedArray() || info[index].As<Napi::TypedArray>().TypedArrayType() != type) {
    throw Error::type(ErrorCode::InvalidArgument, std::string(name) + " must be a " + type_name);
  }
  return info[index].As<Napi::TypedArrayOf<T>>();
}

}  // namespace ctxwin::binding
