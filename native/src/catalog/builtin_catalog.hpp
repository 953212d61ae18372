// The built-in catalog as the resolver reads it: the generated rows (catalog_data.hpp) indexed
// once per process, the specification's compatibility rows with the catalog entries that price
// them, and the hand-written aliases, spellings and provider names in canonical form.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ctxwin/catalog/catalog_model.hpp"
#include "ctxwin/catalog/model_index.hpp"

namespace ctxwin {

struct CompatibilityRow {
  CatalogModel model;
  const CatalogModel* priced;  // the catalog entry of the same model (its prices), or null
};

struct BuiltinCatalog {
  ModelIndex index;                                                  // catalog and supplement rows
  std::vector<CompatibilityRow> compatibility;                       // in the specification's order
  std::unordered_map<std::string, std::size_t> compatibility_names;  // canonical name -> row
  std::unordered_map<std::string, std::string> aliases;              // canonical name -> target id
  std::vector<std::pair<std::string, std::string>> spellings;        // canonical prefix -> replacement
  std::unordered_map<std::string, std::vector<std::string>> provider_aliases;
  std::unordered_map<std::string, ProviderGroup> provider_groups;  // every provider id
};

// Built on first use, then shared by every resolver of the process (read-only).
const BuiltinCatalog& builtin_catalog();

}  // namespace ctxwin
