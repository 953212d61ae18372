// The BPE model of a Hugging Face tokenizer.json ("model": {"type": "BPE"}), with the Rust
// `tokenizers` crate's merge order: the pair with the lowest merge rank (its index in "merges")
// first, the leftmost on ties, over symbols that start as the piece's units.
//
// Units are bytes for byte-level models (Llama 3, Qwen, gpt-oss, DeepSeek V3, whose vocabularies
// spell bytes as GPT-2's printable characters: the model stores them as the raw bytes, so pieces
// are the text's own bytes) and code points otherwise (SentencePiece-style BPE: Gemma, Llama 2,
// Mistral v1-v3). A unit missing from the vocabulary becomes its bytes' <0xXX> tokens
// (byte_fallback), else the unknown token (fused when fuse_unk), else nothing, as in the crate.
//
// Long pieces (SentencePiece-style models pretokenize nothing: a whole text is one piece) are cut
// where no merge can ever join across, between two units that are both in the vocabulary and that
// no merge has at its seam; the parts then merge independently, and with a PieceCache, parts seen
// before cost one lookup.
//
// Parts of kBacktrackBytes and more are encoded by the backtracking search
// (tokenizer/bpe/backtracker.hpp), in time and memory linear in the part, instead of the merge
// loop's heap: it gives the merge loop's tokens when the search only takes tokens that merge from
// their units back into themselves, which it checks token by token. Byte-level models without
// byte_fallback search bytes. Code-point models with byte_fallback search characters: a part is
// first cut at its characters outside the vocabulary, whose <0xXX> tokens no merge may take (else
// the model keeps the merge loop), so the runs between them merge on their own. Models whose ids do
// not name one spelling each keep the merge loop.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ctxwin/tokenizer/bpe/piece_cache.hpp"

namespace ctxwin {

namespace hf {
class PreparedReader;
class PreparedWriter;
}  // namespace hf

class HfBpeModel {
 public:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;

  struct Options {
    bool byte_level = false;  // units are bytes, vocabulary in GPT-2's byte-to-character spelling
    bool byte_fallback = false;
    bool fuse_unk = false;
    bool ignore_merges = false;  // a whole piece that is a token is that token, unmerged
    std::optional<std::string> unk_token;
  };

  // `vocab`: token strings as tokenizer.json spells them, with their ids. `merges`: pairs of token
  // strings, in rank order. Throws ctxwin::Error (ERR_CTXWIN_INVALID_TOKENIZER) when a merge names
  // a token that is not in the vocabulary, as the crate does.
  HfBpeModel(std::vector<std::pair<std::string, std::uint32_t>> vocab, std::vector<std::pair<std::string, std::string>> merges,
             Options options);

  // The prepared form of the model: its tables as they are, written and read back without a
  // rebuild. restore() checks every offset and size the model relies on (throws
  // hf::PreparedFormError); ids out of range only find no merge, as unknown tokens do.
  void save(hf::PreparedWriter& out) const;
  static std::unique_ptr<HfBpeModel> restore(hf::PreparedReader& in);

  // Tokens of one piece (valid UTF-8, or any bytes for byte-level models).
  std::size_t count(std::string_view piece, PieceCache* cache) const;
  void encode(std::string_view piece, std::vector<std::uint32_t>& out) const;

  // The id of a token spelled as the model sees text (raw bytes for byte-level models), or kNone.
  std::uint32_t token_id(std::string_view bytes) const noexcept;
  // The tokens of `piece` by the merge loop alone, whatever its length (the reference the
  // backtracking search of long parts is tested against).
  void encode_by_merges(std::string_view piece, std::vector<std::uint32_t>& out) const;
  // True when long parts go through the backtracking search (builds the search's index).
  bool searches_long_pieces() const { return search_index().searchable; }
  std::size_t vocab_size() const noexcept { return vocab_count_; }
  std::size_t merge_count() const noexcept { return merges_.size(); }
  bool byte_level() const noexcept { return options_.byte_level; }
  // Bytes of the tables this model keeps.
  std::size_t memory_bytes() const noexcept;

 private:
  struct Merge {
    std::uint32_t right;
    std::uint32_t rank;
    std::uint32_t result;
  };
  struct Slot {
    std::uint32_t hash = 0;
    std::uint32_t offset = 0;
    std::uint32_t length = 0;
    std::uint32_t id = kNone;
  };

  HfBpeModel() = default;  // restore() fills every table
  void insert(std::string_view bytes, std::uint32_t id);
  // The merge of `left` then `right`, or nullptr.
  const Merge* find_merge(std::uint32_t left, std::uint32_t right) const noexcept;
  // Appends the initial symbols of `piece` (one unit after another); false when a unit is missing
  // from the vocabulary or merges into neighbours in ways only merge_symbols can tell.
  void initial_symbols(std::string_view piece, std::vector<std::uint32_t>& symbols) const;
  // Merges `symbols` in place (rank order, leftmost first); returns how many remain.
  std::size_t merge_symbols(std::vector<std::uint32_t>& symbols) const;
  // The merge loop's view of the model (bpe_model.cpp).
  struct ModelMerges;
  struct BytePairMerges;
  // Byte-level models whose 256 bytes are all tokens: each pair of bytes' merge, as its index in
  // merges_ (kNone: none), for the first merges of a part, which are between its bytes. The
  // merges of a byte token are the longest runs of merges_by_left_, whose binary search was a
  // fifth of the time of counting first-seen text. Built from the merges at load, not saved.
  void build_byte_pairs();
  // Code-point models: the same for the units SentencePiece-style text is mostly made of, ASCII
  // and U+2581 (the metaspace that stands for a space), by a small index of their ids.
  struct UnitPairMerges;
  void build_unit_pairs();
  static constexpr std::uint8_t kNotPairUnit = 0xFF;
  std::size_t count_part(std::string_view part, PieceCache* cache) const;
  template <typename Part>
  void for_each_part(std::string_view piece, Part&& part) const;
  std::uint32_t unit_id(std::string_view unit) const noexcept;
  bool seam_possible(char32_t left, char32_t right) const noexcept;
  // The backtracking search's view of this model, by bytes and by characters (bpe_model.cpp).
  class SearchVocabulary;
  class CharacterSearchVocabulary;
  // What the search reads besides the tables: each id's byte length and the longest token from
  // each first byte, and whether the search is exact for this model at all. Built from the hash
  // table on the first part long enough to need it (once, whatever the thread), not at load: a
  // load would pay tens of milliseconds for Gemma 3's 262,144 tokens, for texts that may never
  // have a long part.
  struct SearchIndex {
    bool searchable = false;
    std::vector<std::uint16_t> token_lengths;
    std::uint32_t longest_from[256] = {};
  };
  const SearchIndex& search_index() const;
  SearchIndex build_search_index() const;
  // Tokens of one part: the backtracking search from kBacktrackBytes on when the model allows it,
  // else the merge loop. Appends them to `out` (unless null: counting); returns how many.
  std::size_t encode_part(std::string_view part, std::vector<std::uint32_t>* out) const;
  // The merge loop's tokens of one part, appended as encode_part does.
  std::size_t merge_part(std::string_view part, std::vector<std::uint32_t>* out) const;
  // Code-point models: a valid UTF-8 part cut at its units outside the vocabulary (their byte
  // tokens), and each run of known units between them searched (from kBacktrackBytes on) or merged.
  std::size_t search_characters(std::string_view part, std::vector<std::uint32_t>* out) const;
  std::size_t search_known_units(std::string_view run, std::vector<std::uint32_t>* out) const;

  Options options_;
  std::string arena_;
  std::vector<Slot> slots_;
  std::uint64_t mask_ = 0;
  std::size_t vocab_count_ = 0;
  std::uint32_t unk_id_ = kNone;
  std::uint32_t byte_fallback_ids_[256];
  std::uint32_t byte_ids_[256];  // the token of each single byte (byte-level) or ASCII code point
  // Merges grouped by left token (CSR), each run sorted by right token.
  std::vector<std::uint32_t> merges_by_left_;
  std::vector<Merge> merges_;
  // Hashed (left unit, right unit) pairs at the seam of some merge: a long piece is cut only
  // between units whose pair is absent.
  static constexpr unsigned kSeamBits = 22;
  std::vector<std::uint64_t> seams_;
  // Unit ids of the Basic Multilingual Plane for code-point models (kNone when missing).
  std::vector<std::uint32_t> bmp_ids_;
  // 256 x 256 merge indices (build_byte_pairs), or empty.
  std::vector<std::uint32_t> byte_pairs_;
  // Each id's index among the pair units (kNotPairUnit: none), and kPairUnits x kPairUnits merge
  // indices (build_unit_pairs), or both empty.
  static constexpr std::size_t kPairUnits = 129;
  std::vector<std::uint8_t> pair_unit_of_id_;
  std::vector<std::uint32_t> unit_pairs_;
  // Built by search_index(), not saved.
  mutable std::once_flag search_index_once_;
  mutable SearchIndex search_index_;
  mutable std::atomic<bool> search_index_built_{false};  // for memory_bytes() on another thread
};

}  // namespace ctxwin
