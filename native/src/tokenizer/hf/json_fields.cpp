#include "tokenizer/hf/json_fields.hpp"

#include "ctxwin/error.hpp"

namespace ctxwin::hf {

using json = nlohmann::json;

[[noreturn]] void unsupported(const std::string& what) {
  throw Error(ErrorKind::Other, ErrorCode::UnsupportedTokenizer, "tokenizer.json: " + what + " is not supported");
}
[[noreturn]] void invalid(const std::string& what) {
  throw Error(ErrorKind::Other, ErrorCode::InvalidTokenizer, "tokenizer.json: " + what);
}

std::string type_of(const json& node, const std::string& where) {
  if (!node.is_object() || !node.contains("type") || !node["type"].is_string()) invalid(where + " has no \"type\"");
  return node["type"].get<std::string>();
}

bool flag(const json& node, const char* name, bool fallback) {
  if (!node.contains(name) || node[name].is_null()) return fallback;
  if (!node[name].is_boolean()) invalid(std::string("\"") + name + "\" must be true or false");
  return node[name].get<bool>();
}

std::string string_field(const json& node, const char* name, const std::string& where) {
  if (!node.contains(name) || !node[name].is_string()) invalid(where + "." + name + " must be a string");
  return node[name].get<std::string>();
}

}  // namespace ctxwin::hf
