// A set of catalog models indexed by the names their ids stand for (model_id.hpp), so that any
// spelling of an id finds its entries with a few hash lookups. Immutable once built: the built-in
// catalog's index is built once per process and shared; a resolver builds a new index for its
// registered models at each registration.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ctxwin/catalog/catalog_model.hpp"

namespace ctxwin {

class ModelIndex {
 public:
  explicit ModelIndex(std::vector<CatalogModel> models);

  std::span<const CatalogModel> models() const noexcept { return models_; }

  // Entries (indices into models()) whose folded id is `folded_id` ("us.anthropic.claude-...").
  std::span<const std::uint32_t> by_id(std::string_view folded_id) const;
  // ... whose id stands for the canonical name `name`.
  std::span<const std::uint32_t> by_name(std::string_view name) const;
  // ... whose name without dates is `family` (model_family).
  std::span<const std::uint32_t> by_family(std::string_view family) const;
  // ... open-weight models whose family without its chat-tuning suffix is `base` (model_base).
  std::span<const std::uint32_t> by_base(std::string_view base) const;

  // Every family in the index, for suggestions.
  std::vector<std::string_view> families() const;

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  using Map = std::unordered_map<std::string, std::vector<std::uint32_t>, Hash, std::equal_to<>>;
  static std::span<const std::uint32_t> find(const Map& map, std::string_view key);

  std::vector<CatalogModel> models_;
  Map ids_;
  Map names_;
  Map families_;
  Map bases_;
};

}  // namespace ctxwin
