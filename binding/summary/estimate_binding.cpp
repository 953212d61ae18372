// estimateTokens(length, charsPerToken?), estimateTokensInPlace(Uint32Array, charsPerToken?),
// estimateTokensByWords(text, tokensPerWord) and estimateTokensByWordsMany(texts, tokensPerWord).
#include "ctxwin/summary/estimate.hpp"

#include <span>
#include <string>

#include "errors.hpp"
#include "exports.hpp"
#include "typed_arrays.hpp"

namespace ctxwin::binding {

namespace {

double ratio_arg(const Napi::CallbackInfo& info, std::size_t index) {
  if (info.Length() <= index || info[index].IsUndefined()) return kThreadCharsPerToken;
  return checked_chars_per_token(number_arg(info, index, "charsPerToken"), "charsPerToken");
}

// Only the string's length crosses: the estimate needs nothing else.
Napi::Value estimate_tokens_js(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    const auto length = checked_length(number_arg(info, 0, "length"), "length");
    const double ratio = ratio_arg(info, 1);
    return Napi::Number::New(info.Env(), static_cast<double>(estimate_tokens(length, ratio)));
  });
}

// Many lengths in one crossing; the array is overwritten with the estimates.
Napi::Value estimate_tokens_in_place_js(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    auto lengths = typed_array_arg<uint32_t>(info, 0, "lengths", napi_uint32_array, "Uint32Array");
    const double ratio = ratio_arg(info, 1);
    estimate_tokens_in_place(std::span<std::uint32_t>(lengths.Data(), lengths.ElementLength()), ratio);
    publish(lengths);
    return info.Env().Undefined();
  });
}

// ApproximateCounter's words x tokensPerWord approximation; the text crosses as UTF-16.
Napi::Value estimate_tokens_by_words_js(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    if (info.Length() < 1 || !info[0].IsString()) {
      throw Error::type(ErrorCode::InvalidArgument, "text must be a string");
    }
    const double per_word = checked_chars_per_token(number_arg(info, 1, "tokensPerWord"), "tokensPerWord");
    const std::u16string text = info[0].As<Napi::String>().Utf16Value();
    return Napi::Number::New(info.Env(), static_cast<double>(estimate_tokens_by_words(text, per_word)));
  });
}

// estimate_tokens_by_words for many texts in one crossing (ApproximateCounter.countMany).
Napi::Value estimate_tokens_by_words_many_js(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    if (info.Length() < 1 || !info[0].IsArray()) {
      throw Error::type(ErrorCode::InvalidArgument, "texts must be an array of strings");
    }
    const double per_word = checked_chars_per_token(number_arg(info, 1, "tokensPerWord"), "tokensPerWord");
    auto texts = info[0].As<Napi::Array>();
    auto counts = Napi::Uint32Array::New(info.Env(), texts.Length());
    for (uint32_t i = 0; i < texts.Length(); ++i) {
      const Napi::Value text = texts.Get(i);
      if (!text.IsString()) throw Error::type(ErrorCode::InvalidArgument, "texts[" + std::to_string(i) + "] must be a string");
      const std::uint64_t tokens = estimate_tokens_by_words(text.As<Napi::String>().Utf16Value(), per_word);
      counts[i] = static_cast<uint32_t>(tokens < 0xFFFFFFFFu ? tokens : 0xFFFFFFFFu);
    }
    publish(counts);
    return counts;
  });
}

}  // namespace

void register_estimate(Napi::Env env, Napi::Object exports) {
  exports.Set("estimateTokens", Napi::Function::New(env, estimate_tokens_js, "estimateTokens"));
  exports.Set("estimateTokensInPlace", Napi::Function::New(env, estimate_tokens_in_place_js, "estimateTokensInPlace"));
  exports.Set("estimateTokensByWords", Napi::Function::New(env, estimate_tokens_by_words_js, "estimateTokensByWords"));
  exports.Set("estimateTokensByWordsMany", Napi::Function::New(env, estimate_tokens_by_words_many_js, "estimateTokensByWordsMany"));
}

}  // namespace ctxwin::binding
