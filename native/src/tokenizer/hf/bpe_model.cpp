#include "ctxwin/tokenizer/hf/bpe_model.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <mutex>
#include <cstdio>
#include <cstring>

#include "ctxwin/error.hpp"
#include "ctxwin/tokenizer/bpe/rank_table.hpp"
#include "ctxwin/tokenizer/utf8.hpp"
#include "ctxwin/tokenizer/bpe/bpe.hpp"
#include "tokenizer/bpe/backtracker.hpp"
#include "tokenizer/bpe/merge_loop.hpp"
#include "tokenizer/hf/prepared_form.hpp"

namespace ctxwin {

namespace {

// GPT-2's bytes_to_unicode: printable bytes stand for themselves, the other 68 bytes for the
// code points from U+0100 on, in byte order.
std::array<char32_t, 256> make_byte_chars() {
  std::array<char32_t, 256> chars{};
  char32_t next = 256;
  for (unsigned b = 0; b < 256; ++b) {
    const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174);
    chars[b] = printable ? static_cast<char32_t>(b) : next++;
  }
  return chars;
}

// Code point -> byte of GPT-2's alphabet (-1: not in it); the alphabet ends below U+0144.
std::array<std::int16_t, 324> make_char_bytes() {
  std::array<std::int16_t, 324> bytes{};
  bytes.fill(-1);
  const std::array<char32_t, 256> chars = make_byte_chars();
  for (unsigned b = 0; b < 256; ++b) bytes[chars[b]] = static_cast<std::int16_t>(b);
  return bytes;
}

// Writes the raw bytes a byte-level token spells to `out`; false when the token uses a character
// outside GPT-2's byte alphabet (such a token cannot come out of text; it keeps its own spelling).
bool decode_byte_level(std::string_view token, std::string& out) {
  static const std::array<std::int16_t, 324> char_bytes = make_char_bytes();
  out.clear();
  if (!is_valid_utf8(token)) return false;
  for (std::size_t i = 0; i < token.size();) {
    std::size_t length = 0;
    const char32_t cp = decode_utf8(token, i, length);
    i += length;
    if (cp >= char_bytes.size() || char_bytes[cp] < 0) return false;
    out.push_back(static_cast<char>(char_bytes[cp]));
  }
  return true;
}

// `token` in the model's spelling: its raw bytes for byte-level models (when it has them).
std::string_view model_spelling(std::string_view token, bool byte_level, std::string& buffer) {
  if (byte_level && decode_byte_level(token, buffer)) return buffer;
  return token;
}

inline std::uint32_t hash32(std::string_view bytes) noexcept { return static_cast<std::uint32_t>(hash_bytes(bytes) >> 32); }

inline std::uint64_t seam_hash(char32_t left, char32_t right) noexcept {
  std::uint64_t h = (std::uint64_t{left} << 32) | right;
  h *= 0x9E3779B97F4A7C15ull;
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  return h;
}

// Parts searched from their bytes beyond this size are not kept in a PieceCache.
constexpr std::size_t kLongestCachedPart = std::size_t{1} << 16;

// Length of the UTF-8 sequence starting with byte b (1 for stray continuation bytes).
inline std::size_t utf8_length(unsigned char b) noexcept { return b < 0x80 ? 1 : b < 0xE0 ? (b < 0xC0 ? 1 : 2) : b < 0xF0 ? 3 : 4; }

}  // namespace

HfBpeModel::HfBpeModel(std::vector<std::pair<std::string, std::uint32_t>> vocab, std::vector<std::pair<std::string, std::string>> merges,
                       Options options)
    : options_(std::move(options)) {
  std::fill(std::begin(byte_fallback_ids_), std::end(byte_fallback_ids_), kNone);
  std::fill(std::begin(byte_ids_), std::end(byte_ids_), kNone);
  std::size_t slots = 16;
  while (slots < vocab.size() * 2) slots <<= 1;
  slots_.assign(slots, Slot{});
  mask_ = slots - 1;
  std::uint32_t max_id = 0;
  // Token strings in the model's own spelling, by id, for the merges below.
  std::string buffer;
  // Ids index tables: a file claiming ids far beyond its vocabulary is not a tokenizer's.
  const std::uint64_t id_limit = std::max<std::uint64_t>(std::uint64_t{vocab.size()} * 4, 1u << 20);
  for (auto& [token, id] : vocab) {
    if (id >= id_limit) {
      throw Error(ErrorKind::Other, ErrorCode::InvalidTokenizer,
                  "tokenizer.json: model.vocab[\"" + token + "\"] = " + std::to_string(id) + " is far beyond the vocabulary's size");
    }
    max_id = std::max(max_id, id);
    if (options_.byte_level && decode_byte_level(token, buffer)) token.swap(buffer);
    insert(token, id);
  }
  vocab_count_ = vocab.size();
  if (options_.unk_token) {
    unk_id_ = token_id(*options_.unk_token);
    if (unk_id_ == kNone && !options_.byte_level) {
      throw Error(ErrorKind::Other, ErrorCode::InvalidTokenizer,
                  "tokenizer.json: model.unk_token \"" + *options_.unk_token + "\" is not in model.vocab");
    }
  }
  for (unsigned b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    byte_fallback_ids_[b] = token_id(name);
    const char byte = static_cast<char>(b);
    if (options_.byte_level || b < 0x80) byte_ids_[b] = token_id(std::string_view(&byte, 1));
  }
  if (!options_.byte_level) {
    bmp_ids_.assign(0x10000, kNone);
    for (const auto& [token, id] : vocab) {
      if (token.empty() || token.size() > 3) continue;
      std::size_t length = 0;
      if (utf8_length(static_cast<unsigned char>(token[0])) != token.size() || !is_valid_utf8(token)) continue;
      const char32_t cp = decode_utf8(token, 0, length);
      if (cp < 0x10000) bmp_ids_[cp] = token_id(token);
    }
  }

  // Merges: ids, rank = position (a later duplicate wins, as in the crate's map), grouped by left
  // token with a counting sort: a comparison sort of half a million merges is most of a load.
  struct Flat {
    std::uint32_t left;
    Merge merge;
  };
  std::vector<Flat> flat;
  flat.reserve(merges.size());
  seams_.assign((std::size_t{1} << kSeamBits) / 64, 0);
  std::string left_buffer;
  std::string right_buffer;
  std::string joined;
  // Three lookups per merge, each a cache miss in a table of megabytes: start loading the slots of
  // a merge some way ahead while this one is resolved.
  constexpr std::size_t kAhead = 16;
  std::string ahead_left;
  std::string ahead_right;
  std::string ahead_joined;
  const auto prefetch = [&](std::string_view bytes) { __builtin_prefetch(&slots_[hash32(bytes) & mask_]); };
  for (std::size_t rank = 0; rank < merges.size(); ++rank) {
    if (rank + kAhead < merges.size()) {
      const auto& [l, r] = merges[rank + kAhead];
      const std::string_view sl = model_spelling(l, options_.byte_level, ahead_left);
      const std::string_view sr = model_spelling(r, options_.byte_level, ahead_right);
      ahead_joined.assign(sl);
      ahead_joined.append(sr);
      prefetch(sl);
      prefetch(sr);
      prefetch(ahead_joined);
    }
    const auto& [left_text, right_text] = merges[rank];
    const std::string_view left = model_spelling(left_text, options_.byte_level, left_buffer);
    const std::string_view right = model_spelling(right_text, options_.byte_level, right_buffer);
    const std::uint32_t a = token_id(left);
    const std::uint32_t b = token_id(right);
    joined.assign(left);
    joined.append(right);
    const std::uint32_t result = token_id(joined);
    if (a == kNone || b == kNone || result == kNone || left.empty() || right.empty()) {
      const std::string missing = a == kNone ? left_text : b == kNone ? right_text : left_text + right_text;
      throw Error(ErrorKind::Other, ErrorCode::InvalidTokenizer,
                  "tokenizer.json: merges[" + std::to_string(rank) + "] needs the token \"" + missing + "\", which is not in model.vocab");
    }
    flat.push_back({a, Merge{b, static_cast<std::uint32_t>(rank), result}});
    // The seam of this merge: the last unit of the left token against the first of the right.
    char32_t last = 0;
    char32_t first = 0;
    if (options_.byte_level) {
      last = static_cast<unsigned char>(left.back());
      first = static_cast<unsigned char>(right.front());
    } else {
      std::size_t at = left.size() - 1;
      while (at > 0 && (static_cast<unsigned char>(left[at]) & 0xC0) == 0x80) --at;
      std::size_t length = 0;
      last = is_valid_utf8(left.substr(at)) ? decode_utf8(left, at, length) : 0xFFFFFFFF;
      first = is_valid_utf8(right.substr(0, std::min(right.size(), utf8_length(static_cast<unsigned char>(right[0])))))
                  ? decode_utf8(right, 0, length)
                  : 0xFFFFFFFF;
    }
    const std::uint64_t bit = seam_hash(last, first) >> (64 - kSeamBits);
    seams_[bit >> 6] |= std::uint64_t{1} << (bit & 63);
  }
  std::vector<std::uint32_t> offsets(static_cast<std::size_t>(max_id) + 2, 0);
  for (const Flat& f : flat) ++offsets[f.left + 1];
  for (std::size_t i = 1; i < offsets.size(); ++i) offsets[i] += offsets[i - 1];
  std::vector<Merge> grouped(flat.size());
  {
    std::vector<std::uint32_t> next(offsets.begin(), offsets.end() - 1);
    for (const Flat& f : flat) grouped[next[f.left]++] = f.merge;  // in rank order within a group
  }
  merges_by_left_.assign(offsets.size(), 0);
  merges_.reserve(grouped.size());
  for (std::size_t left = 0; left + 1 < offsets.size(); ++left) {
    const auto first = grouped.begin() + offsets[left];
    const auto last = grouped.begin() + offsets[left + 1];
    std::stable_sort(first, last, [](const Merge& x, const Merge& y) { return x.right < y.right; });
    for (auto it = first; it != last; ++it) {
      if (it + 1 != last && (it + 1)->right == it->right) continue;  // a later duplicate follows
      merges_.push_back(*it);
    }
    merges_by_left_[left + 1] = static_cast<std::uint32_t>(merges_.size());
  }
  build_byte_pairs();
  build_unit_pairs();
}

void HfBpeModel::build_unit_pairs() {
  pair_unit_of_id_.clear();
  unit_pairs_.clear();
  if (options_.byte_level || bmp_ids_.size() != 0x10000 || merges_by_left_.size() < 2) return;
  std::array<std::uint32_t, kPairUnits> ids{};
  for (unsigned c = 0; c < 128; ++c) ids[c] = byte_ids_[c];
  ids[128] = bmp_ids_[0x2581];
  // Ids past the merge index's are in no merge: they keep kNotPairUnit, a merge found by search.
  pair_unit_of_id_.assign(merges_by_left_.size() - 1, kNotPairUnit);
  for (unsigned u = 0; u < kPairUnits; ++u) {
    if (ids[u] >= pair_unit_of_id_.size()) continue;
    if (pair_unit_of_id_[ids[u]] != kNotPairUnit) {  // one id for two units: a damaged table
      pair_unit_of_id_.clear();
      return;
    }
    pair_unit_of_id_[ids[u]] = static_cast<std::uint8_t>(u);
  }
  unit_pairs_.assign(kPairUnits * kPairUnits, kNone);
  for (unsigned u = 0; u < kPairUnits; ++u) {
    if (ids[u] >= pair_unit_of_id_.size()) continue;
    for (std::uint32_t m = merges_by_left_[ids[u]]; m < merges_by_left_[ids[u] + 1]; ++m) {
      const std::uint32_t right = merges_[m].right;
      if (right < pair_unit_of_id_.size() && pair_unit_of_id_[right] != kNotPairUnit)
        unit_pairs_[u * kPairUnits + pair_unit_of_id_[right]] = m;
    }
  }
}

void HfBpeModel::build_byte_pairs() {
  byte_pairs_.clear();
  if (!options_.byte_level) return;
  // The byte of each byte token, by id, sorted: a right token's byte is a binary search away.
  std::array<std::pair<std::uint32_t, unsigned>, 256> byte_of{};
  for (unsigned b = 0; b < 256; ++b) {
    if (byte_ids_[b] == kNone) return;  // a byte without a token: initial symbols are not one a byte
    byte_of[b] = {byte_ids_[b], b};
  }
  std::sort(byte_of.begin(), byte_of.end());
  for (unsigned b = 1; b < 256; ++b) {
    if (byte_of[b].first == byte_of[b - 1].first) return;  // two bytes, one id: a damaged table
  }
  byte_pairs_.assign(std::size_t{256} * 256, kNone);
  for (unsigned a = 0; a < 256; ++a) {
    const std::uint32_t left = byte_ids_[a];
    if (std::size_t{left} + 1 >= merges_by_left_.size()) continue;
    for (std::uint32_t m = merges_by_left_[left]; m < merges_by_left_[left + 1]; ++m) {
      const auto it = std::lower_bound(byte_of.begin(), byte_of.end(), std::pair<std::uint32_t, unsigned>{merges_[m].right, 0});
      if (it != byte_of.end() && it->first == merges_[m].right) byte_pairs_[(a << 8) | it->second] = m;
    }
  }
}

const HfBpeModel::SearchIndex& HfBpeModel::search_index() const {
  std::call_once(search_index_once_, [this] {
    search_index_ = build_search_index();
    search_index_built_.store(true, std::memory_order_release);
  });
  return search_index_;
}

HfBpeModel::SearchIndex HfBpeModel::build_search_index() const {
  SearchIndex index;
  std::fill(std::begin(index.longest_from), std::end(index.longest_from), 1u);
  // The search reads a token's length from its id and joins neighbours by their bytes in the
  // text: each id must name one spelling. Byte-level models: every byte must be a token, and
  // nothing may fall back. Code-point models: every unit outside the vocabulary must fall back to
  // its bytes' tokens (never to the unknown token), and no merge may take a byte token, so that
  // such a unit parts the text into runs of known units that merge on their own.
  bool searchable = false;
  if (options_.byte_level) {
    searchable = !options_.byte_fallback;
    for (unsigned b = 0; b < 256 && searchable; ++b) searchable = byte_ids_[b] != kNone;
  } else if (options_.byte_fallback) {
    searchable = true;
    for (unsigned b = 0; b < 256 && searchable; ++b) searchable = byte_fallback_ids_[b] != kNone;
    if (searchable) {
      std::vector<std::uint32_t> fallback(std::begin(byte_fallback_ids_), std::end(byte_fallback_ids_));
      std::sort(fallback.begin(), fallback.end());
      for (std::uint32_t id : fallback) {
        if (std::size_t{id} + 1 < merges_by_left_.size() && merges_by_left_[id + 1] != merges_by_left_[id]) searchable = false;
      }
      for (std::size_t i = 0; i < merges_.size() && searchable; ++i) {
        searchable = !std::binary_search(fallback.begin(), fallback.end(), merges_[i].right);
      }
    }
  }
  if (!searchable) return index;
  std::uint32_t max_id = 0;
  for (const Slot& slot : slots_) {
    if (slot.id != kNone) max_id = std::max(max_id, slot.id);
  }
  // The table is indexed by id: ids far beyond the vocabulary (a damaged prepared form) would ask
  // for gigabytes. The loader refuses such ids in a tokenizer.json by the same rule.
  if (std::uint64_t{max_id} >= std::max<std::uint64_t>(std::uint64_t{vocab_count_} * 4, 1u << 20)) return index;
  constexpr std::uint16_t kUnseen = 0;
  index.token_lengths.assign(static_cast<std::size_t>(max_id) + 1, kUnseen);
  for (const Slot& slot : slots_) {
    if (slot.id == kNone || slot.length == 0) continue;
    if (slot.length > 0xFFFFu || index.token_lengths[slot.id] != kUnseen) {
      searchable = false;  // a token too long to index, or an id spelled two ways
      break;
    }
    index.token_lengths[slot.id] = static_cast<std::uint16_t>(slot.length);
    const auto first = static_cast<unsigned char>(arena_[slot.offset]);
    index.longest_from[first] = std::max(index.longest_from[first], slot.length);
  }
  // Each unit's token must be the vocabulary's token of that one unit (a prepared form holds the
  // unit tables apart from the vocabulary): the search takes its length from it.
  if (options_.byte_level) {
    for (unsigned b = 0; b < 256 && searchable; ++b) {
      const char byte = static_cast<char>(b);
      searchable = token_id(std::string_view(&byte, 1)) == byte_ids_[b];
    }
  } else {
    std::string unit;
    for (std::size_t cp = 0; cp < bmp_ids_.size() && searchable; ++cp) {
      // A unit without a token (kNone) falls back to bytes in the merge loop and the search alike.
      const std::uint32_t id = cp < 0x80 ? byte_ids_[cp] : bmp_ids_[cp];
      if (id == kNone) continue;
      unit.clear();
      if (cp < 0xD800 || cp > 0xDFFF) append_utf8(unit, static_cast<char32_t>(cp));
      searchable = !unit.empty() && token_id(unit) == id;
    }
  }
  index.searchable = searchable;
  if (!searchable) index.token_lengths = {};
  return index;
}

void HfBpeModel::insert(std::string_view bytes, std::uint32_t id) {
  const std::uint32_t h = hash32(bytes);
  for (std::uint64_t i = h & mask_;; i = (i + 1) & mask_) {
    Slot& slot = slots_[i];
    if (slot.id == kNone) {
      slot = Slot{h, static_cast<std::uint32_t>(arena_.size()), static_cast<std::uint32_t>(bytes.size()), id};
      arena_.append(bytes);
      return;
    }
    if (slot.hash == h && slot.length == bytes.size() && std::memcmp(arena_.data() + slot.offset, bytes.data(), bytes.size()) == 0) {
      slot.id = id;  // a repeated key: the last one wins, as in a JSON object
      return;
    }
  }
}

std::uint32_t HfBpeModel::token_id(std::string_view bytes) const noexcept {
  const std::uint32_t h = hash32(bytes);
  for (std::uint64_t i = h & mask_;; i = (i + 1) & mask_) {
    const Slot& slot = slots_[i];
    if (slot.id == kNone) return kNone;
    if (slot.hash == h && slot.length == bytes.size() && std::memcmp(arena_.data() + slot.offset, bytes.data(), bytes.size()) == 0) {
      return slot.id;
    }
  }
}

void HfBpeModel::save(hf::PreparedWriter& out) const {
  out.value<std::uint8_t>(options_.byte_level);
  out.value<std::uint8_t>(options_.byte_fallback);
  out.value<std::uint8_t>(options_.fuse_unk);
  out.value<std::uint8_t>(options_.ignore_merges);
  out.value<std::uint8_t>(options_.unk_token.has_value());
  out.bytes(options_.unk_token.value_or(std::string()));
  out.value<std::uint64_t>(vocab_count_);
  out.value<std::uint32_t>(unk_id_);
  out.array(byte_fallback_ids_, 256);
  out.array(byte_ids_, 256);
  out.bytes(arena_);
  out.array(slots_);
  out.array(merges_by_left_);
  out.array(merges_);
  out.array(seams_);
  out.array(bmp_ids_);
}

std::unique_ptr<HfBpeModel> HfBpeModel::restore(hf::PreparedReader& in) {
  using hf::PreparedFormError;
  const auto flag = [&in] {
    const auto v = in.value<std::uint8_t>();
    if (v > 1) throw PreparedFormError("a flag that is neither 0 nor 1");
    return v == 1;
  };
  // Limits far above any real tokenizer's, below what would let a damaged size ask for gigabytes.
  constexpr std::uint64_t kMaxTable = std::uint64_t{1} << 26;
  std::unique_ptr<HfBpeModel> model(new HfBpeModel());
  Options& options = model->options_;
  options.byte_level = flag();
  options.byte_fallback = flag();
  options.fuse_unk = flag();
  options.ignore_merges = flag();
  const bool has_unk = flag();
  const std::string_view unk = in.bytes();
  if (has_unk) options.unk_token = std::string(unk);
  model->vocab_count_ = static_cast<std::size_t>(in.value<std::uint64_t>());
  model->unk_id_ = in.value<std::uint32_t>();
  for (std::uint32_t* table : {model->byte_fallback_ids_, model->byte_ids_}) {
    const std::vector<std::uint32_t> ids = in.array<std::uint32_t>(256);
    if (ids.size() != 256) throw PreparedFormError("a byte table without 256 entries");
    std::copy(ids.begin(), ids.end(), table);
  }
  model->arena_ = std::string(in.bytes());
  // Slots hold 32-bit offsets (on 32-bit targets, such as WebAssembly, no arena is this large).
  if (static_cast<std::uint64_t>(model->arena_.size()) > std::uint64_t{0xFFFFFFFFu}) throw PreparedFormError("a token arena over 4 GB");
  model->slots_ = in.array<Slot>(kMaxTable);
  const std::size_t slots = model->slots_.size();
  if (slots < 16 || !std::has_single_bit(slots)) throw PreparedFormError("a hash table whose size is not a power of two");
  model->mask_ = slots - 1;
  std::size_t used = 0;
  for (const Slot& slot : model->slots_) {
    if (slot.id == kNone) continue;
    ++used;
    if (std::uint64_t{slot.offset} + slot.length > model->arena_.size()) throw PreparedFormError("a token past the arena's end");
  }
  // A lookup probes until an empty slot: a full table would never end one.
  if (used >= slots) throw PreparedFormError("a hash table without an empty slot");
  if (model->vocab_count_ > used) throw PreparedFormError("more tokens than the hash table holds");
  model->merges_by_left_ = in.array<std::uint32_t>(kMaxTable);
  model->merges_ = in.array<Merge>(kMaxTable);
  const std::vector<std::uint32_t>& offsets = model->merges_by_left_;
  if (offsets.empty() || offsets.front() != 0 || offsets.back() != model->merges_.size() ||
      !std::is_sorted(offsets.begin(), offsets.end())) {
    throw PreparedFormError("a merge index that does not cover the merges in order");
  }
  // The merge loop packs a rank with a position into one int32 key.
  for (const Merge& merge : model->merges_) {
    if (merge.rank >= bpe::kShortRankLimit) throw PreparedFormError("a merge rank beyond any tokenizer's");
  }
  model->seams_ = in.array<std::uint64_t>(kMaxTable);
  if (model->seams_.size() != (std::size_t{1} << kSeamBits) / 64) throw PreparedFormError("a seam table of the wrong size");
  model->bmp_ids_ = in.array<std::uint32_t>(0x10000);
  // Code-point models look every unit of the Basic Multilingual Plane up there.
  if (model->bmp_ids_.size() != (options.byte_level ? 0 : 0x10000)) throw PreparedFormError("a unit table of the wrong size");
  model->build_byte_pairs();
  model->build_unit_pairs();
  return model;
}

std::size_t HfBpeModel::memory_bytes() const noexcept {
  return arena_.capacity() + slots_.capacity() * sizeof(Slot) + merges_.capacity() * sizeof(Merge) +
         merges_by_left_.capacity() * sizeof(std::uint32_t) + seams_.capacity() * sizeof(std::uint64_t) +
         bmp_ids_.capacity() * sizeof(std::uint32_t) + byte_pairs_.capacity() * sizeof(std::uint32_t) + pair_unit_of_id_.capacity() +
         unit_pairs_.capacity() * sizeof(std::uint32_t) +
         (search_index_built_.load(std::memory_order_acquire) ? search_index_.token_lengths.capacity() * sizeof(std::uint16_t) : 0);
}

const HfBpeModel::Merge* HfBpeModel::find_merge(std::uint32_t left, std::uint32_t right) const noexcept {
  if (static_cast<std::size_t>(left) + 1 >= merges_by_left_.size()) return nullptr;
  const Merge* first = merges_.data() + merges_by_left_[left];
  const Merge* last = merges_.data() + merges_by_left_[left + 1];
  while (last - first > 8) {
    const Merge* mid = first + (last - first) / 2;
    if (mid->right < right) {
      first = mid + 1;
    } else {
      last = mid + 1;
    }
  }
  for (; first < last; ++first) {
    if (first->right == right) return first;
  }
  return nullptr;
}

std::uint32_t HfBpeModel::unit_id(std::string_view unit) const noexcept {
  if (unit.size() == 1) {
    const auto b = static_cast<unsigned char>(unit[0]);
    if (options_.byte_level || b < 0x80) return byte_ids_[b];
  }
  if (!options_.byte_level && unit.size() <= 3) {
    std::size_t length = 0;
    return bmp_ids_[decode_utf8(unit, 0, length)];
  }
  return token_id(unit);
}

bool HfBpeModel::seam_possible(char32_t left, char32_t right) const noexcept {
  const std::uint64_t bit = seam_hash(left, right) >> (64 - kSeamBits);
  return (seams_[bit >> 6] >> (bit & 63)) & 1;
}

void HfBpeModel::initial_symbols(std::string_view piece, std::vector<std::uint32_t>& symbols) const {
  symbols.clear();
  bool pending_unk = false;
  for (std::size_t i = 0; i < piece.size();) {
    const std::size_t length = options_.byte_level ? 1 : std::min(utf8_length(static_cast<unsigned char>(piece[i])), piece.size() - i);
    const std::string_view unit = piece.substr(i, length);
    i += length;
    const std::uint32_t id = unit_id(unit);
    if (id != kNone) {
      if (pending_unk) symbols.push_back(unk_id_);
      pending_unk = false;
      symbols.push_back(id);
      continue;
    }
    if (options_.byte_fallback) {
      bool all = true;
      for (char c : unit) all = all && byte_fallback_ids_[static_cast<unsigned char>(c)] != kNone;
      if (all) {
        for (char c : unit) symbols.push_back(byte_fallback_ids_[static_cast<unsigned char>(c)]);
        continue;
      }
    }
    if (unk_id_ != kNone) {
      if (pending_unk && !options_.fuse_unk) symbols.push_back(unk_id_);
      pending_unk = true;
    }
  }
  if (pending_unk) symbols.push_back(unk_id_);
}

// The model's "merges" as the merge loop's parameter: a merge makes the token of the two symbols'
// joined spelling, and its rank is its place in the list.
struct HfBpeModel::ModelMerges {
  const HfBpeModel& model;
  static constexpr bool token_is_rank() { return false; }
  std::uint32_t rank_limit() const noexcept { return static_cast<std::uint32_t>(model.merges_.size()); }
  bpe::PairMerge merge(std::uint32_t left, std::uint32_t right) const noexcept {
    const Merge* m = model.find_merge(left, right);
    return m == nullptr ? bpe::PairMerge{} : bpe::PairMerge{m->rank, m->result};
  }
  bpe::PairMerge first(std::size_t, std::uint32_t left, std::uint32_t right) const noexcept { return merge(left, right); }
};

// The same over a part whose symbols start as its bytes' tokens: the first merges come from the
// byte pair table.
struct HfBpeModel::BytePairMerges : HfBpeModel::ModelMerges {
  const unsigned char* bytes;
  bpe::PairMerge first(std::size_t k, std::uint32_t, std::uint32_t) const noexcept {
    const std::uint32_t m = model.byte_pairs_[(std::size_t{bytes[k]} << 8) | bytes[k + 1]];
    return m == kNone ? bpe::PairMerge{} : bpe::PairMerge{model.merges_[m].rank, model.merges_[m].result};
  }
};

// The same for a code-point model's part: a first merge between two pair units comes from their
// table, any other from the search.
struct HfBpeModel::UnitPairMerges : HfBpeModel::ModelMerges {
  bpe::PairMerge first(std::size_t, std::uint32_t left, std::uint32_t right) const noexcept {
    const std::vector<std::uint8_t>& unit_of = model.pair_unit_of_id_;
    if (left < unit_of.size() && right < unit_of.size() && unit_of[left] != kNotPairUnit && unit_of[right] != kNotPairUnit) {
      const std::uint32_t m = model.unit_pairs_[unit_of[left] * kPairUnits + unit_of[right]];
      return m == kNone ? bpe::PairMerge{} : bpe::PairMerge{model.merges_[m].rank, model.merges_[m].result};
    }
    return merge(left, right);
  }
};

std::size_t HfBpeModel::merge_symbols(std::vector<std::uint32_t>& symbols) const {
  const std::size_t n = bpe::merge_symbols(symbols.data(), symbols.size(), ModelMerges{*this});
  symbols.resize(n);
  return n;
}

// A model as the backtracking search's vocabulary: it offers a token only when merging the
// token's own units gives it back (a token no merge makes from its units never comes out of the
// merge loop), which is checked once per token and remembered. A code-point model's token must
// also be whole characters: a text's bytes that spell it then end on a character's boundary.
class HfBpeModel::SearchVocabulary {
 public:
  explicit SearchVocabulary(const HfBpeModel& model) : model_(model), index_(model.search_index()) {}

  std::uint32_t byte_token(unsigned char byte) const noexcept { return model_.byte_ids_[byte]; }
  std::size_t length_of(std::uint32_t token) const noexcept { return index_.token_lengths[token]; }
  std::size_t longest_token_from(unsigned char byte) const noexcept { return index_.longest_from[byte]; }

  std::uint32_t token_of(std::string_view bytes) {
    const std::uint32_t id = model_.token_id(bytes);
    if (id == kNone) return bpe::kNoToken;
    const std::uint64_t key = std::uint64_t{id} + 1;
    Remembered& slot = memo_[(key * 0x9E3779B97F4A7C15ull) >> (64 - kMemoBits)];
    if (slot.key != key) {
      bool reachable = model_.options_.byte_level || is_valid_utf8(bytes);
      if (reachable) {
        model_.initial_symbols(bytes, symbols_);
        model_.merge_symbols(symbols_);
        reachable = symbols_.size() == 1 && symbols_[0] == id;
      }
      slot = {key, reachable};
    }
    return slot.reachable ? id : bpe::kNoToken;
  }

  bool merges_into(std::string_view joined, std::uint32_t left, std::uint32_t right) {
    model_.initial_symbols(joined, symbols_);
    model_.merge_symbols(symbols_);
    return symbols_.size() == 2 && symbols_[0] == left && symbols_[1] == right;
  }

 private:
  struct Remembered {
    std::uint64_t key = 0;
    bool reachable = false;
  };
  static constexpr unsigned kMemoBits = 12;

  const HfBpeModel& model_;
  const SearchIndex& index_;
  std::vector<std::uint32_t> symbols_;
  std::vector<Remembered> memo_ = std::vector<Remembered>(std::size_t{1} << kMemoBits);
};

// A code-point model's vocabulary for the search: units are characters, each a token (the search
// only sees runs of units in the vocabulary).
class HfBpeModel::CharacterSearchVocabulary : public HfBpeModel::SearchVocabulary {
 public:
  explicit CharacterSearchVocabulary(const HfBpeModel& model) : SearchVocabulary(model), model_(model) {}

  std::size_t unit_length(unsigned char first) const noexcept { return utf8_length(first); }
  std::uint32_t unit_token(std::string_view unit) const noexcept { return model_.unit_id(unit); }

 private:
  const HfBpeModel& model_;
};

std::size_t HfBpeModel::search_known_units(std::string_view run, std::vector<std::uint32_t>* out) const {
  if (run.size() < kBacktrackBytes) return merge_part(run, out);
  CharacterSearchVocabulary vocabulary(*this);
  return bpe::search_piece(run, vocabulary, out);
}

std::size_t HfBpeModel::search_characters(std::string_view part, std::vector<std::uint32_t>* out) const {
  // A unit outside the vocabulary becomes its bytes' tokens, which no merge takes: the runs of
  // known units on either side merge as they would alone, so each is searched on its own.
  std::size_t total = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < part.size();) {
    const std::size_t length = utf8_length(static_cast<unsigned char>(part[i]));
    const std::string_view unit = part.substr(i, length);
    if (unit_id(unit) != kNone) {
      i += length;
      continue;
    }
    if (i > start) total += search_known_units(part.substr(start, i - start), out);
    for (char c : unit) {
      if (out != nullptr) out->push_back(byte_fallback_ids_[static_cast<unsigned char>(c)]);
    }
    total += unit.size();
    i += length;
    start = i;
  }
  if (part.size() > start) total += search_known_units(part.substr(start), out);
  return total;
}

std::size_t HfBpeModel::encode_part(std::string_view part, std::vector<std::uint32_t>* out) const {
  if (part.size() >= kBacktrackBytes && search_index().searchable) {
    if (!options_.byte_level) {
      // The search needs whole characters; text from a caller is valid UTF-8, other bytes merge.
      if (is_valid_utf8(part)) return search_characters(part, out);
      return merge_part(part, out);
    }
    SearchVocabulary vocabulary(*this);
    return bpe::search_piece(part, vocabulary, out);
  }
  return merge_part(part, out);
}

std::size_t HfBpeModel::merge_part(std::string_view part, std::vector<std::uint32_t>* out) const {
  if (!byte_pairs_.empty() && part.size() <= bpe::kShortSymbols && merges_.size() <= bpe::kShortRankLimit) {
    // Byte-level, every byte a token: the symbols are the bytes' tokens, in a buffer on the stack
    // (a vector per part was an allocation for each first-seen piece), and the first merges come
    // from the byte pair table.
    std::array<std::uint32_t, bpe::kShortSymbols> symbols;
    const auto* bytes = reinterpret_cast<const unsigned char*>(part.data());
    for (std::size_t i = 0; i < part.size(); ++i) symbols[i] = byte_ids_[bytes[i]];
    // The short loop alone (what merge_symbols picks here): no second copy of the long one.
    const std::size_t n =
        part.size() <= 1 ? part.size() : bpe::detail::merge_short(symbols.data(), part.size(), BytePairMerges{{*this}, bytes});
    if (out != nullptr) out->insert(out->end(), symbols.begin(), symbols.begin() + static_cast<std::ptrdiff_t>(n));
    return n;
  }
  std::vector<std::uint32_t> symbols;
  symbols.reserve(part.size());
  initial_symbols(part, symbols);
  std::size_t n = symbols.size();
  if (!unit_pairs_.empty() && n <= bpe::kShortSymbols && merges_.size() <= bpe::kShortRankLimit) {
    // The short loop alone, as for byte-level parts: no second copy of the long one.
    n = n <= 1 ? n : bpe::detail::merge_short(symbols.data(), n, UnitPairMerges{{*this}});
    symbols.resize(n);
  } else {
    n = merge_symbols(symbols);
  }
  if (out != nullptr) out->insert(out->end(), symbols.begin(), symbols.end());
  return n;
}

template <typename Part>
void HfBpeModel::for_each_part(std::string_view piece, Part&& part) const {
  // Short pieces are merged whole: cutting them saves nothing.
  if (piece.size() <= 32) {
    part(piece);
    return;
  }
  std::size_t start = 0;
  char32_t previous = 0;
  bool previous_known = false;
  for (std::size_t i = 0; i < piece.size();) {
    const std::size_t length = options_.byte_level ? 1 : std::min(utf8_length(static_cast<unsigned char>(piece[i])), piece.size() - i);
    const std::string_view unit = piece.substr(i, length);
    const bool known = unit_id(unit) != kNone;
    char32_t cp = static_cast<unsigned char>(unit[0]);
    if (!options_.byte_level && length > 1) {
      std::size_t ignored = 0;
      cp = decode_utf8(unit, 0, ignored);
    }
    if (i > start && known && previous_known && !seam_possible(previous, cp)) {
      part(piece.substr(start, i - start));
      start = i;
    }
    previous = cp;
    previous_known = known;
    i += length;
  }
  part(piece.substr(start));
}

std::size_t HfBpeModel::count_part(std::string_view part, PieceCache* cache) const {
  // The cache keeps a copy of each part: a part of megabytes would cost its size again, for a
  // count the search makes in linear time anyway.
  if (part.size() > kLongestCachedPart && search_index().searchable) cache = nullptr;
  const bool short_piece = part.size() <= PieceCache::kShortPiece;
  if (cache != nullptr) {
    const std::uint32_t known = short_piece ? cache->find_short(part) : cache->find(part);
    if (known != PieceCache::kMissing) return known;
  }
  const std::size_t n = encode_part(part, nullptr);
  if (cache != nullptr) {
    if (short_piece) {
      cache->insert_short(part, static_cast<std::uint32_t>(n));
    } else {
      cache->insert(part, static_cast<std::uint32_t>(n));
    }
  }
  return n;
}

std::size_t HfBpeModel::count(std::string_view piece, PieceCache* cache) const {
  if (piece.empty()) return 0;
  if (piece.size() <= PieceCache::kShortPiece && cache != nullptr) {
    // Most pieces are short and seen before: one lookup in the cache's small table answers them,
    // before the probe of the vocabulary's hash table that ignore_merges asks for (Llama 3 sets
    // it; the probe per piece was a tenth of its time). A short piece is one part, cached whole.
    if (const std::uint32_t known = cache->find_short(piece); known != PieceCache::kMissing) return known;
    const std::size_t n = options_.ignore_merges && token_id(piece) != kNone ? 1 : encode_part(piece, nullptr);
    cache->insert_short(piece, static_cast<std::uint32_t>(n));
    return n;
  }
  if (options_.ignore_merges && token_id(piece) != kNone) return 1;
  std::size_t total = 0;
  for_each_part(piece, [&](std::string_view part) { total += count_part(part, cache); });
  return total;
}

void HfBpeModel::encode(std::string_view piece, std::vector<std::uint32_t>& out) const {
  if (piece.empty()) return;
  if (options_.ignore_merges) {
    if (const std::uint32_t id = token_id(piece); id != kNone) {
      out.push_back(id);
      return;
    }
  }
  for_each_part(piece, [&](std::string_view part) { encode_part(part, &out); });
}

void HfBpeModel::encode_by_merges(std::string_view piece, std::vector<std::uint32_t>& out) const {
  if (piece.empty()) return;
  if (options_.ignore_merges) {
    if (const std::uint32_t id = token_id(piece); id != kNone) {
      out.push_back(id);
      return;
    }
  }
  std::vector<std::uint32_t> symbols;
  for_each_part(piece, [&](std::string_view part) {
    initial_symbols(part, symbols);
    merge_symbols(symbols);
    out.insert(out.end(), symbols.begin(), symbols.end());
  });
}

}  // namespace ctxwin
