// class HfTokenizer { static fromFile(path); static fromJson(text);
//                     count(text, allowSpecial?); countMany(texts); encode(text, allowSpecial?);
//                     summary(); memoryBytes(); clearCache() }
// A tokenizer.json model loaded by the core (tokenizer/hf). Each JavaScript object keeps the loaded
// tables (shared by reference when the TypeScript layer reuses one object per file) and a piece
// cache that only its own thread touches.
#include <memory>
#include <string>
#include <vector>

#include "ctxwin/tokenizer/hf/hf_tokenizer.hpp"
#include "ctxwin/tokenizer/utf8.hpp"
#include "errors.hpp"
#include "exports.hpp"
#include "typed_arrays.hpp"

namespace ctxwin::binding {

namespace {

class HfTokenizerObject : public Napi::ObjectWrap<HfTokenizerObject> {
 public:
  static Napi::Function define(Napi::Env env) {
    return DefineClass(env, "HfTokenizer",
                       {InstanceMethod<&HfTokenizerObject::count>("count"),
                        InstanceMethod<&HfTokenizerObject::count_many>("countMany"),
                        InstanceMethod<&HfTokenizerObject::encode>("encode"),
                        InstanceMethod<&HfTokenizerObject::summary>("summary"),
                        InstanceMethod<&HfTokenizerObject::memory_bytes>("memoryBytes"),
                        InstanceMethod<&HfTokenizerObject::clear_cache>("clearCache")});
  }

  // new HfTokenizer(source, isPath): source is a file path or tokenizer.json text.
  explicit HfTokenizerObject(const Napi::CallbackInfo& info) : Napi::ObjectWrap<HfTokenizerObject>(info) {
    guarded(info, [&]() -> Napi::Value {
      const std::string source = string_arg(info, 0, "tokenizer");
      const bool is_path = info.Length() > 1 && info[1].ToBoolean().Value();
      tokenizer_ = is_path ? HfTokenizer::from_file(source) : HfTokenizer::from_json(source);
      return info.Env().Undefined();
    });
  }

 private:
  void read(const Napi::Value& value, const char* name) {
    if (!value.IsString()) throw Error::type(ErrorCode::InvalidArgument, std::string(name) + " must be a string");
    napi_env env = value.Env();
    std::size_t length = 0;
    NAPI_THROW_IF_FAILED_VOID(env, napi_get_value_string_utf16(env, value, nullptr, 0, &length));
    utf16_.resize(length + 1);
    NAPI_THROW_IF_FAILED_VOID(env, napi_get_value_string_utf16(env, value, utf16_.data(), utf16_.size(), &length));
    utf8_.clear();
    append_utf16_as_utf8(std::u16string_view(utf16_.data(), length), utf8_);
  }
  // Big inputs should not pin big buffers.
  void trim() {
    if (utf16_.capacity() > (1u << 20)) std::u16string().swap(utf16_);
    if (utf8_.capacity() > (1u << 20)) std::string().swap(utf8_);
  }

  Napi::Value count(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      read(info[0], "text");
      const auto special = info.Length() > 1 && info[1].ToBoolean().Value() ? SpecialTokens::AsTokens : SpecialTokens::AsText;
      const std::size_t n = tokenizer_->count(utf8_, &cache_, special);
      trim();
      return Napi::Number::New(info.Env(), static_cast<double>(n));
    });
  }

  Napi::Value count_many(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      if (!info[0].IsArray()) throw Error::type(ErrorCode::InvalidArgument, "texts must be an array of strings");
      auto texts = info[0].As<Napi::Array>();
      const uint32_t n = texts.Length();
      const auto special = info.Length() > 1 && info[1].ToBoolean().Value() ? SpecialTokens::AsTokens : SpecialTokens::AsText;
      auto counts = Napi::Uint32Array::New(info.Env(), n);
      for (uint32_t i = 0; i < n; ++i) {
        const Napi::Value text = texts.Get(i);
        if (!text.IsString()) {
          throw Error::type(ErrorCode::InvalidArgument, "texts[" + std::to_string(i) + "] must be a string");
        }
        read(text, "texts");
        counts[i] = static_cast<uint32_t>(tokenizer_->count(utf8_, &cache_, special));
      }
      trim();
      publish(counts);
      return counts;
    });
  }

  Napi::Value encode(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      read(info[0], "text");
      const auto special = info.Length() > 1 && info[1].ToBoolean().Value() ? SpecialTokens::AsTokens : SpecialTokens::AsText;
      const std::vector<std::uint32_t> ids = tokenizer_->encode(utf8_, special);
      trim();
      return typed_array_of<std::uint32_t>(info.Env(), ids);
    });
  }

  Napi::Value summary(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value { return Napi::String::New(info.Env(), tokenizer_->summary()); });
  }

  Napi::Value memory_bytes(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      return Napi::Number::New(info.Env(), static_cast<double>(tokenizer_->memory_bytes()));
    });
  }

  // Forgets the pieces counted so far (benchmarks of unseen text); counts stay the same.
  Napi::Value clear_cache(const Napi::CallbackInfo& info) {
    cache_.clear();
    return info.Env().Undefined();
  }

  std::unique_ptr<const HfTokenizer> tokenizer_;
  PieceCache cache_;
  std::u16string utf16_;
  std::string utf8_;
};

}  // namespace

void register_hf_tokenizer(Napi::Env env, Napi::Object exports) {
  exports.Set("HfTokenizer", HfTokenizerObject::define(env));
}

}  // namespace ctxwin::binding
