// class ModelResolver { resolve(id) -> model | null; register(json) -> models added;
//                       list() -> model[]; closest(id, count) -> string[] }
// plus modelNames(id) -> string[] and catalogPackage (the models.dev package the table came from).
// A model crosses as one plain object; prices are USD per million tokens, -1 when not published.
#include <string>
#include <vector>

#include "ctxwin/catalog/model_id.hpp"
#include "ctxwin/catalog/model_resolver.hpp"
#include "ctxwin/catalog/models_dev_json.hpp"
#include "errors.hpp"
#include "exports.hpp"

namespace ctxwin::binding {

namespace {

const char* source_name(ModelSource source) {
  switch (source) {
    case ModelSource::Catalog:
      return "catalog";
    case ModelSource::Supplement:
      return "supplement";
    case ModelSource::Compatibility:
      return "compatibility";
    case ModelSource::Registered:
      return "registered";
  }
  return "catalog";
}

const char* match_name(MatchKind match) {
  switch (match) {
    case MatchKind::Pattern:
      return "pattern";
    case MatchKind::Exact:
      return "exact";
    case MatchKind::Provider:
      return "provider";
    case MatchKind::Name:
      return "name";
    case MatchKind::Family:
      return "family";
    case MatchKind::Variant:
      return "variant";
    case MatchKind::Alias:
      return "alias";
    case MatchKind::Prefix:
      return "prefix";
  }
  return "name";
}

// One object, its properties defined in one call (a resolution's cost is mostly this crossing).
Napi::Object model_object(Napi::Env env, const CatalogModel& model, const ModelPrices& prices, const char* match = nullptr,
                          const std::string* prices_from = nullptr) {
  constexpr auto attributes = static_cast<napi_property_attributes>(napi_writable | napi_enumerable | napi_configurable);
  auto value = [&](const char* name, Napi::Value v) { return Napi::PropertyDescriptor::Value(name, v, attributes); };
  std::vector<Napi::PropertyDescriptor> properties{
      value("provider", Napi::String::New(env, model.provider)),
      value("providerName", Napi::String::New(env, model.provider_name)),
      value("id", Napi::String::New(env, model.id)),
      value("name", Napi::String::New(env, model.name)),
      value("contextWindow", Napi::Number::New(env, model.context_window)),
      value("maxInput", Napi::Number::New(env, model.max_input)),
      value("maxOutput", Napi::Number::New(env, model.max_output)),
      value("inputPrice", Napi::Number::New(env, prices.input)),
      value("outputPrice", Napi::Number::New(env, prices.output)),
      value("cacheReadPrice", Napi::Number::New(env, prices.cache_read)),
      value("cacheWritePrice", Napi::Number::New(env, prices.cache_write)),
      value("releaseDate", Napi::String::New(env, model.release_date)),
      value("openWeights", Napi::Boolean::New(env, model.open_weights)),
      value("source", Napi::String::New(env, source_name(model.source))),
  };
  if (match != nullptr) properties.push_back(value("match", Napi::String::New(env, match)));
  if (prices_from != nullptr) properties.push_back(value("pricesFrom", Napi::String::New(env, *prices_from)));
  Napi::Object out = Napi::Object::New(env);
  out.DefineProperties(properties);
  return out;
}

class ModelResolverObject : public Napi::ObjectWrap<ModelResolverObject> {
 public:
  static Napi::Function define(Napi::Env env) {
    return DefineClass(
        env, "ModelResolver",
        {InstanceMethod<&ModelResolverObject::resolve>("resolve"), InstanceMethod<&ModelResolverObject::register_catalog>("register"),
         InstanceMethod<&ModelResolverObject::list>("list"), InstanceMethod<&ModelResolverObject::closest>("closest")});
  }

  explicit ModelResolverObject(const Napi::CallbackInfo& info) : Napi::ObjectWrap<ModelResolverObject>(info) {}

 private:
  // The resolved entry, with `match`, and the prices (and `pricesFrom`) of the entry that prices it.
  Napi::Value resolve(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      const auto found = resolver_.resolve(string_arg(info, 0, "model"));
      if (!found) return info.Env().Null();
      const ModelPrices prices = found->priced != nullptr ? found->priced->prices : ModelPrices{};
      if (found->priced != nullptr && found->priced != found->model) {
        const std::string from = found->priced->provider + "/" + found->priced->id;
        return model_object(info.Env(), *found->model, prices, match_name(found->match), &from);
      }
      return model_object(info.Env(), *found->model, prices, match_name(found->match));
    });
  }

  // register(json): a catalog in models.dev's format; all of it or, on an error, none of it.
  Napi::Value register_catalog(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      std::vector<CatalogModel> models = parse_models_dev_catalog(string_arg(info, 0, "catalog"));
      const std::size_t added = models.size();
      resolver_.add(std::move(models));
      return Napi::Number::New(info.Env(), static_cast<double>(added));
    });
  }

  Napi::Value list(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      const std::vector<const CatalogModel*> models = resolver_.list();
      Napi::Array out = Napi::Array::New(info.Env(), models.size());
      for (std::size_t i = 0; i < models.size(); ++i)
        out.Set(static_cast<std::uint32_t>(i), model_object(info.Env(), *models[i], models[i]->prices));
      return out;
    });
  }

  Napi::Value closest(const Napi::CallbackInfo& info) {
    return guarded(info, [&]() -> Napi::Value {
      const std::string id = string_arg(info, 0, "model");
      const double count = number_arg(info, 1, "count");
      const std::vector<std::string> ids = resolver_.closest(id, count > 0 && count < 100 ? static_cast<std::size_t>(count) : 3);
      Napi::Array out = Napi::Array::New(info.Env(), ids.size());
      for (std::size_t i = 0; i < ids.size(); ++i) out.Set(static_cast<std::uint32_t>(i), Napi::String::New(info.Env(), ids[i]));
      return out;
    });
  }

  ModelResolver resolver_;
};

Napi::Value model_names_js(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    const std::vector<std::string> names = model_names(string_arg(info, 0, "model"));
    Napi::Array out = Napi::Array::New(info.Env(), names.size());
    for (std::size_t i = 0; i < names.size(); ++i) out.Set(static_cast<std::uint32_t>(i), Napi::String::New(info.Env(), names[i]));
    return out;
  });
}

}  // namespace

void register_model_catalog(Napi::Env env, Napi::Object exports) {
  exports.Set("ModelResolver", ModelResolverObject::define(env));
  exports.Set("modelNames", Napi::Function::New(env, model_names_js, "modelNames"));
  exports.Set("catalogPackage", Napi::String::New(env, std::string(ModelResolver::catalog_package())));
}

}  // namespace ctxwin::binding
