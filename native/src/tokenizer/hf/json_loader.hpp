// Reads tokenizer.json in one streaming pass (nlohmann's SAX interface): model.vocab and
// model.merges, nearly all of a large file (gemma3's is 33 MB), go straight into flat vectors;
// everything else becomes an ordinary nlohmann::json document. A full DOM of gemma3's file takes
// over a second to build and several times the file's size in memory; this takes a third of that.
// Internal to the core.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace ctxwin::hf {

struct LoadedJson {
  nlohmann::json document;  // without model.vocab and model.merges
  std::vector<std::pair<std::string, std::uint32_t>> vocab;
  std::vector<std::pair<std::string, std::string>> merges;
};

// Throws ctxwin::Error (ERR_CTXWIN_INVALID_TOKENIZER) for text that is not JSON, or whose vocab or
// merges have the wrong shape.
LoadedJson load_tokenizer_json(std::string_view text);

}  // namespace ctxwin::hf
