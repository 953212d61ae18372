// Reading JavaScript strings as the UTF-8 the core counts: the one reader every binding that hands
// text to a tokenizer uses.
//
// Strings cross as UTF-16 (the cheapest copy out of V8) and become UTF-8 in the core's
// append_utf16_as_utf8, each lone surrogate turning into U+FFFD exactly as TextEncoder (and so
// tiktoken's JavaScript build) writes it; V8's own UTF-8 writer (napi_get_value_string_utf8 into a
// buffer of three bytes a unit) measured no faster for strings of 8 to 200 characters. A value
// that is not a string is a TypeError naming it.
#pragma once

#include <napi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ctxwin::binding {

// `value` as UTF-8 into `out`, converting through `utf16`; both keep their memory, so that a
// thread's buffers make counting allocate nothing per call.
void read_utf8(const Napi::Value& value, const char* name, std::u16string& utf16, std::string& out);
// The same for element `index` of the array `array_name`, named "texts[3]" only in an error.
void read_utf8(const Napi::Value& value, const char* array_name, std::uint32_t index, std::u16string& utf16, std::string& out);

// The length of `value` in UTF-16 code units (JavaScript's `text.length`) without reading it; 0
// for a value that is not a string.
std::size_t js_string_length(const Napi::Value& value);

// The length of string `value` in UTF-16 code units; a TypeError naming `name` when it is not a
// string. With read_utf8 below, what a count of one text asks of Node-API: the type and the length
// once, then the text.
std::size_t string_length(const Napi::Value& value, const char* name);
// read_utf8 of a string whose `length` string_length gave.
void read_utf8(const Napi::Value& value, std::size_t length, std::u16string& utf16, std::string& out);

// read_utf8 into a new string.
std::string utf8_of(const Napi::Value& value, const char* name);

// An array of strings, each as UTF-8.
std::vector<std::string> utf8_array_of(const Napi::Value& value, const char* name);

// The same strings as UTF-16, copied out of V8 and not converted: for pool jobs, which convert them
// off the JavaScript thread (Node-API reads a JavaScript string only on its own thread, so the
// copy itself cannot move).
std::u16string utf16_of(const Napi::Value& value, const char* name);
std::vector<std::u16string> utf16_array_of(const Napi::Value& value, const char* name);

}  // namespace ctxwin::binding
