#include "ctxwin/tokenizer/hf/hf_tokenizer.hpp"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>

#include <nlohmann/json.hpp>

#include "ctxwin/error.hpp"
#include "ctxwin/tokenizer/hf/bpe_model.hpp"
#include "ctxwin/tokenizer/utf8.hpp"
#include "tokenizer/hf/added_vocabulary.hpp"
#include "tokenizer/hf/cache_folder.hpp"
#include "tokenizer/hf/json_fields.hpp"
#include "tokenizer/hf/json_loader.hpp"
#include "tokenizer/hf/normalizer.hpp"
#include "tokenizer/hf/pre_tokenizer.hpp"
#include "tokenizer/hf/prepared_form.hpp"

// The loader and the assembly of the pipeline: tokenizer.json's stages (normalizers, the
// pre-tokenizers, the added tokens, the BPE model) are read by their own units; this file puts them
// together and runs them in the crate's order.
namespace ctxwin {

using json = nlohmann::json;
using hf::AddedToken;
using hf::AddedTrie;
using hf::flag;
using hf::invalid;
using hf::Normalizer;
using hf::PreTokenizer;
using hf::Sink;
using hf::unsupported;

struct HfTokenizer::Impl {
  std::vector<Normalizer> normalizers;
  std::vector<PreTokenizer> pre_tokenizers;
  std::vector<AddedToken> added;
  AddedTrie raw_trie;         // added tokens matched before normalization
  AddedTrie normalized_trie;  // `normalized` added tokens, matched on normalized text
  std::unique_ptr<HfBpeModel> model;
  std::string summary;
  bool byte_fallback = false;
  std::uint64_t vocab_size = 0;   // entries of model.vocab
  std::uint64_t merge_count = 0;  // entries of model.merges
  std::string document;           // tokenizer.json without model.vocab and model.merges

  std::string normalize(std::string_view text, RegexBudget& budget) const {
    std::string out(text);
    for (const Normalizer& step : normalizers) apply(step, out, budget);
    return out;
  }

  // Runs the pipeline over valid UTF-8 `text`: on_token(id) for each added token, on_piece(piece)
  // for each piece the model tokenizes.
  template <typename OnToken, typename OnPiece>
  void run(std::string_view text, bool allow_special, OnToken&& on_token, OnPiece&& on_piece) const {
    const Sink sink = [&](std::string_view piece) { on_piece(piece); };
    // Every regex search of this text, in every stage, spends one budget.
    RegexBudget budget(text.size());
    const auto token = [&](std::uint32_t index) { on_token(added[index].id); };
    split_added(
        added, raw_trie, text, allow_special,
        [&](std::size_t start, std::size_t end) {
          const std::string_view part = text.substr(start, end - start);
          if (normalizers.empty() && normalized_trie.empty()) {
            pre_tokenize(pre_tokenizers, 0, part, start == 0, sink, budget);
            return;
          }
          const std::string normalized = normalize(part, budget);
          split_added(
              added, normalized_trie, normalized, allow_special,
              [&](std::size_t s, std::size_t e) {
                pre_tokenize(pre_tokenizers, 0, std::string_view(normalized).substr(s, e - s), start == 0 && s == 0, sink, budget);
              },
              token);
        },
        token);
  }
};

HfTokenizer::HfTokenizer(std::unique_ptr<Impl> impl) : TokenCounter(CountCache::Kind::Pieces), impl_(std::move(impl)) {}
HfTokenizer::~HfTokenizer() = default;

namespace {

// Throws on a "model" object the core does not run.
void check_model(const json& root, bool has_tables) {
  if (!root.contains("model") || !root["model"].is_object()) invalid("no \"model\" object");
  const json& model = root["model"];
  const std::string model_type = model.contains("type") && model["type"].is_string() ? model["type"].get<std::string>()
                                 : has_tables                                        ? "BPE"
                                                                                     : "(none)";
  if (model_type != "BPE") unsupported("model \"" + model_type + "\" (only BPE)");
  if (model.contains("dropout") && !model["dropout"].is_null() &&
      !(model["dropout"].is_number() && model["dropout"].get<double>() == 0.0)) {
    unsupported("BPE dropout (it makes tokens random)");
  }
  for (const char* affix : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    if (model.contains(affix) && model[affix].is_string() && !model[affix].get<std::string>().empty()) {
      unsupported(std::string("BPE ") + affix);
    }
  }
}

// The model's options from tokenizer.json's "model" object and its pre-tokenizers.
HfBpeModel::Options model_options(const json& root, const HfTokenizer::Impl& impl) {
  const json& model = root["model"];
  bool byte_level = false;
  for (std::size_t i = 0; i < impl.pre_tokenizers.size(); ++i) {
    if (impl.pre_tokenizers[i].kind != PreTokenizer::Kind::ByteLevel) continue;
    // The model reads raw bytes where the crate reads their byte-level characters: that is the
    // same only when nothing runs on the mapped text after ByteLevel.
    if (i + 1 != impl.pre_tokenizers.size()) unsupported("a pre_tokenizer after ByteLevel");
    byte_level = true;
  }
  HfBpeModel::Options options;
  options.byte_level = byte_level;
  options.byte_fallback = flag(model, "byte_fallback", false);
  options.fuse_unk = flag(model, "fuse_unk", false);
  options.ignore_merges = flag(model, "ignore_merges", false);
  if (model.contains("unk_token") && model["unk_token"].is_string()) options.unk_token = model["unk_token"].get<std::string>();
  return options;
}

void read_stages(const json& root, HfTokenizer::Impl& impl) {
  if (root.contains("normalizer")) collect_normalizers(root["normalizer"], impl.normalizers);
  if (root.contains("pre_tokenizer")) collect_pre_tokenizers(root["pre_tokenizer"], impl.pre_tokenizers);
}

// The longest added token a tokenizer.json may hold: far past any model's (tens of bytes), and a
// bound on the work of matching one at a position of a text.
constexpr std::size_t kMaxAddedTokenBytes = std::size_t{1} << 20;

void read_added_tokens(const json& root, HfTokenizer::Impl& impl) {
  if (!root.contains("added_tokens") || !root["added_tokens"].is_array()) return;
  std::size_t position = 0;
  for (const json& t : root["added_tokens"]) {
    if (!t.is_object() || !t.contains("id") || !t["id"].is_number_unsigned() || !t.contains("content") || !t["content"].is_string()) {
      invalid("added_tokens entries need \"id\" and \"content\"");
    }
    const std::size_t bytes = t["content"].get_ref<const std::string&>().size();
    if (bytes > kMaxAddedTokenBytes) {
      invalid("added_tokens[" + std::to_string(position) + "].content is " + std::to_string(bytes) +
              " bytes, more than an added token may be (" + std::to_string(kMaxAddedTokenBytes) + ")");
    }
    ++position;
    AddedToken token{t["content"].get<std::string>(),
                     t["id"].get<std::uint32_t>(),
                     flag(t, "special", false),
                     flag(t, "lstrip", false),
                     flag(t, "rstrip", false),
                     flag(t, "single_word", false),
                     flag(t, "normalized", !flag(t, "special", false))};
    const auto index = static_cast<std::uint32_t>(impl.added.size());
    if (token.normalized) {
      RegexBudget budget(token.content.size());
      impl.normalized_trie.add(impl.normalize(token.content, budget), index);
    } else {
      impl.raw_trie.add(token.content, index);
    }
    impl.added.push_back(std::move(token));
  }
}

std::string describe(const HfTokenizer::Impl& impl, std::uint64_t vocab_size, std::uint64_t merge_count) {
  const bool byte_level = impl.model->byte_level();
  return std::string("BPE") +
         (byte_level           ? " (byte-level)"
          : impl.byte_fallback ? " (byte fallback)"
                               : "") +
         ", " + std::to_string(vocab_size) + " tokens, " + std::to_string(merge_count) + " merges, " + std::to_string(impl.added.size()) +
         " added tokens";
}

std::optional<std::string> read_whole_file(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return std::nullopt;
  file.seekg(0, std::ios::end);
  const std::streamoff size = file.tellg();
  if (size < 0) return std::nullopt;
  file.seekg(0, std::ios::beg);
  std::string text(static_cast<std::size_t>(size), '\0');
  if (size > 0) file.read(text.data(), size);
  if (!file) return std::nullopt;
  return text;
}

}  // namespace

std::unique_ptr<const HfTokenizer> HfTokenizer::from_json(std::string_view text) {
  hf::LoadedJson loaded = hf::load_tokenizer_json(text);
  const json& root = loaded.document;
  auto impl = std::make_unique<Impl>();
  check_model(root, !loaded.merges.empty() || !loaded.vocab.empty());
  read_stages(root, *impl);
  const HfBpeModel::Options options = model_options(root, *impl);
  impl->byte_fallback = options.byte_fallback;
  impl->vocab_size = loaded.vocab.size();
  impl->merge_count = loaded.merges.size();
  impl->model = std::make_unique<HfBpeModel>(std::move(loaded.vocab), std::move(loaded.merges), options);
  read_added_tokens(root, *impl);
  impl->document = root.dump();
  impl->summary = describe(*impl, impl->vocab_size, impl->merge_count);
  return std::unique_ptr<const HfTokenizer>(new HfTokenizer(std::move(impl)));
}

std::uint64_t HfTokenizer::source_hash(std::string_view text) noexcept { return hf::content_hash(text); }

std::string HfTokenizer::prepared_form(std::uint64_t hash, std::uint64_t size) const {
  hf::PreparedWriter out;
  out.bytes(impl_->document);
  out.value<std::uint64_t>(impl_->vocab_size);
  out.value<std::uint64_t>(impl_->merge_count);
  impl_->model->save(out);
  return hf::seal_prepared(out.take(), hash, size);
}

std::unique_ptr<const HfTokenizer> HfTokenizer::from_prepared(std::string_view file, std::uint64_t hash, std::uint64_t size) {
  try {
    hf::PreparedReader in(hf::open_prepared(file, hash, size));
    auto impl = std::make_unique<Impl>();
    impl->document = std::string(in.bytes());
    impl->vocab_size = in.value<std::uint64_t>();
    impl->merge_count = in.value<std::uint64_t>();
    impl->model = HfBpeModel::restore(in);
    if (!in.done()) throw hf::PreparedFormError("bytes after the tables");
    // The stages around the model are rebuilt from the small rest of the document: they hold
    // compiled regexes and tries, which are quick to make and not worth a layout of their own.
    const json root = json::parse(impl->document);
    if (!root.is_object()) throw hf::PreparedFormError("a document that is not an object");
    check_model(root, true);
    read_stages(root, *impl);
    const HfBpeModel::Options options = model_options(root, *impl);
    if (options.byte_level != impl->model->byte_level()) throw hf::PreparedFormError("tables of another pre-tokenizer");
    impl->byte_fallback = options.byte_fallback;
    read_added_tokens(root, *impl);
    impl->summary = describe(*impl, impl->vocab_size, impl->merge_count);
    return std::unique_ptr<const HfTokenizer>(new HfTokenizer(std::move(impl)));
  } catch (const hf::PreparedFormError&) {
    return nullptr;
  } catch (const json::exception&) {
    return nullptr;
  } catch (const Error&) {
    return nullptr;  // a document that passed its checksum yet does not load: parse the source
  }
}

std::unique_ptr<const HfTokenizer> HfTokenizer::from_file(const std::string& path) { return load_file(path, "").tokenizer; }

HfTokenizer::FileLoad HfTokenizer::load_file(const std::string& path, const std::string& cache_dir) {
  std::optional<std::string> text = read_whole_file(path);
  if (!text || text->empty()) {
    throw Error(ErrorKind::Other, ErrorCode::TokenizerUnavailable, "cannot read tokenizer.json file \"" + path + "\"");
  }
  if (cache_dir.empty()) return {from_json(*text), FileLoad::Origin::Parsed};
  const std::uint64_t hash = source_hash(*text);
  char name[64];
  std::snprintf(name, sizeof name, "tokenizer-json-%016llx-v%u.bin", static_cast<unsigned long long>(hash), hf::kPreparedFormVersion);
  const std::filesystem::path cached = std::filesystem::path(cache_dir) / name;
  if (const std::optional<std::string> file = read_whole_file(cached)) {
    if (auto tokenizer = from_prepared(*file, hash, text->size())) return {std::move(tokenizer), FileLoad::Origin::Cache};
  }
  // Missing, stale or damaged: parse, and (re)write the prepared form for the next load. A write
  // also clears what writers killed before their rename left; a load from the cache, the common
  // case, lists no folder.
  std::unique_ptr<const HfTokenizer> tokenizer = from_json(*text);
  hf::remove_stale_temporaries(cache_dir);
  const bool written = hf::write_atomically(cached, tokenizer->prepared_form(hash, text->size()));
  return {std::move(tokenizer), written ? FileLoad::Origin::ParsedAndCached : FileLoad::Origin::Parsed};
}

std::unique_ptr<CountCache> HfTokenizer::new_cache() const { return std::make_unique<PieceCache>(); }

std::size_t HfTokenizer::count_utf8(std::string_view text, CountCache* any_cache, SpecialTokens special) const {
  PieceCache* const cache = static_cast<PieceCache*>(any_cache);  // checked by TokenCounter
  std::size_t total = 0;
  impl_->run(
      text, special == SpecialTokens::AsTokens, [&](std::uint32_t) { ++total; },
      [&](std::string_view piece) { total += impl_->model->count(piece, cache); });
  return total;
}

std::vector<std::uint32_t> HfTokenizer::encode(std::string_view text, SpecialTokens special) const {
  if (!is_valid_utf8(text)) return encode(repair_utf8(text), special);
  std::vector<std::uint32_t> ids;
  impl_->run(
      text, special == SpecialTokens::AsTokens, [&](std::uint32_t id) { ids.push_back(id); },
      [&](std::string_view piece) { impl_->model->encode(piece, ids); });
  return ids;
}

std::int64_t HfTokenizer::token_to_id(std::string_view token) const {
  for (const AddedToken& t : impl_->added) {
    if (t.content == token) return t.id;
  }
  const std::uint32_t id = impl_->model->token_id(token);
  return id == HfBpeModel::kNone ? -1 : static_cast<std::int64_t>(id);
}

std::string HfTokenizer::summary() const { return impl_->summary; }

std::size_t HfTokenizer::memory_bytes() const noexcept {
  return impl_->model->memory_bytes() + impl_->raw_trie.memory_bytes() + impl_->normalized_trie.memory_bytes() +
         impl_->added.size() * sizeof(AddedToken);
}

}  // namespace ctxwin
