#include "ctxwin/catalog/model_resolver.hpp"

#include <algorithm>
#include <tuple>

#include "catalog/builtin_catalog.hpp"
#include "catalog/catalog_data.hpp"
#include "ctxwin/catalog/model_id.hpp"

namespace ctxwin {

namespace {

struct Candidate {
  const CatalogModel* model = nullptr;
  MatchKind match = MatchKind::Exact;
};

// Among entries that match one id: the maker's own first (then clouds', then hosts'), the closer
// match, the provider's rank, the newest release, the shorter id.
bool better(const Candidate& a, const Candidate& b) {
  const CatalogModel& x = *a.model;
  const CatalogModel& y = *b.model;
  // Newer sorts first: compare the release dates the other way round.
  return std::forward_as_tuple(x.group, a.match, x.provider_rank, y.release_date, x.id.size()) <
         std::forward_as_tuple(y.group, b.match, y.provider_rank, x.release_date, y.id.size());
}

void consider(std::optional<Candidate>& best, const ModelIndex& index, std::span<const std::uint32_t> entries, MatchKind match,
              const std::vector<std::string>* providers) {
  for (std::uint32_t i : entries) {
    const CatalogModel& model = index.models()[i];
    if (providers != nullptr && std::find(providers->begin(), providers->end(), model.provider) == providers->end()) continue;
    const Candidate candidate{&model, match};
    if (!best || better(candidate, *best)) best = candidate;
  }
}

// Rule 4 after exact ids: the same name, family or open-weight base (at `providers` only, if given).
std::optional<Candidate> by_names(const ModelIndex& index, const std::vector<std::string>& names,
                                  const std::vector<std::string>* providers) {
  std::optional<Candidate> best;
  for (const std::string& name : names) {
    consider(best, index, index.by_name(name), MatchKind::Name, providers);
    const std::string family = model_family(name);
    consider(best, index, index.by_family(family), MatchKind::Family, providers);
    consider(best, index, index.by_base(model_base(family)), MatchKind::Variant, providers);
  }
  return best;
}

// A provider's own spelling: a path, a ':' tag, a Vertex '@' or a Bedrock vendor ("anthropic.").
bool has_provider_syntax(std::string_view folded) {
  return folded.find_first_of("/:@") != std::string_view::npos || vendor_prefix_length(folded) > 0;
}

// The id's names with the catalog's spelling rewrites applied ("gpt-35-turbo" -> "gpt-3-5-turbo").
std::vector<std::string> names_of(std::string_view id, const BuiltinCatalog& builtin) {
  std::vector<std::string> names = model_names(id);
  for (std::string& name : names) {
    for (const auto& [from, to] : builtin.spellings) {
      if (name.starts_with(from) && (name.size() == from.size() || name[from.size()] == '-')) {
        name = to + name.substr(from.size());
        break;
      }
    }
  }
  return names;
}

// The providers a "head/" prefix names: a provider id of either catalog, or a vendor alias.
std::vector<std::string> providers_named(std::string_view head, const BuiltinCatalog& builtin, const ModelIndex* registered) {
  std::vector<std::string> out;
  const std::string key(head);
  if (builtin.provider_groups.contains(key)) out.push_back(key);
  if (const auto it = builtin.provider_aliases.find(key); it != builtin.provider_aliases.end())
    out.insert(out.end(), it->second.begin(), it->second.end());
  if (registered != nullptr && out.empty()) {
    for (const CatalogModel& model : registered->models()) {
      if (model.provider == key) {
        out.push_back(key);
        break;
      }
    }
  }
  return out;
}

// Rule 6: the longest family the id starts with, the rest being a variant (or, for an alias, a
// size or a tuning word).
std::optional<Candidate> by_prefix(const ModelIndex& index, const std::vector<std::string>& names, const BuiltinCatalog* aliases,
                                   std::string* alias_target) {
  std::size_t best_length = 0;
  std::optional<Candidate> best;
  for (const std::string& name : names) {
    for (std::size_t dash = name.rfind('-'); dash != std::string::npos && dash > best_length;
         dash = dash == 0 ? std::string::npos : name.rfind('-', dash - 1)) {
      const std::string_view prefix = std::string_view(name).substr(0, dash);
      const std::string_view rest = std::string_view(name).substr(dash);
      std::optional<Candidate> found;
      if (is_variant_rest(rest, false)) consider(found, index, index.by_family(prefix), MatchKind::Prefix, nullptr);
      if (found) {
        best = found;
        best_length = dash;
        if (alias_target != nullptr) alias_target->clear();
        break;
      }
      if (aliases != nullptr && alias_target != nullptr && is_variant_rest(rest, true)) {
        if (const auto it = aliases->aliases.find(std::string(prefix)); it != aliases->aliases.end()) {
          *alias_target = it->second;
          best.reset();
          best_length = dash;
          break;
        }
      }
    }
  }
  return best;
}

ModelResolution resolution_of(const Candidate& candidate) {
  const CatalogModel* model = candidate.model;
  return ModelResolution{model, model->prices.input >= 0 || model->prices.output >= 0 ? model : nullptr, candidate.match};
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

// Read from the table itself: asking must not build the index (the addon asks when it loads).
std::string_view ModelResolver::catalog_package() noexcept { return catalog_data::source_package(); }

std::optional<ModelResolution> ModelResolver::resolve(std::string_view id) const { return resolve(id, true); }

std::optional<ModelResolution> ModelResolver::resolve(std::string_view id, bool with_aliases) const {
  const BuiltinCatalog& builtin = builtin_catalog();
  const std::string folded = fold_model_id(id);
  // The prefix rule looks up every '-'-prefix of a name: bounded ids keep that work bounded.
  if (folded.empty() || folded.size() > kMaxModelIdLength) return std::nullopt;
  const std::vector<std::string> names = names_of(folded, builtin);

  // 1. Registered models: the id or the model's name, else the longest prefix pattern (the latest
  // of equals), else the family or base of a registered model.
  std::optional<Candidate> registered;
  if (registered_) {
    consider(registered, *registered_, registered_->by_id(folded), MatchKind::Exact, nullptr);
    if (!registered) registered = by_names(*registered_, names, nullptr);
    if (registered && registered->match <= MatchKind::Name) return resolution_of(*registered);
  }
  const CatalogModel* pattern = nullptr;
  const std::string_view last = std::string_view(folded).substr(folded.rfind('/') == std::string::npos ? 0 : folded.rfind('/') + 1);
  for (const CatalogModel& candidate : patterns_) {
    const std::string_view prefix = std::string_view(candidate.id).substr(0, candidate.id.size() - 1);
    const bool matches = folded.starts_with(prefix) || last.starts_with(prefix);
    if (matches && (pattern == nullptr || prefix.size() + 1 > pattern->id.size())) pattern = &candidate;
  }
  if (pattern != nullptr) return resolution_of(Candidate{pattern, MatchKind::Pattern});
  if (registered) return resolution_of(*registered);

  // 2. "provider/model" (or the AI SDK registry's "provider:model"): that provider's entry, if it
  // has one. Else the id goes on as it is: "mistral:7b" is Ollama's Mistral 7B, not a model "7b".
  for (const char separator : {'/', ':'}) {
    const auto split = folded.find(separator);
    if (split == std::string::npos || (separator == ':' && folded.find('/') < split)) continue;
    const std::vector<std::string> providers = providers_named(std::string_view(folded).substr(0, split), builtin, registered_.get());
    if (providers.empty()) continue;
    const std::string rest = folded.substr(split + 1);
    std::optional<Candidate> found;
    consider(found, builtin.index, builtin.index.by_id(rest), MatchKind::Exact, &providers);
    consider(found, builtin.index, builtin.index.by_id(without_bedrock_region(rest)), MatchKind::Exact, &providers);
    if (!found) found = by_names(builtin.index, names_of(rest, builtin), &providers);
    if (found) return resolution_of(*found);
  }

  // 3. The specification's rows, for their own names.
  for (const std::string& name : names) {
    if (const auto it = builtin.compatibility_names.find(name); it != builtin.compatibility_names.end()) {
      const CompatibilityRow& row = builtin.compatibility[it->second];
      return ModelResolution{&row.model, row.priced, MatchKind::Name};
    }
  }

  // 4. A provider's own id, then names, families and bases.
  if (has_provider_syntax(folded)) {
    std::optional<Candidate> found;
    consider(found, builtin.index, builtin.index.by_id(folded), MatchKind::Exact, nullptr);
    consider(found, builtin.index, builtin.index.by_id(without_bedrock_region(folded)), MatchKind::Exact, nullptr);
    if (found) return resolution_of(*found);
  }
  if (const auto found = by_names(builtin.index, names, nullptr)) return resolution_of(*found);

  // 5. Aliases.
  if (with_aliases) {
    for (const std::string& name : names) {
      if (const auto it = builtin.aliases.find(name); it != builtin.aliases.end()) {
        if (auto target = resolve(it->second, false)) {
          target->match = MatchKind::Alias;
          return target;
        }
      }
    }
  }

  // 6. The longest known model the id starts with.
  if (registered_) {
    if (const auto found = by_prefix(*registered_, names, nullptr, nullptr)) return resolution_of(*found);
  }
  std::string alias_target;
  const auto found = by_prefix(builtin.index, names, with_aliases ? &builtin : nullptr, &alias_target);
  if (found) return resolution_of(*found);
  if (!alias_target.empty()) {
    if (auto target = resolve(alias_target, false)) {
      target->match = MatchKind::Alias;
      return target;
    }
  }
  return std::nullopt;
}

void ModelResolver::add(std::vector<CatalogModel> models) {
  // Everything is built aside and swapped in at the end: an exception leaves the resolver as it was.
  std::vector<CatalogModel> plain;
  std::vector<CatalogModel> patterns;
  const auto same = [](const CatalogModel& a, const CatalogModel& b) {
    return a.provider == b.provider && fold_model_id(a.id) == fold_model_id(b.id);
  };
  auto keep = [&](CatalogModel model, std::vector<CatalogModel>& into) {
    into.erase(std::remove_if(into.begin(), into.end(), [&](const CatalogModel& old) { return same(old, model); }), into.end());
    into.push_back(std::move(model));
  };
  if (registered_) {
    for (const CatalogModel& model : registered_->models()) plain.push_back(model);
  }
  for (auto it = patterns_.rbegin(); it != patterns_.rend(); ++it) patterns.push_back(*it);
  for (CatalogModel& model : models) {
    model.source = ModelSource::Registered;
    const bool is_pattern = model.id.ends_with('*');
    if (is_pattern) model.id = fold_model_id(model.id);  // patterns compare with folded ids
    keep(std::move(model), is_pattern ? patterns : plain);
  }
  // Later registrations rank first.
  for (std::size_t i = 0; i < plain.size(); ++i) {
    plain[i].group = ProviderGroup::Maker;
    plain[i].provider_rank = static_cast<std::uint16_t>(std::min<std::size_t>(plain.size() - 1 - i, 0xffff));
  }
  std::reverse(patterns.begin(), patterns.end());
  auto index = std::make_shared<const ModelIndex>(std::move(plain));
  registered_ = std::move(index);
  patterns_ = std::move(patterns);
}

std::vector<const CatalogModel*> ModelResolver::list() const {
  std::vector<const CatalogModel*> out;
  for (const CatalogModel& model : patterns_) out.push_back(&model);
  if (registered_) {
    const auto models = registered_->models();
    for (auto it = models.rbegin(); it != models.rend(); ++it) out.push_back(&*it);
  }
  const BuiltinCatalog& builtin = builtin_catalog();
  for (const CompatibilityRow& row : builtin.compatibility) out.push_back(&row.model);
  for (const CatalogModel& model : builtin.index.models()) out.push_back(&model);
  return out;
}

std::vector<std::string> ModelResolver::closest(std::string_view id, std::size_t count) const {
  if (count == 0) return {};
  const BuiltinCatalog& builtin = builtin_catalog();
  const std::vector<std::string> names = names_of(id.substr(0, kMaxModelIdLength), builtin);
  // Edit distances against every family: a long input is compared by its start only.
  const std::string target = (names.empty() ? fold_model_id(id.substr(0, kMaxModelIdLength)) : names.front()).substr(0, 64);
  struct Scored {
    std::size_t distance;
    Candidate candidate;
  };
  std::vector<Scored> scored;
  auto score = [&](const ModelIndex& index) {
    for (std::string_view family : index.families()) {
      std::optional<Candidate> best;
      consider(best, index, index.by_family(family), MatchKind::Family, nullptr);
      if (best) scored.push_back(Scored{edit_distance(target, family), *best});
    }
  };
  if (registered_) score(*registered_);
  score(builtin.index);
  std::stable_sort(scored.begin(), scored.end(), [](const Scored& a, const Scored& b) {
    return a.distance < b.distance || (a.distance == b.distance && better(a.candidate, b.candidate));
  });
  std::vector<std::string> out;
  for (const Scored& s : scored) {
    if (out.size() == count) break;
    if (std::find(out.begin(), out.end(), s.candidate.model->id) == out.end()) out.push_back(s.candidate.model->id);
  }
  return out;
}

}  // namespace ctxwin
