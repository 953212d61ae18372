// Fuzzes reading a model catalog in models.dev's JSON format (registerCatalog, `--models FILE`):
// any bytes either fail with a ctxwin::Error or give models with a positive window and prices
// >= 0, which a resolver then registers and finds by their own ids.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ctxwin/catalog/model_resolver.hpp"
#include "ctxwin/catalog/models_dev_json.hpp"
#include "ctxwin/error.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  try {
    auto models = ctxwin::parse_models_dev_catalog(json);
    for (const ctxwin::CatalogModel& model : models) {
      FUZZ_CHECK(model.context_window > 0);
      FUZZ_CHECK(!model.id.empty() && !model.provider.empty());
      FUZZ_CHECK(model.prices.input >= 0 || model.prices.input == -1);
    }
    ctxwin::ModelResolver resolver;
    const auto copy = models;
    resolver.add(std::move(models));
    for (const ctxwin::CatalogModel& model : copy) {
      if (!model.id.ends_with('*')) FUZZ_CHECK(resolver.resolve(model.id).has_value());
    }
  } catch (const ctxwin::Error&) {}
  return 0;
}
