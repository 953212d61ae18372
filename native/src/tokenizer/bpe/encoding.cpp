#include "ctxwin/tokenizer/bpe/encoding.hpp"

#include <array>
#include <memory>
#include <mutex>

#include "ctxwin/tokenizer/bpe/bpe.hpp"
#include "ctxwin/tokenizer/bpe/rank_file.hpp"
#include "ctxwin/error.hpp"
#include "ctxwin/tokenizer/utf8.hpp"

namespace ctxwin {

namespace {

struct Definition {
  std::string_view name;
  Pattern pattern;
  std::array<Encoding::SpecialToken, 5> specials;
  std::size_t special_count;
  // RankTable::content_hash of OpenAI's table (the .tiktoken file whose SHA-256 tiktoken checks,
  // and the package's compact copy of it), whose tokens all merge back into themselves
  // (Encoding.EveryTokenMergesBackIntoItself).
  std::uint64_t known_data_hash;
};

// Special tokens are not in the .tiktoken files; these are tiktoken_ext/openai_public.py's.
constexpr std::array<Definition, 4> kDefinitions = {{
    {"r50k_base", Pattern::R50k, {{{"<|endoftext|>", 50256}}}, 1, 0xd5efe642e4005d2cull},
    {"p50k_base", Pattern::R50k, {{{"<|endoftext|>", 50256}}}, 1, 0xaaf9645b17d1d32cull},
    {"cl100k_base",
     Pattern::Cl100k,
     {{{"<|endoftext|>", 100257},
       {"<|fim_prefix|>", 100258},
       {"<|fim_middle|>", 100259},
       {"<|fim_suffix|>", 100260},
       {"<|endofprompt|>", 100276}}},
     5,
     0x3af14ffb99b09c50ull},
    {"o200k_base", Pattern::O200k, {{{"<|endoftext|>", 199999}, {"<|endofprompt|>", 200018}}}, 2, 0x0ce6240f8e0cd24dull},
}};

// True when every token of `ranks` merges from its bytes back into itself: then a piece's parts
// can be counted as pieces of their own. One merge per token: about 15 ms per 50,000 tokens.
bool every_token_merges_to_itself(const RankTable& ranks) {
  for (std::uint32_t rank = 0; rank <= ranks.max_rank(); ++rank) {
    const std::string_view bytes = ranks.bytes_of(rank);
    if (bytes.size() >= 2 && bpe_merge_count(bytes, ranks) != 1) return false;
  }
  return true;
}

// Immutable once loaded; the mutex makes the loading thread-safe, and a failed load leaves its
// slot empty so that a later call may succeed. Not std::call_once: a load that throws would unwind
// through glibc's pthread_once, which the prebuilt addon's statically linked unwinder cannot do
// (it aborts the process instead of reporting the missing rank file).
struct Registry {
  std::mutex mutex;
  std::array<std::unique_ptr<const Encoding>, kDefinitions.size()> loaded;
};

Registry& registry() {
  static Registry instance;
  return instance;
}

}  // namespace

std::string Encoding::valid_names() {
  std::string names;
  for (const auto& d : kDefinitions) {
    if (!names.empty()) names += ", ";
    names += d.name;
  }
  return names;
}

namespace {

// The encoding `name` from the registry, loaded by `load_ranks(definition name)` the first time.
template <typename LoadRanks>
const Encoding& get_or_load(std::string_view name, LoadRanks&& load_ranks) {
  for (std::size_t i = 0; i < kDefinitions.size(); ++i) {
    const Definition& d = kDefinitions[i];
    if (d.name != name) continue;
    Registry& r = registry();
    const std::lock_guard<std::mutex> lock(r.mutex);
    if (!r.loaded[i]) {
      RankTable ranks = load_ranks(d.name);
      std::vector<Encoding::SpecialToken> specials(d.specials.begin(), d.specials.begin() + static_cast<std::ptrdiff_t>(d.special_count));
      r.loaded[i] = std::make_unique<const Encoding>(d.name, d.pattern, std::move(ranks), std::move(specials));
    }
    return *r.loaded[i];
  }
  throw Error::range(ErrorCode::UnknownEncoding,
                     "encoding must be one of " + Encoding::valid_names() + ", got \"" + std::string(name) + "\"");
}

}  // namespace

const Encoding& Encoding::get(std::string_view name, const std::string& data_dir) {
  return get_or_load(name, [&](std::string_view found) { return load_encoding_ranks(data_dir, found); });
}

const Encoding& Encoding::get(std::string_view name, const std::function<std::string()>& read_rank_file) {
  return get_or_load(name, [&](std::string_view found) { return parse_rank_file(read_rank_file(), std::string(found) + ".bin"); });
}

Encoding::Encoding(std::string_view name, Pattern pattern, RankTable ranks, std::vector<SpecialToken> specials)
    : TokenCounter(CountCache::Kind::Pieces), name_(name), pattern_(pattern), ranks_(std::move(ranks)), specials_(std::move(specials)) {
  bool known = false;
  for (const Definition& d : kDefinitions) known = known || (d.name == name && d.known_data_hash == ranks_.content_hash());
  splits_long_pieces_ = known || every_token_merges_to_itself(ranks_);
  if (pattern_ == Pattern::O200k && splits_long_pieces_) contractions_.emplace(ranks_);
}

template <typename OnOrdinary, typename OnSpecial>
void Encoding::split_specials(std::string_view text, SpecialTokens special_tokens, OnOrdinary&& ordinary, OnSpecial&& special) const {
  if (special_tokens == SpecialTokens::AsText) {
    ordinary(text);
    return;
  }
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t best = std::string_view::npos;
    const SpecialToken* found = nullptr;
    for (const auto& s : specials_) {
      const std::size_t at = text.find(s.text, start);
      if (at < best) {
        best = at;
        found = &s;
      }
    }
    if (found == nullptr) break;
    if (best > start) ordinary(text.substr(start, best - start));
    special(*found);
    start = best + found->text.size();
  }
  if (start < text.size()) ordinary(text.substr(start));
}

std::unique_ptr<CountCache> Encoding::new_cache() const { return std::make_unique<PieceCache>(); }

std::size_t Encoding::count_utf8(std::string_view text, CountCache* any_cache, SpecialTokens special) const {
  PieceCache* const cache = static_cast<PieceCache*>(any_cache);  // checked by TokenCounter
  // One piece, or one independent part of a long piece: most are whole tokens (one lookup, no
  // merge), and pieces of up to 15 bytes, nearly all of them, go through the caller's small table.
  const auto count_piece = [&](std::string_view piece) -> std::size_t {
    if (cache != nullptr && piece.size() <= PieceCache::kShortPiece) {
      std::uint32_t n = cache->find_short(piece);
      if (n == PieceCache::kMissing) {
        n = piece.size() == 1 || ranks_.rank_of(piece) != RankTable::kNoRank ? 1u
                                                                             : static_cast<std::uint32_t>(bpe_merge_count(piece, ranks_));
        cache->insert_short(piece, n);
      }
      return n;
    }
    if (piece.size() == 1 || ranks_.rank_of(piece) != RankTable::kNoRank) return 1;
    return splits_long_pieces_ && piece.size() >= kBacktrackBytes ? bpe_backtrack_count(piece, ranks_) : bpe_merge_count(piece, ranks_);
  };
  std::size_t total = 0;
  // Pieces and parts of pieces the cache does not know wait here, to be counted together
  // (bpe_count_batch overlaps their lookups): text that is mostly first-seen words spends most of
  // its time there, and the parts of long pieces (identifiers of cl100k_base, CJK sentences) go
  // there too. A part's count is its long piece's (`longs`, the piece's count so far), which goes
  // to the cache once all its parts are counted.
  static_assert(PieceCache::kShortPiece <= kBatchPieceBytes);
  constexpr std::size_t kWaiting = 32;
  constexpr std::uint8_t kOwnPiece = 0xFF;  // a piece of its own, not a long piece's part
  struct LongPiece {
    std::string_view piece;
    std::uint64_t hash;  // hash_bytes(piece), for the cache
    std::size_t count;
  };
  std::array<std::string_view, kWaiting> waiting;
  std::array<std::uint8_t, kWaiting> owner;
  std::array<std::uint32_t, kWaiting> waiting_counts;
  std::array<LongPiece, kWaiting> longs;
  std::size_t waiting_size = 0;
  std::size_t longs_size = 0;
  bool long_open = false;  // the last of `longs` still has parts to come
  const auto count_waiting = [&] {
    bpe_count_batch(std::span(waiting.data(), waiting_size), ranks_, waiting_counts.data());
    for (std::size_t i = 0; i < waiting_size; ++i) {
      if (cache != nullptr && waiting[i].size() <= PieceCache::kShortPiece) cache->insert_short(waiting[i], waiting_counts[i]);
      if (owner[i] == kOwnPiece) {
        total += waiting_counts[i];
      } else {
        longs[owner[i]].count += waiting_counts[i];
      }
    }
    waiting_size = 0;
    const std::size_t done = long_open ? longs_size - 1 : longs_size;
    for (std::size_t i = 0; i < done; ++i) {
      if (cache != nullptr) cache->insert(longs[i].piece, static_cast<std::uint32_t>(longs[i].count), longs[i].hash);
      total += longs[i].count;
    }
    if (long_open) longs[0] = longs[longs_size - 1];
    longs_size -= done;
  };
  const auto wait = [&](std::string_view piece, std::uint8_t whose) {
    waiting[waiting_size] = piece;
    owner[waiting_size++] = whose;
    if (waiting_size == kWaiting) count_waiting();
  };
  // A part of the long piece longs[longs_size - 1].
  const auto count_part = [&](std::string_view bytes) {
    std::size_t& n = longs[longs_size - 1].count;
    if (bytes.size() == 1) {
      ++n;
      return;
    }
    if (bytes.size() <= PieceCache::kShortPiece && cache != nullptr) {
      if (const std::uint32_t known = cache->find_short(bytes); known != PieceCache::kMissing) {
        n += known;
        return;
      }
    }
    if (bytes.size() <= kBatchLongPieceBytes) {
      wait(bytes, static_cast<std::uint8_t>(longs_size - 1));
    } else {
      n += count_piece(bytes);
    }
  };
  split_specials(
      text, special,
      [&](std::string_view part) {
        Pretokenizer pieces(pattern_, part);
        for (std::string_view piece; pieces.next(piece);) {
          if (pieces.contraction_length() != 0 && contractions_) [[unlikely]] {
            if (const ContractionSplit::Cut cut = contractions_->find(piece); cut.length != 0) {
              total += cut.count;
              piece.remove_suffix(cut.length);
            }
          }
          if (piece.size() <= PieceCache::kShortPiece) {
            if (piece.size() > 1 && cache != nullptr) {
              if (const std::uint32_t known = cache->find_short(piece); known != PieceCache::kMissing) {
                total += known;
                continue;
              }
            }
            if (piece.size() == 1) {
              ++total;
              continue;
            }
            wait(piece, kOwnPiece);
            continue;
          }
          // A long piece: seen before, or counted part by part.
          const std::uint64_t hash = cache != nullptr ? hash_bytes(piece) : 0;
          if (cache != nullptr) {
            if (const std::uint32_t known = cache->find(piece, hash); known != PieceCache::kMissing) {
              total += known;
              continue;
            }
          }
          if (longs_size == longs.size()) count_waiting();
          longs[longs_size++] = LongPiece{piece, hash, 0};
          long_open = true;
          if (splits_long_pieces_) {
            for_each_independent_part(piece, ranks_, count_part);
          } else {
            count_part(piece);
          }
          long_open = false;
        }
      },
      [&](const SpecialToken&) { ++total; });
  count_waiting();
  return total;
}

std::vector<std::uint32_t> Encoding::encode(std::string_view text, SpecialTokens special) const {
  if (!is_valid_utf8(text)) return encode(repair_utf8(text), special);
  std::vector<std::uint32_t> tokens;
  tokens.reserve(text.size() / 3 + 1);
  split_specials(
      text, special,
      [&](std::string_view part) {
        Pretokenizer pieces(pattern_, part);
        for (std::string_view piece; pieces.next(piece);) {
          if (splits_long_pieces_) {
            for_each_independent_part(piece, ranks_, [&](std::string_view bytes) {
              if (bytes.size() >= kBacktrackBytes && ranks_.rank_of(bytes) == RankTable::kNoRank) {
                bpe_backtrack_encode(bytes, ranks_, tokens);
              } else {
                bpe_encode(bytes, ranks_, tokens);
              }
            });
          } else {
            bpe_encode(piece, ranks_, tokens);
          }
        }
      },
      [&](const SpecialToken& s) { tokens.push_back(s.rank); });
  return tokens;
}

std::string Encoding::decode(std::span<const std::uint32_t> tokens) const {
  std::string out;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const std::uint32_t token = tokens[i];
    std::string_view bytes = ranks_.bytes_of(token);
    if (bytes.empty()) {
      for (const auto& s : specials_) {
        if (s.rank == token) bytes = s.text;
      }
    }
    if (bytes.empty()) {
      throw Error::range(ErrorCode::OutOfRange,
                         "tokens[" + std::to_string(i) + "] is not a token of " + name_ + ": " + std::to_string(token));
    }
    out.append(bytes);
  }
  return out;
}

}  // namespace ctxwin
