#include "tokenizer/load_job.hpp"

#include <memory>
#include <optional>

#include "async_job.hpp"
#include "ctxwin/error.hpp"
#include "ctxwin/tokenizer/hf/hf_tokenizer.hpp"
#include "errors.hpp"

namespace ctxwin::binding {

namespace {

class LoadJob : public AsyncJob {
 public:
  LoadJob(Napi::Env env, Napi::Function counter_class, std::string kind, std::string source, std::string cache_dir)
      : AsyncJob(env),
        deferred_(Napi::Promise::Deferred::New(env)),
        counter_class_(Napi::Persistent(counter_class)),
        kind_(std::move(kind)),
        source_(std::move(source)),
        cache_dir_(std::move(cache_dir)) {}

  Napi::Promise promise() const { return deferred_.Promise(); }

 protected:
  void Execute() override {
    try {
      loaded_ = kind_ == "tokenizer.json" ? HfTokenizer::load_file(source_, cache_dir_)
                                          : HfTokenizer::FileLoad{HfTokenizer::from_json(source_), HfTokenizer::FileLoad::Origin::Parsed};
    } catch (const Error& error) {
      core_error_ = error;  // kept whole: the promise rejects with the code the constructor throws
      fail(error.what());
    } catch (const std::exception& error) {
      fail(error.what());
    }
  }

  void release(Napi::Env) noexcept override {}

  void complete(Napi::Env env, const std::string& error) override {
    if (!error.empty()) {
      deferred_.Reject(core_error_ ? to_js_error(env, *core_error_).Value() : Napi::Error::New(env, error).Value());
      return;
    }
    // The constructor takes the tokenizer out of `loaded_` (see Counter's "tokenizer.json-loaded").
    const Napi::Object counter = counter_class_.Value().New(
        {Napi::String::New(env, "tokenizer.json-loaded"), Napi::External<HfTokenizer::FileLoad>::New(env, &loaded_)});
    deferred_.Resolve(counter);
  }

  void failed(Napi::Env, const Napi::Error& error) override { deferred_.Reject(error.Value()); }

 private:
  Napi::Promise::Deferred deferred_;
  Napi::FunctionReference counter_class_;
  std::string kind_;
  std::string source_;
  std::string cache_dir_;
  HfTokenizer::FileLoad loaded_{nullptr, HfTokenizer::FileLoad::Origin::Parsed};
  std::optional<Error> core_error_;
};

}  // namespace

Napi::Promise load_on_pool(Napi::Env env, Napi::Function counter_class, std::string kind, std::string source, std::string cache_dir) {
  auto job = std::make_unique<LoadJob>(env, counter_class, std::move(kind), std::move(source), std::move(cache_dir));
  Napi::Promise promise = job->promise();
  job->Queue();
  job.release();  // queued: it deletes itself when it completes
  return promise;
}

}  // namespace ctxwin::binding
