#include "catalog/builtin_catalog.hpp"

#include "catalog/catalog_data.hpp"
#include "ctxwin/catalog/model_id.hpp"

namespace ctxwin {

namespace {

ModelSource source_of(catalog_data::RowSource source) {
  switch (source) {
    case catalog_data::RowSource::Catalog:
      return ModelSource::Catalog;
    case catalog_data::RowSource::Supplement:
      return ModelSource::Supplement;
    case catalog_data::RowSource::Compatibility:
      return ModelSource::Compatibility;
  }
  return ModelSource::Catalog;
}

CatalogModel model_of(const catalog_data::ModelRow& row) {
  const catalog_data::ProviderRow& provider = catalog_data::providers()[row.provider];
  CatalogModel model;
  model.provider = provider.id;
  model.provider_name = provider.name;
  model.id = row.id;
  model.name = row.name;
  model.context_window = row.context;
  model.max_input = row.input;
  model.max_output = row.output;
  model.prices = ModelPrices{row.price_input, row.price_output, row.price_cache_read, row.price_cache_write};
  model.release_date = row.release_date;
  model.open_weights = row.open_weights;
  model.source = source_of(row.source);
  model.group = static_cast<ProviderGroup>(provider.group);
  model.provider_rank = row.provider;
  return model;
}

std::vector<CatalogModel> indexed_rows() {
  std::vector<CatalogModel> out;
  for (const catalog_data::ModelRow& row : catalog_data::models()) {
    if (row.source != catalog_data::RowSource::Compatibility) out.push_back(model_of(row));
  }
  return out;
}

// The catalog entry a compatibility row stands for, whose prices it is listed with: the maker's
// entry of the same name, else the newest of its family ("gpt-4" -> openai/gpt-4, "claude-3-opus"
// -> anthropic/claude-3-opus-20240229); when the maker lists none, the first-ranked provider's
// entry of the model ("llama-3-70b" -> groq/llama3-70b-8192).
const CatalogModel* priced_entry(const ModelIndex& index, const CatalogModel& row) {
  const std::string name = canonical_model_name(row.id);
  const std::string family = model_family(name);
  const std::span<const std::uint32_t> candidates[] = {index.by_name(name), index.by_family(family), index.by_base(model_base(family))};
  for (const bool makers_only : {true, false}) {
    const CatalogModel* best = nullptr;
    for (const auto& entries : candidates) {
      for (std::uint32_t i : entries) {
        const CatalogModel& candidate = index.models()[i];
        if ((makers_only && candidate.provider != row.provider) || candidate.prices.input < 0) continue;
        const bool preferred =
            best == nullptr || (makers_only ? candidate.release_date > best->release_date : candidate.provider_rank < best->provider_rank);
        if (preferred) best = &candidate;
      }
      if (best != nullptr) return best;
    }
  }
  return nullptr;
}

BuiltinCatalog build() {
  BuiltinCatalog catalog{ModelIndex(indexed_rows()), {}, {}, {}, {}, {}, {}};
  for (const catalog_data::ModelRow& row : catalog_data::models()) {
    if (row.source != catalog_data::RowSource::Compatibility) continue;
    CatalogModel model = model_of(row);
    const CatalogModel* priced = priced_entry(catalog.index, model);
    if (priced != nullptr) model.prices = priced->prices;  // listed with the prices it is resolved with
    catalog.compatibility_names.emplace(canonical_model_name(model.id), catalog.compatibility.size());
    catalog.compatibility.push_back(CompatibilityRow{std::move(model), priced});
  }
  for (const catalog_data::AliasRow& alias : catalog_data::aliases())
    catalog.aliases.emplace(canonical_model_name(alias.from), std::string(alias.to));
  for (const catalog_data::AliasRow& spelling : catalog_data::spellings()) {
    catalog.spellings.emplace_back(canonical_model_name(spelling.from), canonical_model_name(spelling.to));
  }
  for (const catalog_data::AliasRow& alias : catalog_data::provider_aliases())
    catalog.provider_aliases[std::string(alias.from)].emplace_back(alias.to);
  for (const catalog_data::ProviderRow& provider : catalog_data::providers()) {
    catalog.provider_groups.emplace(std::string(provider.id), static_cast<ProviderGroup>(provider.group));
  }
  return catalog;
}

}  // namespace

const BuiltinCatalog& builtin_catalog() {
  static const BuiltinCatalog catalog = build();
  return catalog;
}

}  // namespace ctxwin
