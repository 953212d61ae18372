// One model of the catalog ctxwin plans with: its window, its limits and its prices, as the
// models.dev catalog (or a caller's registration) gives them, and how an id was matched to it.
#pragma once

#include <cstdint>
#include <string>

namespace ctxwin {

// USD per million tokens, as models.dev writes them; a negative value: not published.
struct ModelPrices {
  double input = -1;
  double output = -1;
  double cache_read = -1;
  double cache_write = -1;
};

// Where an entry comes from.
enum class ModelSource : std::uint8_t {
  Catalog,        // the models.dev catalog ctxwin ships (derived from its npm package)
  Supplement,     // a model released after that snapshot, with the values models.dev lists
  Compatibility,  // a row of the specification's ContextLimits table
  Registered,     // added at run time (a model, a prefix pattern or a whole catalog)
};

// How providers rank when several list one model: its maker's own API first, then the clouds that
// resell it, then hosting services and routers (their windows and prices often differ).
enum class ProviderGroup : std::uint8_t { Maker = 0, Cloud = 1, Host = 2 };

struct CatalogModel {
  std::string provider;              // models.dev's provider id: "anthropic", "amazon-bedrock"
  std::string provider_name;         // "Anthropic"
  std::string id;                    // the provider's model id: "claude-opus-4-7"
  std::string name;                  // "Claude Opus 4.7"
  std::uint32_t context_window = 0;  // tokens in + out
  std::uint32_t max_input = 0;       // 0: no separate input limit
  std::uint32_t max_output = 0;      // 0: none published
  ModelPrices prices;
  std::string release_date;  // "2026-04-16", "2024-09" or empty
  bool open_weights = false;
  ModelSource source = ModelSource::Catalog;
  ProviderGroup group = ProviderGroup::Host;
  std::uint16_t provider_rank = 0;  // within all providers, lower first
};

// Which rule matched an id to its entry (from the most to the least specific).
enum class MatchKind : std::uint8_t {
  Pattern,   // a registered prefix pattern ("acme-*")
  Exact,     // the id is a provider's own id for the entry ("us.anthropic.claude-...-v1:0")
  Provider,  // "provider/model", looked up at that provider
  Name,      // the same model name in another spelling ("Claude-3.5-Sonnet")
  Family,    // the same model without (or with another) date or "latest" ("gpt-4o-2024-08-06")
  Variant,   // an open-weight model without its "-instruct" / "-it" / "-chat" ("llama3.3:70b")
  Alias,     // a name the catalog lacks for a model it has ("llama2", "gpt-35-turbo")
  Prefix,    // the longest known model the id starts with, going on with a variant ("gpt-4o-mini-tts")
};

}  // namespace ctxwin
