// class Counter: the one JavaScript class for every tokenizer family (native/include/ctxwin/
// tokenizer/token_counter.hpp), so that reading strings, batching, pool jobs, caches and
// tool-result compaction are written once for all of them.
//
//   new Counter("bpe", encodingName, rankDataDir)           an OpenAI encoding
//   new Counter("claude", family, claudeDataDir)            a Claude family (v3, v4.7, v5)
//   new Counter("tokenizer.json", path, cacheDir?)          a tokenizer.json file (its prepared
//                                                           form kept in cacheDir when given)
//   new Counter("tokenizer.json-text", json)                a tokenizer.json's text
//
// Every family: count(text, allowSpecial?), countMany(texts, allowSpecial?), countAsync(text),
// countManyAsync(texts), compactToolResult(text, maxTokens, truncationMessage), clearCache().
// What some families have: encode(text, allowSpecial?) (bpe, tokenizer.json), decode(tokens)
// (bpe), countMessage(text), markedStream(text), messageOverhead() (claude), memoryBytes()
// (claude, tokenizer.json), summary() (tokenizer.json); on another family they throw a TypeError.
// Counter.loadAsync(kind, source, cacheDir?): a tokenizer.json ("tokenizer.json" or
// "tokenizer.json-text") loaded on the pool, resolving with its Counter. loadedFrom() says where a
// tokenizer.json counter's tables came from: "cache", "parse+cache" or "parse".
// Module function clearPieceCaches(): forget what this thread's caches remember, every family.
//
// Counts go through the thread's cache of the counter (js_thread_state.hpp) and the thread's
// conversion buffers (js_strings.hpp); pool jobs through count_jobs.hpp.
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ctxwin/compaction/tool_result_compactor.hpp"
#include "ctxwin/summary/estimate.hpp"
#include "ctxwin/tokenizer/bpe/encoding.hpp"
#include "ctxwin/tokenizer/claude/claude_tokenizer.hpp"
#include "ctxwin/tokenizer/hf/hf_tokenizer.hpp"
#include "errors.hpp"
#include "exports.hpp"
#include "js_strings.hpp"
#include "js_thread_state.hpp"
#include "tokenizer/count_jobs.hpp"
#include "tokenizer/load_job.hpp"
#include "typed_arrays.hpp"

namespace ctxwin::binding {

namespace {

// A counter that lives as long as the process (encodings and Claude families are loaded once and
// never unloaded): a shared_ptr that owns nothing.
std::shared_ptr<const TokenCounter> process_lifetime(const TokenCounter& counter) {
  return std::shared_ptr<const TokenCounter>(std::shared_ptr<const TokenCounter>(), &counter);
}

// The longest text a synchronous call counts (each text of a countMany batch), in UTF-16 code units:
// about a third of a second of the main thread for prose at the encodings' speed. Longer ones go to
// countAsync / countManyAsync, which count on the pool.
constexpr std::size_t kMaxSyncLength = std::size_t{1} << 24;

void check_sync_length(std::size_t length, const char* what, const char* async_method) {
  if (length <= kMaxSyncLength) return;
  throw Error::range(ErrorCode::InputTooLarge, std::string(what) + " " + std::to_string(length) + " characters, more than the " +
                                                   std::to_string(kMaxSyncLength) + " a synchronous call counts: " + async_method +
                                                   " counts it off the main thread");
}

SpecialTokens special_arg(const Napi::CallbackInfo& info, std::size_t index) {
  return info.Length() > index && info[index].ToBoolean().Value() ? SpecialTokens::AsTokens : SpecialTokens::AsText;
}

// An encoding's or a Claude family's data file as the core reads it the first time: `read()`, a
// JavaScript function returning the file's bytes (on Node, decoded from the package's data
// modules, which the web entry imports too), is called only then.
std::function<std::string()> data_reader(Napi::Function read) {
  return [read]() {
    const Napi::Value bytes = read.Call({});
    if (!bytes.IsTypedArray() || bytes.As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array) {
      throw Error::type(ErrorCode::InvalidArgument, "dataDir() must return a Uint8Array");
    }
    const auto array = bytes.As<Napi::Uint8Array>();
    return std::string(reinterpret_cast<const char*>(array.Data()), array.ByteLength());
  };
}

class Counter : public Napi::ObjectWrap<Counter> {
 public:
  static Napi::Function define(Napi::Env env) {
    return DefineClass(
        env, "Counter",
        {InstanceMethod<&Counter::count>("count"), InstanceMethod<&Counter::count_many>("countMany"),
         InstanceMethod<&Counter::count_async>("countAsync"), InstanceMethod<&Counter::count_many_async>("countManyAsync"),
         InstanceMethod<&Counter::compact_tool_result_js>("compactToolResult"), InstanceMethod<&Counter::clear_cache>("clearCache"),
         InstanceMethod<&Counter::encode>("encode"), InstanceMethod<&Counter::decode>("decode"),
         InstanceMethod<&Counter::count_message>("countMessage"), InstanceMethod<&Counter::marked_stream>("markedStream"),
         InstanceMethod<&Counter::message_overhead>("messageOverhead"), InstanceMethod<&Counter::memory_bytes>("memoryBytes"),
         InstanceMethod<&Counter::summary>("summary"), InstanceMethod<&Counter::loaded_from>("loadedFrom"),
         StaticMethod<&Counter::load_async>("loadAsync")});
  }

  explicit Counter(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Counter>(info) {
    guarded(info, [&]() -> Napi::Value {
      const std::string kind = string_arg(info, 0, "kind");
      if (kind == "tokenizer.json-loaded" && info[1].IsExternal()) {
        // From load_on_pool's completion, which owns the FileLoad for the length of this call.
        take(std::move(*info[1].As<Napi::External<HfTokenizer::FileLoad>>().Data()));
        thread_ = &JsThreadState::of(info.Env());
        return info.Env().Undefined();
      }
      const std::string source = string_arg(info, 1, "source");
      if (kind == "bpe") {
        encoding_ = info.Length() > 2 && info[2].IsFunction() ? &Encoding::get(source, data_reader(info[2].As<Napi::Function>()))
                                                              : &Encoding::get(source, string_arg(info, 2, "dataDir"));
        counter_ = process_lifetime(*encoding_);
      } else if (kind == "claude") {
        claude_ = info.Length() > 2 && info[2].IsFunction()
                      ? &claude::ClaudeTokenizer::get(source, data_reader(info[2].As<Napi::Function>()))
                      : &claude::ClaudeTokenizer::get(source, string_arg(info, 2, "dataDir"));
        counter_ = process_lifetime(*claude_);
      } else if (kind == "tokenizer.json") {
        take(HfTokenizer::load_file(source, optional_string_arg(info, 2, "cacheDir")));
      } else if (kind == "tokenizer.json-text") {
        take({HfTokenizer::from_json(source), HfTokenizer::FileLoad::Origin::Parsed});
      } else {
        throw Error::range(ErrorCode::InvalidArgument,
                           "kind must be \"bpe\", \"claude\", \"tokenizer.json\" or \"tokenizer.json-text\", got \"" + kind + "\"");
      }
      thread_ = &JsThreadState::of(info.Env());
      return info.Env().Undefined();
    });
  }

 private:
  static Napi::Value load_async(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      const std::string kind = string_arg(info, 0, "kind");
      if (kind != "tokenizer.json" && kind != "tokenizer.json-text") {
        throw Error::range(ErrorCode::InvalidArgument, "kind must be \"tokenizer.json\" or \"tokenizer.json-text\", got \"" + kind + "\"");
      }
      std::string source = string_arg(info, 1, "source");
      // Called as Counter.loadAsync: `this` is the class the promise's counter is made with.
      return load_on_pool(info.Env(), info.This().As<Napi::Function>(), kind, std::move(source), optional_string_arg(info, 2, "cacheDir"));
    });
  }

  static std::string optional_string_arg(const Napi::CallbackInfo& info, std::size_t index, const char* name) {
    return info.Length() > index && !info[index].IsUndefined() ? string_arg(info, index, name) : std::string();
  }

  void take(HfTokenizer::FileLoad loaded) {
    origin_ = loaded.origin == HfTokenizer::FileLoad::Origin::Cache             ? "cache"
              : loaded.origin == HfTokenizer::FileLoad::Origin::ParsedAndCached ? "parse+cache"
                                                                                : "parse";
    std::shared_ptr<const HfTokenizer> model = std::move(loaded.tokenizer);
    model_ = model.get();
    counter_ = std::move(model);
  }

  Napi::Value loaded_from(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      if (model_ == nullptr) unavailable("loadedFrom");
      return Napi::String::New(info.Env(), origin_);
    });
  }

  // ---------------------------------------------------------------- every family

  Napi::Value count(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      const std::size_t length = string_length(info[0], "text");
      check_sync_length(length, "text holds", "countAsync");
      read_utf8(info[0], length, thread_->utf16(), thread_->utf8());
      const std::size_t n = counter_->count_valid(thread_->utf8(), &cache(), special_arg(info, 1));
      thread_->trim_buffers();
      return Napi::Number::New(info.Env(), static_cast<double>(n));
    });
  }

  Napi::Value count_many(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      if (!info[0].IsArray()) throw Error::type(ErrorCode::InvalidArgument, "texts must be an array of strings");
      const auto texts = info[0].As<Napi::Array>();
      const std::uint32_t n = texts.Length();
      const SpecialTokens special = special_arg(info, 1);
      auto counts = Napi::Uint32Array::New(info.Env(), n);
      CountCache& cache = this->cache();
      // One string at a time through the thread's buffers: no copy of the whole batch. The bound is
      // on each text, as for count(): a batch is many counts in one crossing (a manager opening a
      // long session counts all its messages at once), not one input. A refusal returns no counts;
      // what it leaves is only the cache's memo of texts already counted.
      for (std::uint32_t i = 0; i < n; ++i) {
        const Napi::Value text = texts.Get(i);
        if (!text.IsString()) throw Error::type(ErrorCode::InvalidArgument, "texts[" + std::to_string(i) + "] must be a string");
        const std::size_t length = js_string_length(text);
        if (length > kMaxSyncLength) check_sync_length(length, ("texts[" + std::to_string(i) + "] holds").c_str(), "countAsync");
        read_utf8(text, length, thread_->utf16(), thread_->utf8());
        counts[i] = static_cast<std::uint32_t>(counter_->count_valid(thread_->utf8(), &cache, special));
      }
      thread_->trim_buffers();
      publish(counts);
      return counts;
    });
  }

  Napi::Value count_async(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      std::vector<std::u16string> texts;
      texts.push_back(utf16_of(info[0], "text"));
      return count_on_pool(info.Env(), counter_, std::move(texts), false);
    });
  }

  Napi::Value count_many_async(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value { return count_on_pool(info.Env(), counter_, utf16_array_of(info[0], "texts"), true); });
  }

  // compactToolResult(text, maxTokens, truncationMessage) -> { text, changed, json, originalTokens, tokens }
  Napi::Value compact_tool_result_js(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      const std::string text = utf8_of(info[0], "result");
      const double max = number_arg(info, 1, "maxResultTokens");
      ToolResultLimits limits;
      limits.max_tokens = static_cast<std::size_t>(checked_length(max, "maxResultTokens"));
      limits.truncation_message = string_arg(info, 2, "truncationMessage");
      const CompactedResult out = compact_tool_result(text, *counter_, limits, &cache());
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

  // Forgets what this thread remembers for this counter's family (benchmarks of unseen text).
  Napi::Value clear_cache(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      thread_->clear_caches_of(*counter_);
      return info.Env().Undefined();
    });
  }

  // ---------------------------------------------------------------- what some families have

  Napi::Value encode(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      if (encoding_ == nullptr && model_ == nullptr) unavailable("encode");
      const std::string text = utf8_of(info[0], "text");
      const SpecialTokens special = special_arg(info, 1);
      const std::vector<std::uint32_t> ids = encoding_ != nullptr ? encoding_->encode(text, special) : model_->encode(text, special);
      return typed_array_of<std::uint32_t>(info.Env(), ids);
    });
  }

  Napi::Value decode(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      if (encoding_ == nullptr) unavailable("decode");
      auto tokens = typed_array_arg<std::uint32_t>(info, 0, "tokens", napi_uint32_array, "Uint32Array");
      const std::string bytes = encoding_->decode(std::span<const std::uint32_t>(tokens.Data(), tokens.ElementLength()));
      return Napi::String::New(info.Env(), bytes);
    });
  }

  Napi::Value count_message(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      if (claude_ == nullptr) unavailable("countMessage");
      const std::size_t length = string_length(info[0], "text");
      check_sync_length(length, "text holds", "countAsync");
      read_utf8(info[0], length, thread_->utf16(), thread_->utf8());
      const std::size_t n = claude_->count_message(thread_->utf8(), &cache());
      thread_->trim_buffers();
      return Napi::Number::New(info.Env(), static_cast<double>(n));
    });
  }

  Napi::Value marked_stream(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      if (claude_ == nullptr) unavailable("markedStream");
      return Napi::String::New(info.Env(), claude_->marked_stream(utf8_of(info[0], "text")));
    });
  }

  Napi::Value message_overhead(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      if (claude_ == nullptr) unavailable("messageOverhead");
      return Napi::Number::New(info.Env(), claude_->message_overhead());
    });
  }

  Napi::Value memory_bytes(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      if (claude_ == nullptr && model_ == nullptr) unavailable("memoryBytes");
      const std::size_t bytes = claude_ != nullptr ? claude_->memory_bytes() : model_->memory_bytes();
      return Napi::Number::New(info.Env(), static_cast<double>(bytes));
    });
  }

  Napi::Value summary(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      if (model_ == nullptr) unavailable("summary");
      return Napi::String::New(info.Env(), model_->summary());
    });
  }

  [[noreturn]] static void unavailable(const char* method) {
    throw Error::type(ErrorCode::InvalidArgument, std::string(method) + " is not available for this tokenizer family");
  }

  // The thread's cache for this counter, looked up again only after clearPieceCaches().
  CountCache& cache() {
    if (cache_ == nullptr || cache_generation_ != thread_->generation()) {
      cache_ = &thread_->cache_for(counter_);
      cache_generation_ = thread_->generation();
    }
    return *cache_;
  }

  std::shared_ptr<const TokenCounter> counter_;
  // The same counter as its family's class, for what only that family has (one is set).
  const Encoding* encoding_ = nullptr;
  const claude::ClaudeTokenizer* claude_ = nullptr;
  const HfTokenizer* model_ = nullptr;
  const char* origin_ = "parse";  // where a tokenizer.json's tables came from
  // This object's thread's state: it outlives every object of the thread (Node-API deletes it
  // when the environment ends, when no method can run any more).
  JsThreadState* thread_ = nullptr;
  CountCache* cache_ = nullptr;
  unsigned cache_generation_ = 0;
};

}  // namespace

void register_counter(Napi::Env env, Napi::Object exports) {
  exports.Set("Counter", Counter::define(env));
  // clearPieceCaches(): forget what this thread's caches remember, for every counter and family.
  exports.Set("clearPieceCaches", Napi::Function::New(env, [](const Napi::CallbackInfo& info) -> Napi::Value {
                JsThreadState::of(info.Env()).clear_caches();
                return info.Env().Undefined();
              }));
}

}  // namespace ctxwin::binding
