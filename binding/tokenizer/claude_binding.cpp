// class ClaudeTokenizer { constructor(family, dataDir); count(text); countMany(texts);
//                         countMessage(text); countAsync(text) / countManyAsync(texts), on the
//                         libuv pool; markedStream(text); messageOverhead(); memoryBytes();
//                         clearCache() }
// Glue only: the count is the core's (native/src/tokenizer/claude). Strings cross as UTF-16 and
// become UTF-8, lone surrogates turning into U+FFFD.
#include <algorithm>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ctxwin/tokenizer/claude/claude_tokenizer.hpp"
#include "ctxwin/tokenizer/utf8.hpp"
#include "async_job.hpp"
#include "errors.hpp"
#include "exports.hpp"
#include "js_thread_state.hpp"
#include "typed_arrays.hpp"

namespace ctxwin::binding {

namespace {

void read_text(const Napi::Value& value, const std::string& name, std::u16string& utf16, std::string& out) {
  if (!value.IsString()) throw Error::type(ErrorCode::InvalidArgument, name + " must be a string");
  napi_env env = value.Env();
  std::size_t length = 0;
  NAPI_THROW_IF_FAILED_VOID(env, napi_get_value_string_utf16(env, value, nullptr, 0, &length));
  utf16.resize(length + 1);
  NAPI_THROW_IF_FAILED_VOID(env, napi_get_value_string_utf16(env, value, utf16.data(), utf16.size(), &length));
  out.clear();
  append_utf16_as_utf8(std::u16string_view(utf16.data(), length), out);
}

class ClaudeTokenizerWrap : public Napi::ObjectWrap<ClaudeTokenizerWrap> {
 public:
  static Napi::Function define(Napi::Env env) {
    return DefineClass(env, "ClaudeTokenizer",
                       {InstanceMethod<&ClaudeTokenizerWrap::count>("count"),
                        InstanceMethod<&ClaudeTokenizerWrap::count_many>("countMany"),
                        InstanceMethod<&ClaudeTokenizerWrap::count_message>("countMessage"),
                        InstanceMethod<&ClaudeTokenizerWrap::count_async>("countAsync"),
                        InstanceMethod<&ClaudeTokenizerWrap::count_many_async>("countManyAsync"),
                        InstanceMethod<&ClaudeTokenizerWrap::marked_stream>("markedStream"),
                        InstanceMethod<&ClaudeTokenizerWrap::message_overhead>("messageOverhead"),
                        InstanceMethod<&ClaudeTokenizerWrap::memory_bytes>("memoryBytes"),
                        InstanceMethod<&ClaudeTokenizerWrap::clear_cache>("clearCache")});
  }

  explicit ClaudeTokenizerWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<ClaudeTokenizerWrap>(info) {
    guarded(info, [&]() -> Napi::Value {
      const std::string family = string_arg(info, 0, "family");
      const std::string data_dir = string_arg(info, 1, "dataDir");
      tokenizer_ = &claude::ClaudeTokenizer::get(family, data_dir);
      thread_ = &JsThreadState::of(info.Env());
      return info.Env().Undefined();
    });
  }

 private:
  Napi::Value count(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      read_text(info[0], "text", thread_->utf16(), thread_->utf8());
      const std::size_t n = tokenizer_->count_valid(thread_->utf8(), &thread_->claude_cache_for(*tokenizer_));
      thread_->trim_buffers();
      return Napi::Number::New(info.Env(), static_cast<double>(n));
    });
  }

  Napi::Value count_message(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      read_text(info[0], "text", thread_->utf16(), thread_->utf8());
      const std::size_t n = tokenizer_->count_message(thread_->utf8(), &thread_->claude_cache_for(*tokenizer_));
      thread_->trim_buffers();
      return Napi::Number::New(info.Env(), static_cast<double>(n));
    });
  }

  Napi::Value count_many(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      if (!info[0].IsArray()) throw Error::type(ErrorCode::InvalidArgument, "texts must be an array of strings");
      auto texts = info[0].As<Napi::Array>();
      const uint32_t n = texts.Length();
      auto counts = Napi::Uint32Array::New(info.Env(), n);
      for (uint32_t i = 0; i < n; ++i) {
        read_text(texts.Get(i), "texts[" + std::to_string(i) + "]", thread_->utf16(), thread_->utf8());
        counts[i] = static_cast<uint32_t>(tokenizer_->count_valid(thread_->utf8(), &thread_->claude_cache_for(*tokenizer_)));
      }
      thread_->trim_buffers();
      publish(counts);
      return counts;
    });
  }

  Napi::Value marked_stream(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      read_text(info[0], "text", thread_->utf16(), thread_->utf8());
      return Napi::String::New(info.Env(), tokenizer_->marked_stream(thread_->utf8()));
    });
  }

  Napi::Value message_overhead(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), tokenizer_->message_overhead());
  }

  Napi::Value clear_cache(const Napi::CallbackInfo& info) {
    thread_->claude_cache_for(*tokenizer_).clear();
    return info.Env().Undefined();
  }

  Napi::Value memory_bytes(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(tokenizer_->memory_bytes()));
  }

  // Counting on libuv worker threads; a batch of a megabyte or more is split over up to four jobs
  // balanced by bytes. The family is immutable and shared, so the jobs need nothing of their own.
  struct Batch {
    Batch(Napi::Env env, std::vector<std::string> in, bool many_in)
        : deferred(Napi::Promise::Deferred::New(env)), texts(std::move(in)), counts(texts.size()), many(many_in) {}
    Napi::Promise::Deferred deferred;
    std::vector<std::string> texts;
    std::vector<uint32_t> counts;
    bool many;
    std::size_t pending = 0;
    bool settled = false;
  };

  // An AsyncJob (binding/async_job.hpp): its completion never lets a C++ exception out, also while
  // a worker thread's environment shuts down.
  class Worker : public AsyncJob {
   public:
    Worker(Napi::Env env, const claude::ClaudeTokenizer& tokenizer, std::shared_ptr<Batch> batch, std::vector<std::size_t> indices)
        : AsyncJob(env), tokenizer_(tokenizer), batch_(std::move(batch)), indices_(std::move(indices)) {}

   protected:
    void Execute() override {
      try {
        claude::SegmentCache cache;  // the job's own: the thread's cache is not synchronized
        for (const std::size_t i : indices_) batch_->counts[i] = static_cast<uint32_t>(tokenizer_.count_valid(batch_->texts[i], &cache));
      } catch (const std::exception& error) {
        fail(error.what());
      }
    }

    void release(Napi::Env) noexcept override { --batch_->pending; }

    void complete(Napi::Env env, const std::string& error) override {
      Batch& batch = *batch_;
      if (batch.settled) return;
      if (!error.empty()) {
        settle_with(Napi::Error::New(env, error));
        return;
      }
      if (batch.pending > 0) return;
      // Settled only once resolved: if building the result throws, failed() still rejects.
      if (batch.many) {
        batch.deferred.Resolve(typed_array_of<uint32_t>(env, batch.counts));
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

    const claude::ClaudeTokenizer& tokenizer_;  // process-lifetime
    std::shared_ptr<Batch> batch_;
    std::vector<std::size_t> indices_;
  };

  Napi::Promise count_on_pool(Napi::Env env, std::vector<std::string> texts, bool many) {
    constexpr std::size_t kSplitBytes = 1 << 20;
    std::size_t total = 0;
    for (const auto& text : texts) total += text.size();
    const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t jobs = total < kSplitBytes ? 1 : std::min({cores, std::size_t{4}, texts.size()});
    std::vector<std::vector<std::size_t>> indices(std::max<std::size_t>(jobs, 1));
    std::vector<std::size_t> bytes(indices.size(), 0);
    for (std::size_t i = 0; i < texts.size(); ++i) {
      const auto lightest = static_cast<std::size_t>(std::min_element(bytes.begin(), bytes.end()) - bytes.begin());
      indices[lightest].push_back(i);
      bytes[lightest] += texts[i].size();
    }
    auto batch = std::make_shared<Batch>(env, std::move(texts), many);
    Napi::Promise promise = batch->deferred.Promise();
    batch->pending = indices.size();
    for (auto& part : indices) {
      auto* worker = new Worker(env, *tokenizer_, batch, std::move(part));  // AsyncWorker deletes itself
      worker->Queue();
    }
    return promise;
  }

  Napi::Value count_async(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      std::u16string utf16;
      std::vector<std::string> texts(1);
      read_text(info[0], "text", utf16, texts[0]);
      return count_on_pool(info.Env(), std::move(texts), false);
    });
  }

  Napi::Value count_many_async(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      if (!info[0].IsArray()) throw Error::type(ErrorCode::InvalidArgument, "texts must be an array of strings");
      auto array = info[0].As<Napi::Array>();
      std::u16string utf16;
      std::vector<std::string> texts(array.Length());
      for (uint32_t i = 0; i < array.Length(); ++i) read_text(array.Get(i), "texts[" + std::to_string(i) + "]", utf16, texts[i]);
      return count_on_pool(info.Env(), std::move(texts), true);
    });
  }

  const claude::ClaudeTokenizer* tokenizer_ = nullptr;
  // Outlives every object of its thread; holds the segment cache all counters of the thread share.
  JsThreadState* thread_ = nullptr;
};

}  // namespace

void register_claude_tokenizer(Napi::Env env, Napi::Object exports) {
  exports.Set("ClaudeTokenizer", ClaudeTokenizerWrap::define(env));
}

}  // namespace ctxwin::binding
