// Fuzzes model-id resolution (ids come from callers, configuration files and providers' APIs):
// the spelling rules and the resolver on any bytes. Invariants: canonical names and families are
// fixed points of their functions and every name of an id is canonical; a resolution is an entry
// with a positive window whose prices, if any, are >= 0; resolving never throws; suggestions are
// known ids, at most as many as asked.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ctxwin/catalog/model_id.hpp"
#include "ctxwin/catalog/model_resolver.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view id(reinterpret_cast<const char*>(data), size);
  static const ctxwin::ModelResolver resolver;

  const std::string canonical = ctxwin::canonical_model_name(id);
  FUZZ_CHECK(ctxwin::canonical_model_name(canonical) == canonical);
  for (const std::string& name : ctxwin::model_names(id)) {
    FUZZ_CHECK(!name.empty());
    FUZZ_CHECK(ctxwin::canonical_model_name(name) == name);
    const std::string family = ctxwin::model_family(name);
    FUZZ_CHECK(!family.empty() && family.size() <= name.size());
    FUZZ_CHECK(ctxwin::model_family(family) == family);
  }

  const auto found = resolver.resolve(id);
  if (found) {
    FUZZ_CHECK(found->model != nullptr);
    FUZZ_CHECK(found->model->context_window > 0);
    FUZZ_CHECK(!found->model->id.empty() && !found->model->provider.empty());
    if (found->priced != nullptr) FUZZ_CHECK(found->priced->prices.input >= 0 || found->priced->prices.output >= 0);
  }
  // Suggestions compare the id with every family of the catalog (milliseconds under the
  // sanitizers): one input in 64 keeps the run fast enough to explore the resolver itself.
  if (size > 0 && size < 48 && data[0] % 64 == 0) {
    const auto closest = resolver.closest(id, 3);
    FUZZ_CHECK(closest.size() <= 3);
    for (const std::string& known : closest) FUZZ_CHECK(resolver.resolve(known).has_value());
  }
  return 0;
}
