#include "js_strings.hpp"

#include "ctxwin/error.hpp"
#include "ctxwin/tokenizer/utf8.hpp"

namespace ctxwin::binding {

namespace {

void convert(const Napi::Value& value, std::size_t length, std::u16string& utf16, std::string& out) {
  napi_env env = value.Env();
  utf16.resize(length + 1);  // room for the terminator napi writes
  NAPI_THROW_IF_FAILED_VOID(env, napi_get_value_string_utf16(env, value, utf16.data(), utf16.size(), &length));
  out.clear();
  append_utf16_as_utf8(std::u16string_view(utf16.data(), length), out);
}

std::size_t utf16_length(const Napi::Value& value) {
  napi_env env = value.Env();
  std::size_t length = 0;
  NAPI_THROW_IF_FAILED(env, napi_get_value_string_utf16(env, value, nullptr, 0, &length), 0);
  return length;
}

void convert(const Napi::Value& value, std::u16string& utf16, std::string& out) { convert(value, utf16_length(value), utf16, out); }

}  // namespace

void read_utf8(const Napi::Value& value, const char* name, std::u16string& utf16, std::string& out) {
  if (!value.IsString()) throw Error::type(ErrorCode::InvalidArgument, std::string(name) + " must be a string");
  convert(value, utf16, out);
}

void read_utf8(const Napi::Value& value, const char* array_name, std::uint32_t index, std::u16string& utf16, std::string& out) {
  if (!value.IsString()) {
    throw Error::type(ErrorCode::InvalidArgument, std::string(array_name) + "[" + std::to_string(index) + "] must be a string");
  }
  convert(value, utf16, out);
}

std::size_t js_string_length(const Napi::Value& value) { return value.IsString() ? utf16_length(value) : 0; }

std::size_t string_length(const Napi::Value& value, const char* name) {
  if (!value.IsString()) throw Error::type(ErrorCode::InvalidArgument, std::string(name) + " must be a string");
  return utf16_length(value);
}

void read_utf8(const Napi::Value& value, std::size_t length, std::u16string& utf16, std::string& out) {
  convert(value, length, utf16, out);
}

std::string utf8_of(const Napi::Value& value, const char* name) {
  std::u16string utf16;
  std::string utf8;
  read_utf8(value, name, utf16, utf8);
  return utf8;
}

std::vector<std::string> utf8_array_of(const Napi::Value& value, const char* name) {
  if (!value.IsArray()) throw Error::type(ErrorCode::InvalidArgument, std::string(name) + " must be an array of strings");
  const auto array = value.As<Napi::Array>();
  std::vector<std::string> texts(array.Length());
  std::u16string utf16;
  for (std::uint32_t i = 0; i < array.Length(); ++i) read_utf8(array.Get(i), name, i, utf16, texts[i]);
  return texts;
}

namespace {

void copy_utf16(const Napi::Value& value, std::u16string& out) {
  napi_env env = value.Env();
  std::size_t length = 0;
  NAPI_THROW_IF_FAILED_VOID(env, napi_get_value_string_utf16(env, value, nullptr, 0, &length));
  out.resize(length + 1);  // room for the terminator napi writes
  NAPI_THROW_IF_FAILED_VOID(env, napi_get_value_string_utf16(env, value, out.data(), out.size(), &length));
  out.resize(length);
}

}  // namespace

std::u16string utf16_of(const Napi::Value& value, const char* name) {
  if (!value.IsString()) throw Error::type(ErrorCode::InvalidArgument, std::string(name) + " must be a string");
  std::u16string utf16;
  copy_utf16(value, utf16);
  return utf16;
}

std::vector<std::u16string> utf16_array_of(const Napi::Value& value, const char* name) {
  if (!value.IsArray()) throw Error::type(ErrorCode::InvalidArgument, std::string(name) + " must be an array of strings");
  const auto array = value.As<Napi::Array>();
  std::vector<std::u16string> texts(array.Length());
  for (std::uint32_t i = 0; i < array.Length(); ++i) {
    const Napi::Value text = array.Get(i);
    if (!text.IsString()) {
      throw Error::type(ErrorCode::InvalidArgument, std::string(name) + "[" + std::to_string(i) + "] must be a string");
    }
    copy_utf16(text, texts[i]);
  }
  return texts;
}

}  // namespace ctxwin::binding
