#include "tokenizer/count_jobs.hpp"

#include <algorithm>
#include <atomic>
#include <optional>
#include <thread>

#include "async_job.hpp"
#include "ctxwin/error.hpp"
#include "ctxwin/tokenizer/utf8.hpp"
#include "errors.hpp"
#include "js_thread_state.hpp"
#include "typed_arrays.hpp"

namespace ctxwin::binding {

namespace {

struct CountBatch {
  CountBatch(Napi::Env env, std::vector<std::u16string> texts_in, bool many_in)
      : deferred(Napi::Promise::Deferred::New(env)), texts(std::move(texts_in)), counts(texts.size()), many(many_in) {}
  Napi::Promise::Deferred deferred;
  std::vector<std::u16string> texts;   // a text is freed by the job that takes it, once converted
  std::vector<std::uint32_t> counts;   // each entry written by the one job that took its text
  std::atomic<std::size_t> next{0};    // the first text no job has taken yet
  std::atomic<bool> cancelled{false};  // the caller gave up (an AbortSignal): no job takes another text
  bool many;
  std::size_t pending = 0;  // jobs not finished; touched on the JavaScript thread only
  bool settled = false;     // the promise is resolved or rejected
};

// One job: takes the batch's next text until there is none, and counts it.
class CountJob : public AsyncJob {
 public:
  CountJob(Napi::Env env, std::shared_ptr<const TokenCounter> counter, std::shared_ptr<CountBatch> batch)
      : AsyncJob(env),
        counter_(std::move(counter)),
        batch_(std::move(batch)),
        cache_(JsThreadState::of(env).lend(counter_)),
        generation_(JsThreadState::of(env).generation()) {}

 protected:
  void Execute() override {
    try {
      CountBatch& batch = *batch_;
      std::string utf8;  // this job's conversion buffer, reused from text to text
      for (std::size_t i = batch.next.fetch_add(1, std::memory_order_relaxed);
           i < batch.texts.size() && !batch.cancelled.load(std::memory_order_relaxed);
           i = batch.next.fetch_add(1, std::memory_order_relaxed)) {
        utf8.clear();
        append_utf16_as_utf8(batch.texts[i], utf8);
        std::u16string().swap(batch.texts[i]);  // a long text is not held twice while it is counted
        batch.counts[i] = static_cast<std::uint32_t>(counter_->count_valid(utf8, cache_.get()));
      }
    } catch (const Error& error) {
      // Kept whole, so that the promise rejects with the code a synchronous count throws.
      core_error_ = error;
      fail(error.what());
    } catch (const std::exception& error) {
      fail(error.what());
    }
  }

  void release(Napi::Env env) noexcept override {
    --batch_->pending;
    JsThreadState* thread = JsThreadState::find(env);
    if (thread != nullptr) thread->give_back(*counter_, std::move(cache_), generation_);
  }

  void complete(Napi::Env env, const std::string& error) override {
    CountBatch& batch = *batch_;
    if (batch.settled) return;
    if (!error.empty()) {
      settle_with(core_error_ ? to_js_error(env, *core_error_) : Napi::Error::New(env, error));
      return;
    }
    if (batch.pending > 0) return;
    // Settled only once resolved: if building the result throws, failed() still rejects.
    if (batch.many) {
      batch.deferred.Resolve(typed_array_of<std::uint32_t>(env, batch.counts));
    } else {
      batch.deferred.Resolve(Napi::Number::New(env, batch.counts.empty() ? 0 : batch.counts.front()));
    }
    batch.settled = true;
  }

  void failed(Napi::Env, const Napi::Error& error) override {
    if (!batch_->settled) settle_with(error);
  }

 private:
  void settle_with(const Napi::Error& error) {
    batch_->settled = true;
    batch_->deferred.Reject(error.Value());
  }

  std::shared_ptr<const TokenCounter> counter_;
  std::shared_ptr<CountBatch> batch_;
  std::unique_ptr<CountCache> cache_;
  unsigned generation_;
  std::optional<Error> core_error_;
};

}  // namespace

Napi::Promise count_on_pool(Napi::Env env, std::shared_ptr<const TokenCounter> counter, std::vector<std::u16string> texts, bool many) {
  // A smaller batch stays on one job: each further job starts with a cold cache of its own.
  constexpr std::size_t kSplitUnits = 1 << 20;
  std::size_t units = 0;
  for (const auto& text : texts) units += text.size();
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t jobs = units < kSplitUnits ? 1 : std::min({cores, std::size_t{4}, std::max<std::size_t>(texts.size(), 1)});
  auto batch = std::make_shared<CountBatch>(env, std::move(texts), many);
  Napi::Promise promise = batch->deferred.Promise();
  // promise.cancel(): the jobs take no further text (one being counted is finished). The caller
  // that cancels has given up on the promise; it still settles, with the counts made so far.
  std::weak_ptr<CountBatch> weak = batch;
  promise.Set("cancel", Napi::Function::New(env, [weak](const Napi::CallbackInfo&) {
                if (const auto alive = weak.lock()) alive->cancelled.store(true, std::memory_order_relaxed);
              }));
  batch->pending = jobs;
  for (std::size_t j = 0; j < jobs; ++j) {
    auto job = std::make_unique<CountJob>(env, counter, batch);
    job->Queue();
    job.release();  // queued: it deletes itself when it completes
  }
  return promise;
}

}  // namespace ctxwin::binding
