// class Tokenizer { constructor(encodingName, dataDir); count(text, allowSpecial?); countMany(texts);
//                   encode(text, allowSpecial?); decode(tokens: Uint32Array);
//                   countAsync(text) / countManyAsync(texts), on the libuv pool;
//                   compactToolResult(text, maxTokens, truncationMessage) }
// and clearPieceCaches(). Tokenizers count through their thread's piece caches (js_thread_state).
//
// Strings cross as UTF-16 (the cheapest copy out of V8) and become UTF-8 in the core, lone
// surrogates turning into U+FFFD exactly as TextEncoder (and so tiktoken's JS build) does.
#include <algorithm>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ctxwin/tokenizer/bpe/encoding.hpp"
#include "ctxwin/compaction/tool_result_compactor.hpp"
#include "ctxwin/summary/estimate.hpp"
#include "ctxwin/tokenizer/utf8.hpp"
#include "async_job.hpp"
#include "errors.hpp"
#include "exports.hpp"
#include "js_thread_state.hpp"
#include "typed_arrays.hpp"

namespace ctxwin::binding {

namespace {

// Reads JavaScript string `value` as UTF-8 into `out`, reusing `utf16` and `out`'s memory: the
// synchronous calls use the thread's buffers, so counting allocates nothing per call.
void read_utf8(const Napi::Value& value, const char* name, std::u16string& utf16, std::string& out) {
  if (!value.IsString()) {
    throw Error::type(ErrorCode::InvalidArgument, std::string(name) + " must be a string");
  }
  napi_env env = value.Env();
  std::size_t length = 0;
  NAPI_THROW_IF_FAILED_VOID(env, napi_get_value_string_utf16(env, value, nullptr, 0, &length));
  utf16.resize(length + 1);  // room for the terminator napi writes
  NAPI_THROW_IF_FAILED_VOID(env, napi_get_value_string_utf16(env, value, utf16.data(), utf16.size(), &length));
  out.clear();
  append_utf16_as_utf8(std::u16string_view(utf16.data(), length), out);
}

std::string utf8_of(const Napi::Value& value, const char* name) {
  std::u16string utf16;
  std::string utf8;
  read_utf8(value, name, utf16, utf8);
  return utf8;
}

std::vector<std::string> utf8_array_of(const Napi::Value& value, const char* name) {
  if (!value.IsArray()) {
    throw Error::type(ErrorCode::InvalidArgument, std::string(name) + " must be an array of strings");
  }
  auto array = value.As<Napi::Array>();
  std::vector<std::string> texts;
  texts.reserve(array.Length());
  for (uint32_t i = 0; i < array.Length(); ++i) {
    texts.push_back(utf8_of(array.Get(i), (std::string(name) + "[" + std::to_string(i) + "]").c_str()));
  }
  return texts;
}

class Tokenizer : public Napi::ObjectWrap<Tokenizer> {
 public:
  static Napi::Function define(Napi::Env env) {
    return DefineClass(env, "Tokenizer",
                       {InstanceMethod<&Tokenizer::count>("count"), InstanceMethod<&Tokenizer::count_many>("countMany"),
                        InstanceMethod<&Tokenizer::encode>("encode"), InstanceMethod<&Tokenizer::decode>("decode"),
                        InstanceMethod<&Tokenizer::count_async>("countAsync"),
                        InstanceMethod<&Tokenizer::count_many_async>("countManyAsync"),
                        InstanceMethod<&Tokenizer::compact_tool_result_js>("compactToolResult")});
  }

  explicit Tokenizer(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Tokenizer>(info) {
    guarded(info, [&]() -> Napi::Value {
      const std::string name = string_arg(info, 0, "encoding");
      const std::string data_dir = string_arg(info, 1, "dataDir");
      encoding_ = &Encoding::get(name, data_dir);
      thread_ = &JsThreadState::of(info.Env());
      return info.Env().Undefined();
    });
  }

 private:
  Napi::Value count(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      read_utf8(info[0], "text", thread_->utf16(), thread_->utf8());
      const auto special = info.Length() > 1 && info[1].ToBoolean().Value() ? SpecialTokens::AsTokens : SpecialTokens::AsText;
      const std::size_t n = encoding_->count_valid(thread_->utf8(), &cache(), special);
      thread_->trim_buffers();
      return Napi::Number::New(info.Env(), static_cast<double>(n));
    });
  }

  Napi::Value count_many(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      if (!info[0].IsArray()) {
        throw Error::type(ErrorCode::InvalidArgument, "texts must be an array of strings");
      }
      auto texts = info[0].As<Napi::Array>();
      const uint32_t n = texts.Length();
      auto counts = Napi::Uint32Array::New(info.Env(), n);
      JsThreadState& thread = *thread_;
      PieceCache& cache = this->cache();
      // One string at a time through the same buffers: no copy of the whole batch.
      for (uint32_t i = 0; i < n; ++i) {
        const Napi::Value text = texts.Get(i);
        if (!text.IsString()) {
          throw Error::type(ErrorCode::InvalidArgument, "texts[" + std::to_string(i) + "] must be a string");
        }
        read_utf8(text, "texts", thread.utf16(), thread.utf8());
        counts[i] = static_cast<uint32_t>(encoding_->count_valid(thread.utf8(), &cache));
      }
      thread.trim_buffers();
      publish(counts);
      return counts;
    });
  }

  Napi::Value encode(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      const std::string text = utf8_of(info[0], "text");
      const auto special = info.Length() > 1 && info[1].ToBoolean().Value() ? SpecialTokens::AsTokens : SpecialTokens::AsText;
      const std::vector<std::uint32_t> tokens = encoding_->encode(text, special);
      return typed_array_of<uint32_t>(info.Env(), tokens);
    });
  }

  Napi::Value decode(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      auto tokens = typed_array_arg<uint32_t>(info, 0, "tokens", napi_uint32_array, "Uint32Array");
      const std::string bytes = encoding_->decode(std::span<const std::uint32_t>(tokens.Data(), tokens.ElementLength()));
      return Napi::String::New(info.Env(), bytes);
    });
  }

  // Counting on libuv worker threads: the event loop keeps running while large texts are counted.
  // A batch of a megabyte or more is split over up to four jobs (no more than the machine's cores,
  // and libuv's pool has four threads by default), balanced by bytes; one promise resolves when the
  // last job is done. Each job borrows a piece cache of its own from the thread's state (the
  // synchronous calls' cache is not synchronized) and returns it when it completes.
  struct CountBatch {
    explicit CountBatch(Napi::Env env, std::vector<std::string> texts_in, bool many_in)
        : deferred(Napi::Promise::Deferred::New(env)), texts(std::move(texts_in)), counts(texts.size()), many(many_in) {}
    Napi::Promise::Deferred deferred;
    std::vector<std::string> texts;
    std::vector<uint32_t> counts;  // each job writes only the entries of its own texts
    bool many;
    std::size_t pending = 0;  // jobs not finished; touched on the JavaScript thread only
    bool settled = false;     // the promise is resolved or rejected
  };

  // One job of a batch. Its completion may run while the thread's environment shuts down
  // (worker.terminate()): AsyncJob keeps any exception of that moment inside.
  class CountWorker : public AsyncJob {
   public:
    CountWorker(Napi::Env env, const Encoding& encoding, std::shared_ptr<CountBatch> batch, std::vector<std::size_t> indices)
        : AsyncJob(env), encoding_(encoding), batch_(std::move(batch)), indices_(std::move(indices)),
          cache_(JsThreadState::of(env).lend(encoding)), generation_(JsThreadState::of(env).generation()) {}

   protected:
    void Execute() override {
      try {
        for (const std::size_t i : indices_) {
          batch_->counts[i] = static_cast<uint32_t>(encoding_.count_valid(batch_->texts[i], cache_.get()));
        }
      } catch (const std::exception& error) {
        fail(error.what());
      }
    }

    void release(Napi::Env env) noexcept override {
      --batch_->pending;
      JsThreadState* thread = JsThreadState::find(env);
      if (thread != nullptr) thread->give_back(encoding_, std::move(cache_), generation_);
    }

    void complete(Napi::Env env, const std::string& error) override {
      CountBatch& batch = *batch_;
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

    const Encoding& encoding_;  // process-lifetime: encodings are never unloaded
    std::shared_ptr<CountBatch> batch_;
    std::vector<std::size_t> indices_;
    std::unique_ptr<PieceCache> cache_;
    unsigned generation_;
  };

  Napi::Promise count_on_pool(Napi::Env env, std::vector<std::string> texts, bool many) {
    constexpr std::size_t kSplitBytes = 1 << 20;
    std::size_t total = 0;
    for (const auto& text : texts) total += text.size();
    const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t jobs = total < kSplitBytes ? 1 : std::min({cores, std::size_t{4}, texts.size()});
    // Each text to the job with the fewest bytes so far.
    std::vector<std::vector<std::size_t>> indices(std::max<std::size_t>(jobs, 1));
    std::vector<std::size_t> bytes(indices.size(), 0);
    for (std::size_t i = 0; i < texts.size(); ++i) {
      const auto lightest = static_cast<std::size_t>(std::min_element(bytes.begin(), bytes.end()) - bytes.begin());
      indices[lightest].push_back(i);
      bytes[lightest] += texts[i].size();
    }
    auto batch = std::make_shared<CountBatch>(env, std::move(texts), many);
    Napi::Promise promise = batch->deferred.Promise();
    batch->pending = indices.size();
    for (auto& part : indices) {
      auto worker = std::make_unique<CountWorker>(env, *encoding_, batch, std::move(part));
      worker->Queue();
      worker.release();  // queued: it deletes itself when it completes
    }
    return promise;
  }

  Napi::Value count_async(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      std::vector<std::string> texts;
      texts.push_back(utf8_of(info[0], "text"));
      return count_on_pool(info.Env(), std::move(texts), false);
    });
  }

  Napi::Value count_many_async(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value { return count_on_pool(info.Env(), utf8_array_of(info[0], "texts"), true); });
  }

  // compactToolResult(text, maxTokens, truncationMessage) -> { text, changed, json, originalTokens, tokens }
  Napi::Value compact_tool_result_js(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      const std::string text = utf8_of(info[0], "result");
      const double max = number_arg(info, 1, "maxResultTokens");
      ToolResultLimits limits;
      limits.max_tokens = static_cast<std::size_t>(checked_length(max, "maxResultTokens"));
      limits.truncation_message = string_arg(info, 2, "truncationMessage");
      const CompactedResult out = compact_tool_result(text, *encoding_, limits, &cache());
      Napi::Env env = info.Env();
      Napi::Object result = Napi::Object::New(env);
      result.Set("text", Napi::String::New(env, out.text));
      result.Set("changed", Napi::Boolean::New(env, out.changed));
      result.Set("json", Napi::Boolean::New(env, out.json));
      result.Set("originalTokens", Napi::Number::New(env, static_cast<double>(out.original_tokens)));
      result.Set("tokens", Napi::Number::New(env, static_cast<double>(out.tokens)));
      return result;
    });
  }

  // The thread's cache for this encoding, looked up again only after clearPieceCaches().
  PieceCache& cache() {
    if (cache_ == nullptr || cache_generation_ != thread_->generation()) {
      cache_ = &thread_->cache_for(*encoding_);
      cache_generation_ = thread_->generation();
    }
    return *cache_;
  }

  const Encoding* encoding_ = nullptr;
  // This object's thread's state: it outlives every object of the thread (Node-API deletes it
  // when the environment ends, when no method can run any more).
  JsThreadState* thread_ = nullptr;
  PieceCache* cache_ = nullptr;
  unsigned cache_generation_ = 0;
};

}  // namespace

void register_tokenizer(Napi::Env env, Napi::Object exports) {
  exports.Set("Tokenizer", Tokenizer::define(env));
  // clearPieceCaches(): forget the pieces this thread has counted, for every encoding.
  exports.Set("clearPieceCaches", Napi::Function::New(env, [](const Napi::CallbackInfo& info) -> Napi::Value {
                JsThreadState::of(info.Env()).clear_caches();
                return info.Env().Undefined();
              }));
}

}  // namespace ctxwin::binding
