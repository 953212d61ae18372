// Reading the fields of a tokenizer.json node, with the errors every stage's loader reports: a
// file that is not a tokenizer.json is ERR_CTXWIN_INVALID_TOKENIZER, a component this core does
// not run is ERR_CTXWIN_UNSUPPORTED_TOKENIZER, each naming what it met. Internal to the core.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace ctxwin::hf {

[[noreturn]] void unsupported(const std::string& what);
[[noreturn]] void invalid(const std::string& what);

// node["type"], which every component has.
std::string type_of(const nlohmann::json& node, const std::string& where);
// A boolean field, `fallback` when it is absent or null.
bool flag(const nlohmann::json& node, const char* name, bool fallback);
std::string string_field(const nlohmann::json& node, const char* name, const std::string& where);

}  // namespace ctxwin::hf
