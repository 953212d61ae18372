// Reads a model catalog in models.dev's JSON format (https://models.dev/api.json, and the format of
// its repository's generated files): providers by id, each with its models by id, each with
// `limit` { context, input?, output? }, `cost` { input, output, cache_read?, cache_write? } in USD
// per million tokens, `name`, `release_date`, `open_weights`. The `{ "providers": ... }` wrapper of
// models.dev's catalog.json is accepted too. Models whose context is 0 (images, speech) are left
// out, as models.dev uses 0 for "no text window".
#pragma once

#include <string_view>
#include <vector>

#include "ctxwin/catalog/catalog_model.hpp"

namespace ctxwin {

// Throws ctxwin::Error (TypeError / RangeError for JavaScript, ERR_CTXWIN_INVALID_ARGUMENT /
// ERR_CTXWIN_OUT_OF_RANGE) naming the first bad value by its path: `catalog["acme"].models["m"].limit.context`.
std::vector<CatalogModel> parse_models_dev_catalog(std::string_view json);

}  // namespace ctxwin
