// class Tokenizer { constructor(encodingName, dataDir); count(text, allowSpecial?); countMany(texts);
//                   encode(text, allowSpecial?); decode(tokens: Uint32Array);
//                   countAsync(text) / countManyAsync(texts), on the libuv pool;
//                   compactToolResult(text, maxTokens, truncationMessage) }
// and clearPieceCaches(). Tokenizers count through their thread's piece caches (js_thread_state).
//
// Strings cross as UTF-16 (the cheapest copy out of V8) and become UTF-8 in the core, lone
// surrogates turning into U+FFFD exactly as TextEncoder (and so tiktoken's JS build) does.
#include <memory>
#include <string>
#include <vector>

#include "ctxwin/encoding.hpp"
#include "ctxwin/tool_result_compactor.hpp"
#include "ctxwin/estimate.hpp"
#include "ctxwin/utf8.hpp"
#include "errors.hpp"
#include "exports.hpp"
#include "js_thread_state.hpp"

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
      const bool allow_special = info.Length() > 1 && info[1].ToBoolean().Value();
      const std::size_t n = encoding_->count_valid(thread_->utf8(), allow_special, &cache());
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
        counts[i] = static_cast<uint32_t>(encoding_->count_valid(thread.utf8(), false, &cache));
      }
      thread.trim_buffers();
      return counts;
    });
  }

  Napi::Value encode(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      const std::string text = utf8_of(info[0], "text");
      const bool allow_special = info.Length() > 1 && info[1].ToBoolean().Value();
      const std::vector<std::uint32_t> tokens = encoding_->encode(text, allow_special);
      auto out = Napi::Uint32Array::New(info.Env(), tokens.size());
      std::copy(tokens.begin(), tokens.end(), out.Data());
      return out;
    });
  }

  Napi::Value decode(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      auto tokens = typed_array_arg<uint32_t>(info, 0, "tokens", napi_uint32_array, "Uint32Array");
      const std::string bytes = encoding_->decode(std::span<const std::uint32_t>(tokens.Data(), tokens.ElementLength()));
      return Napi::String::New(info.Env(), bytes);
    });
  }

  // Counting on a libuv worker thread: the event loop keeps running while a large text is counted.
  // The job borrows a piece cache of its own from the thread's state (the synchronous calls'
  // cache is not synchronized) and returns it when it completes.
  class CountWorker : public Napi::AsyncWorker {
   public:
    CountWorker(Napi::Env env, const Encoding& encoding, std::vector<std::string> texts, bool many)
        : Napi::AsyncWorker(env), deferred_(Napi::Promise::Deferred::New(env)), encoding_(encoding),
          texts_(std::move(texts)), many_(many), cache_(JsThreadState::of(env).lend(encoding)),
          generation_(JsThreadState::of(env).generation()) {}
    Napi::Promise promise() { return deferred_.Promise(); }

   protected:
    void Execute() override {
      try {
        counts_.reserve(texts_.size());
        for (const auto& text : texts_) counts_.push_back(static_cast<uint32_t>(encoding_.count_valid(text, false, cache_.get())));
      } catch (const std::exception& error) {
        SetError(error.what());
      }
    }
    void OnOK() override {
      give_back_cache();
      if (many_) {
        auto out = Napi::Uint32Array::New(Env(), counts_.size());
        std::copy(counts_.begin(), counts_.end(), out.Data());
        deferred_.Resolve(out);
      } else {
        deferred_.Resolve(Napi::Number::New(Env(), counts_.empty() ? 0 : counts_.front()));
      }
    }
    void OnError(const Napi::Error& error) override {
      give_back_cache();
      deferred_.Reject(error.Value());
    }

   private:
    void give_back_cache() { JsThreadState::of(Env()).give_back(encoding_, std::move(cache_), generation_); }

    Napi::Promise::Deferred deferred_;
    const Encoding& encoding_;  // process-lifetime: encodings are never unloaded
    std::vector<std::string> texts_;
    std::vector<uint32_t> counts_;
    bool many_;
    std::unique_ptr<PieceCache> cache_;
    unsigned generation_;
  };

  Napi::Value count_async(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      std::vector<std::string> texts;
      texts.push_back(utf8_of(info[0], "text"));
      auto* worker = new CountWorker(info.Env(), *encoding_, std::move(texts), false);  // AsyncWorker deletes itself
      Napi::Promise promise = worker->promise();
      worker->Queue();
      return promise;
    });
  }

  Napi::Value count_many_async(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      auto* worker = new CountWorker(info.Env(), *encoding_, utf8_array_of(info[0], "texts"), true);
      Napi::Promise promise = worker->promise();
      worker->Queue();
      return promise;
    });
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
