// An OpenAI byte-pair encoding (r50k_base, p50k_base, cl100k_base, o200k_base): pretokenizer,
// mergeable ranks and special tokens, with count / encode / decode giving tiktoken's results.
//
// Encodings are immutable and shared: `Encoding::get` loads each one once per process (lazily, on
// first use, thread-safe) and hands out the same instance to every caller and thread.
//
// An Encoding is a TokenCounter (token_counter.hpp): counts go through that interface, with a
// PieceCache from new_cache().
//
//   const Encoding& enc = Encoding::get("cl100k_base", "<package>/data/openai");
//   std::size_t n = enc.count("hello world");          // 2, without building a token array
//   std::vector<std::uint32_t> ids = enc.encode("hello world");
//   std::string text = enc.decode(ids);
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ctxwin/tokenizer/bpe/contraction_split.hpp"
#include "ctxwin/tokenizer/bpe/piece_cache.hpp"
#include "ctxwin/tokenizer/bpe/pretokenizer.hpp"
#include "ctxwin/tokenizer/bpe/rank_table.hpp"
#include "ctxwin/tokenizer/token_counter.hpp"

namespace ctxwin {

class Encoding final : public TokenCounter {
 public:
  struct SpecialToken {
    std::string_view text;
    std::uint32_t rank;
  };

  // The encoding named `name`, loading its ranks from `data_dir` the first time (`<name>.bin`, the
  // package's compact form, or OpenAI's `<name>.tiktoken`: load_encoding_ranks in rank_file.hpp). Throws
  // ctxwin::Error: RangeError (ERR_CTXWIN_UNKNOWN_ENCODING) listing the valid names for an unknown
  // name; Error (ERR_CTXWIN_RANK_DATA_UNAVAILABLE) when the rank file cannot be read (a later call
  // tries again). The first successful load wins: later data_dir values are not consulted.
  static const Encoding& get(std::string_view name, const std::string& data_dir);
  // The same, its ranks parsed the first time from the compact rank file (parse_rank_file) that
  // `read_rank_file` returns: for a host that keeps the tables elsewhere than in a folder (on Node,
  // the package's data modules, the one copy the web entry imports too). Called only while the
  // encoding is not loaded; what it throws, or a malformed file, leaves it unloaded.
  static const Encoding& get(std::string_view name, const std::function<std::string()>& read_rank_file);
  // "r50k_base, p50k_base, cl100k_base, o200k_base"
  static std::string valid_names();

  Encoding(std::string_view name, Pattern pattern, RankTable ranks, std::vector<SpecialToken> specials);
  // Shared by reference (TokenCounter is not copyable): copying 10 MB of tables would be a bug.

  std::string_view name() const noexcept { return name_; }

  // A PieceCache: pieces counted once are looked up there first.
  std::unique_ptr<CountCache> new_cache() const override;
  // The token ids of `text` (repaired first when invalid UTF-8).
  std::vector<std::uint32_t> encode(std::string_view text, SpecialTokens special = SpecialTokens::AsText) const;
  // The bytes of `tokens` (which may be a partial UTF-8 sequence). Throws ctxwin::Error naming the
  // first unknown token.
  std::string decode(std::span<const std::uint32_t> tokens) const;

  const RankTable& ranks() const noexcept { return ranks_; }
  // Whether long pieces are counted in independent parts (for_each_independent_part). That needs
  // every token to merge from its own bytes back into itself: known for OpenAI's four files,
  // checked at construction for any other rank data (a custom rankDataDir).
  bool splits_long_pieces() const noexcept { return splits_long_pieces_; }
  std::span<const SpecialToken> special_tokens() const noexcept { return specials_; }

 protected:
  // Special-token text counts as ordinary text unless special is AsTokens, when each occurrence
  // is one token.
  std::size_t count_utf8(std::string_view text, CountCache* cache, SpecialTokens special) const override;

 private:
  template <typename OnOrdinary, typename OnSpecial>
  void split_specials(std::string_view text, SpecialTokens special_tokens, OnOrdinary&& ordinary, OnSpecial&& special) const;

  std::string name_;
  Pattern pattern_;
  RankTable ranks_;
  std::vector<SpecialToken> specials_;
  bool splits_long_pieces_ = false;
  // o200k_base's pieces that end with a contraction are counted in two (contraction_split.hpp).
  std::optional<ContractionSplit> contractions_;
};

}  // namespace ctxwin
