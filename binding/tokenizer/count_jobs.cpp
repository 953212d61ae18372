#include "tokenizer/count_jobs.hpp"

#include <algorithm>
#include <optional>
#include <thread>

#include "async_job.hpp"
#include "ctxwin/error.hpp"
#include "errors.hpp"
#include "js_thread_state.hpp"
#include "typed_arrays.hpp"

namespace ctxwin::binding {

namespace {

struct CountBatch {
  CountBatch(Napi::Env env, std::vector<std::string> texts_in, bool many_in)
      : deferred(Napi::Promise::Deferred::New(env)), texts(std::move(texts_in)), counts(texts.size()), many(many_in) {}
  Napi::Promise::Deferred deferred;
  std::vector<std::string> texts;
  std::vector<std::uint32_t> counts;  // each job writes only the entries of its own texts
  bool many;
  std::size_t pending = 0;  // jobs not finished; touched on the JavaScript thread only
  bool settled = false;     // the promise is resolved or rejected
};

// One job: the texts of a batch at `indices`.
class CountJob : public AsyncJob {
 public:
  CountJob(Napi::Env env, std::shared_ptr<const TokenCounter> counter, std::shared_ptr<CountBatch> batch, std::vector<std::size_t> indices)
      : AsyncJob(env),
        counter_(std::move(counter)),
        batch_(std::move(batch)),
        indices_(std::move(indices)),
        cache_(JsThreadState::of(env).lend(counter_)),
        generation_(JsThreadState::of(env).generation()) {}

 protected:
  void Execute() override {
    try {
      for (const std::size_t i : indices_) batch_->counts[i] = static_cast<std::uint32_t>(counter_->count_valid(batch_->texts[i], cache_.get()));
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
  std::vector<std::size_t> indices_;
  std::unique_ptr<CountCache> cache_;
  unsigned generation_;
  std::optional<Error> core_error_;
};

// The texts of each of `jobs` jobs: each text to the job with the fewest bytes so far. Texts of
// one kind (prose, code, CJK) count at different speeds and often come in runs: dealing them out
// one by one mixes them, where consecutive runs would leave one job with all the slow ones.
std::vector<std::vector<std::size_t>> deal(const std::vector<std::string>& texts, std::size_t jobs) {
  std::vector<std::vector<std::size_t>> indices(jobs);
  std::vector<std::size_t> bytes(jobs, 0);
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const auto lightest = static_cast<std::size_t>(std::min_element(bytes.begin(), bytes.end()) - bytes.begin());
    indices[lightest].push_back(i);
    bytes[lightest] += texts[i].size();
  }
  return indices;
}

}  // namespace

Napi::Promise count_on_pool(Napi::Env env, std::shared_ptr<const TokenCounter> counter, std::vector<std::string> texts, bool many) {
  constexpr std::size_t kSplitBytes = 1 << 20;
  std::size_t total = 0;
  for (const auto& text : texts) total += text.size();
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t jobs = total < kSplitBytes ? 1 : std::min({cores, std::size_t{4}, std::max<std::size_t>(texts.size(), 1)});
  std::vector<std::vector<std::size_t>> indices = deal(texts, jobs);
  auto batch = std::make_shared<CountBatch>(env, std::move(texts), many);
  Napi::Promise promise = batch->deferred.Promise();
  batch->pending = indices.size();
  for (auto& part : indices) {
    auto job = std::make_unique<CountJob>(env, counter, batch, std::move(part));
    job->Queue();
    job.release();  // queued: it deletes itself when it completes
  }
  return promise;
}

}  // namespace ctxwin::binding
