#include "ctxwin/catalog/models_dev_json.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "ctxwin/catalog/model_id.hpp"
#include "ctxwin/catalog/model_resolver.hpp"
#include "ctxwin/error.hpp"

namespace ctxwin {

namespace {

using nlohmann::json;

std::string type_of(const json& value) {
  switch (value.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::object:
      return "an object";
    case json::value_t::array:
      return "an array";
    case json::value_t::string:
      return "a string";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::discarded:
      return "nothing";
    default:
      return "a number";
  }
}

std::string key(std::string_view path, std::string_view name) { return std::string(path) + "[" + json(std::string(name)).dump() + "]"; }

const json& object_at(const json& parent, std::string_view field, const std::string& path) {
  const auto it = parent.find(std::string(field));
  if (it == parent.end() || !it->is_object()) {
    throw Error::type(ErrorCode::InvalidArgument,
                      path + "." + std::string(field) + " must be an object, got " + (it == parent.end() ? "nothing" : type_of(*it)));
  }
  return *it;
}

// A token count: a whole number from 0 to 2^32 - 1, or nothing when absent and not `required`.
std::uint32_t count_at(const json& parent, std::string_view field, const std::string& path, bool required) {
  const auto it = parent.find(std::string(field));
  const std::string where = path + "." + std::string(field);
  if (it == parent.end() || it->is_null()) {
    if (required) throw Error::type(ErrorCode::InvalidArgument, where + " must be a number, got nothing");
    return 0;
  }
  if (!it->is_number()) throw Error::type(ErrorCode::InvalidArgument, where + " must be a number, got " + type_of(*it));
  const double value = it->get<double>();
  if (!(value >= 0) || value > 4294967295.0 || std::floor(value) != value) {
    throw Error::range(ErrorCode::OutOfRange, where + " must be a whole number from 0 to 4294967295, got " + describe_number(value));
  }
  return static_cast<std::uint32_t>(value);
}

double price_at(const json& cost, std::string_view field, const std::string& path) {
  const auto it = cost.find(std::string(field));
  if (it == cost.end() || it->is_null()) return -1;
  const std::string where = path + "." + std::string(field);
  if (!it->is_number()) throw Error::type(ErrorCode::InvalidArgument, where + " must be a number, got " + type_of(*it));
  const double value = it->get<double>();
  if (!(value >= 0) || !std::isfinite(value))
    throw Error::range(ErrorCode::OutOfRange, where + " must be a price >= 0, got " + describe_number(value));
  return value;
}

std::string string_at(const json& parent, std::string_view field, const std::string& path, std::string fallback) {
  const auto it = parent.find(std::string(field));
  if (it == parent.end() || it->is_null()) return fallback;
  if (!it->is_string())
    throw Error::type(ErrorCode::InvalidArgument, path + "." + std::string(field) + " must be a string, got " + type_of(*it));
  return it->get<std::string>();
}

}  // namespace

std::vector<CatalogModel> parse_models_dev_catalog(std::string_view text) {
  const json document = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded())
    throw Error::type(ErrorCode::InvalidArgument, "catalog must be JSON in models.dev's format: it does not parse");
  if (!document.is_object())
    throw Error::type(ErrorCode::InvalidArgument, "catalog must be an object of providers by id, got " + type_of(document));
  const json& providers = document.contains("providers") && document["providers"].is_object() ? document["providers"] : document;
  std::vector<CatalogModel> out;
  for (const auto& [provider_id, provider] : providers.items()) {
    const std::string provider_path = key("catalog", provider_id);
    if (provider_id.empty()) throw Error::range(ErrorCode::OutOfRange, "catalog: a provider id must not be empty");
    if (!provider.is_object())
      throw Error::type(ErrorCode::InvalidArgument, provider_path + " must be an object, got " + type_of(provider));
    const std::string provider_name = string_at(provider, "name", provider_path, provider_id);
    const json& models = object_at(provider, "models", provider_path);
    for (const auto& [model_id, model] : models.items()) {
      const std::string path = key(provider_path + ".models", model_id);
      if (model_id.empty()) throw Error::range(ErrorCode::OutOfRange, provider_path + ".models: a model id must not be empty");
      if (!model.is_object()) throw Error::type(ErrorCode::InvalidArgument, path + " must be an object, got " + type_of(model));
      const json& limit = object_at(model, "limit", path);
      CatalogModel entry;
      entry.provider = provider_id;
      entry.provider_name = provider_name;
      entry.id = string_at(model, "id", path, model_id);
      entry.name = string_at(model, "name", path, entry.id);
      entry.context_window = count_at(limit, "context", path + ".limit", true);
      entry.max_input = count_at(limit, "input", path + ".limit", false);
      entry.max_output = count_at(limit, "output", path + ".limit", false);
      if (const auto cost = model.find("cost"); cost != model.end() && !cost->is_null()) {
        if (!cost->is_object()) throw Error::type(ErrorCode::InvalidArgument, path + ".cost must be an object, got " + type_of(*cost));
        entry.prices = ModelPrices{price_at(*cost, "input", path + ".cost"), price_at(*cost, "output", path + ".cost"),
                                   price_at(*cost, "cache_read", path + ".cost"), price_at(*cost, "cache_write", path + ".cost")};
      }
      entry.release_date = string_at(model, "release_date", path, "");
      if (const auto open = model.find("open_weights"); open != model.end() && !open->is_null()) {
        if (!open->is_boolean())
          throw Error::type(ErrorCode::InvalidArgument, path + ".open_weights must be a boolean, got " + type_of(*open));
        entry.open_weights = open->get<bool>();
      }
      const std::string folded = fold_model_id(entry.id);
      if (folded.empty() || folded == "*")
        throw Error::range(ErrorCode::OutOfRange, path + ": a model id must not be blank (a prefix pattern needs a prefix before its '*')");
      if (folded.size() > kMaxModelIdLength) {
        throw Error::range(ErrorCode::OutOfRange,
                           path + ": a model id must be at most " + std::to_string(kMaxModelIdLength) + " characters long");
      }
      if (entry.context_window > 0) out.push_back(std::move(entry));
    }
  }
  return out;
}

}  // namespace ctxwin
