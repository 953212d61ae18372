#include "ctxwin/catalog/model_index.hpp"

#include <algorithm>

#include "ctxwin/catalog/model_id.hpp"

namespace ctxwin {

namespace {

void add(auto& map, std::string key, std::uint32_t index) {
  auto& list = map[std::move(key)];
  if (list.empty() || list.back() != index) list.push_back(index);
}

}  // namespace

ModelIndex::ModelIndex(std::vector<CatalogModel> models) : models_(std::move(models)) {
  for (std::uint32_t i = 0; i < models_.size(); ++i) {
    const CatalogModel& model = models_[i];
    add(ids_, fold_model_id(model.id), i);
    if (is_router_tier(model.id)) continue;
    for (const std::string& name : model_names(model.id)) {
      add(names_, name, i);
      std::string family = model_family(name);
      if (model.open_weights) add(bases_, model_base(family), i);
      add(families_, std::move(family), i);
    }
  }
}

std::span<const std::uint32_t> ModelIndex::find(const Map& map, std::string_view key) {
  const auto it = map.find(key);
  return it == map.end() ? std::span<const std::uint32_t>() : std::span<const std::uint32_t>(it->second);
}

std::span<const std::uint32_t> ModelIndex::by_id(std::string_view folded_id) const { return find(ids_, folded_id); }
std::span<const std::uint32_t> ModelIndex::by_name(std::string_view name) const { return find(names_, name); }
std::span<const std::uint32_t> ModelIndex::by_family(std::string_view family) const { return find(families_, family); }
std::span<const std::uint32_t> ModelIndex::by_base(std::string_view base) const { return find(bases_, base); }

std::vector<std::string_view> ModelIndex::families() const {
  std::vector<std::string_view> out;
  out.reserve(families_.size());
  for (const auto& [family, entries] : families_) out.push_back(family);
  std::sort(out.begin(), out.end());  // a stable order whatever the hash does
  return out;
}

}  // namespace ctxwin
