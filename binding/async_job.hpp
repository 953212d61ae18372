// AsyncJob: work on libuv's pool whose completion can never let a C++ exception out.
//
// Completion runs on the JavaScript thread, also while that thread's environment shuts down
// (worker.terminate(), process exit): then every call into JavaScript fails with
// napi_pending_exception, node-addon-api turns that into a thrown Napi::Error, and a C++
// exception that leaves a Node-API callback aborts the whole process, every worker with it.
// node-addon-api's own completion wrapper rethrows into JavaScript from its catch handler, which
// throws again when JavaScript cannot run; so AsyncJob replaces it: complete() runs inside a
// catch-all, and what it cannot deliver is dropped, since nobody is left to receive it.
//
// The addon is built with NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS, which covers node-addon-api's
// other wrappers (function calls, constructors) the same way; this class covers completions.
#pragma once

#include <napi.h>

#include <exception>
#include <string>

namespace ctxwin::binding {

class AsyncJob : public Napi::AsyncWorker {
 public:
  using Napi::AsyncWorker::AsyncWorker;

 protected:
  // On the JavaScript thread once the work is done: `error` is empty on success. May throw; a
  // throw is reported to `failed` (a healthy environment) or dropped (a dying one).
  virtual void complete(Napi::Env env, const std::string& error) = 0;
  // complete() threw `error`: settle whatever JavaScript waits on. Runs in a catch-all too.
  virtual void failed(Napi::Env env, const Napi::Error& error) = 0;
  // Always runs first, exceptions or not, shutdown or not: give back what the job borrowed.
  virtual void release(Napi::Env env) noexcept = 0;

  // Execute() records failures here instead of SetError, whose message node-addon-api would turn
  // into a Napi::Error outside our reach.
  void fail(std::string message) noexcept { error_ = std::move(message); }

 private:
  void OnWorkComplete(Napi::Env env, napi_status status) override {
    release(env);
    if (status == napi_cancelled && error_.empty()) error_ = "ctxwin: the job was cancelled";
    try {
      Napi::HandleScope scope(env);
      try {
        complete(env, error_);
      } catch (const Napi::Error& error) {
        failed(env, error);
      } catch (const std::exception& error) {
        failed(env, Napi::Error::New(env, error.what()));
      }
    } catch (...) {
      // The environment is going away: no promise can be settled, no error thrown.
    }
    Destroy();  // what node-addon-api's own completion does last (unless SuppressDestruct)
  }

  std::string error_;
};

}  // namespace ctxwin::binding
