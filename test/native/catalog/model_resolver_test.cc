#include "ctxwin/catalog/model_resolver.hpp"

#include <gtest/gtest.h>

#include <string>

#include "ctxwin/catalog/models_dev_json.hpp"
#include "ctxwin/error.hpp"

namespace ctxwin {
namespace {

// "provider/id" of the entry `id` resolves to, or "(unknown)".
std::string entry_of(const ModelResolver& resolver, std::string_view id) {
  const auto found = resolver.resolve(id);
  return found ? found->model->provider + "/" + found->model->id : "(unknown)";
}

const ModelResolver& builtin() {
  static const ModelResolver resolver;
  return resolver;
}

TEST(ModelResolver, TheSpecificationsRowsAnswerForTheirNames) {
  const auto opus = builtin().resolve("claude-3-opus");
  ASSERT_TRUE(opus);
  EXPECT_EQ(opus->model->context_window, 200000u);
  EXPECT_EQ(opus->model->max_output, 4096u);
  EXPECT_EQ(opus->model->source, ModelSource::Compatibility);
  // Priced by the maker's catalog entry of the same model.
  ASSERT_NE(opus->priced, nullptr);
  EXPECT_EQ(opus->priced->id, "claude-3-opus-20240229");
  EXPECT_EQ(builtin().resolve("gpt-4")->model->max_output, 4096u);
  EXPECT_EQ(builtin().resolve("openrouter/openai/gpt-4")->model->source, ModelSource::Compatibility);
  // An id at a provider gets that provider's entry.
  EXPECT_EQ(entry_of(builtin(), "anthropic/claude-3-opus"), "anthropic/claude-3-opus-20240229");
  EXPECT_EQ(builtin().resolve("openai/gpt-4")->model->max_output, 8192u);
  // A more specific id gets the catalog's entry.
  EXPECT_EQ(builtin().resolve("claude-3-opus-20240229")->model->source, ModelSource::Catalog);
  EXPECT_EQ(entry_of(builtin(), "mistral-large-latest"), "mistral/mistral-large-latest");
}

TEST(ModelResolver, ProvidersOwnIds) {
  EXPECT_EQ(entry_of(builtin(), "anthropic.claude-3-7-sonnet-20250219-v1:0"), "amazon-bedrock/anthropic.claude-3-7-sonnet-20250219-v1:0");
  EXPECT_EQ(entry_of(builtin(), "us.anthropic.claude-3-7-sonnet-20250219-v1:0"),
            "amazon-bedrock/anthropic.claude-3-7-sonnet-20250219-v1:0");
  EXPECT_EQ(entry_of(builtin(), "claude-opus-4@20250514"), "google-vertex-anthropic/claude-opus-4@20250514");
  EXPECT_EQ(entry_of(builtin(), "openrouter/qwen/qwen3-32b:free"), "openrouter/qwen/qwen3-32b:free");
  EXPECT_EQ(builtin().resolve("openrouter/qwen/qwen3-32b:free")->match, MatchKind::Exact);
}

TEST(ModelResolver, ProviderPrefixes) {
  EXPECT_EQ(entry_of(builtin(), "openai/gpt-4o"), "openai/gpt-4o");
  EXPECT_EQ(entry_of(builtin(), "azure/gpt-4o"), "azure/gpt-4o");
  EXPECT_EQ(entry_of(builtin(), "anthropic/claude-3.5-sonnet"), "anthropic/claude-3-5-sonnet-20241022");
  EXPECT_EQ(entry_of(builtin(), "meta-llama/Llama-3.3-70B-Instruct"), "llama/llama-3.3-70b-instruct");
  // A provider that lacks the model: the id is looked up everywhere.
  EXPECT_EQ(entry_of(builtin(), "groq/gpt-4o"), "openai/gpt-4o");
  // The AI SDK registry's "provider:model"; a name:tag whose name is a provider stays a tag.
  EXPECT_EQ(entry_of(builtin(), "openai:gpt-4.1-mini"), "openai/gpt-4.1-mini");
  EXPECT_EQ(entry_of(builtin(), "azure:gpt-4o"), "azure/gpt-4o");
  EXPECT_EQ(entry_of(builtin(), "mistral:7b"), "mistral/open-mistral-7b");
}

TEST(ModelResolver, TheMakersEntryFirst) {
  EXPECT_EQ(entry_of(builtin(), "gpt-4o"), "openai/gpt-4o");  // not azure's, github's or a router's
  EXPECT_EQ(entry_of(builtin(), "llama-3.3-70b"), "llama/llama-3.3-70b-instruct");
  EXPECT_EQ(entry_of(builtin(), "gemini-2.5-pro"), "google/gemini-2.5-pro");
}

TEST(ModelResolver, DatedIdsResolveToTheirOwnFamily) {
  EXPECT_EQ(entry_of(builtin(), "gpt-4o-2024-08-06"), "openai/gpt-4o");
  EXPECT_EQ(entry_of(builtin(), "claude-3-5-sonnet-latest"), "anthropic/claude-3-5-sonnet-20241022");  // the newest
  EXPECT_EQ(entry_of(builtin(), "claude-opus-4-7-20260101"), "anthropic/claude-opus-4-7");
  EXPECT_EQ(builtin().resolve("claude-opus-4-7-20260101")->match, MatchKind::Family);
  // Never an older version: Claude Opus 4.9 and GPT-5.6 are not in the catalog.
  EXPECT_EQ(entry_of(builtin(), "claude-opus-4-9"), "(unknown)");
  EXPECT_EQ(entry_of(builtin(), "claude-opus-4-9-20270101"), "(unknown)");
  EXPECT_EQ(entry_of(builtin(), "gpt-5.6"), "(unknown)");
  EXPECT_EQ(entry_of(builtin(), "mistral-large-3"), "(unknown)");
}

TEST(ModelResolver, LocalRuntimeNames) {
  const auto llama2 = builtin().resolve("llama2");
  ASSERT_TRUE(llama2);
  EXPECT_EQ(llama2->model->context_window, 4096u);
  EXPECT_EQ(llama2->match, MatchKind::Alias);
  EXPECT_EQ(builtin().resolve("llama2:70b")->model->context_window, 4096u);
  EXPECT_EQ(entry_of(builtin(), "llama3.3:70b"), "llama/llama-3.3-70b-instruct");
  EXPECT_EQ(builtin().resolve("llama3.3:70b")->match, MatchKind::Variant);
  EXPECT_EQ(entry_of(builtin(), "qwen2.5:7b"), "alibaba/qwen2-5-7b-instruct");
  EXPECT_EQ(entry_of(builtin(), "gemma2:9b"), "groq/gemma2-9b-it");
  EXPECT_EQ(entry_of(builtin(), "mistral:7b"), "mistral/open-mistral-7b");
}

TEST(ModelResolver, SpellingsAndVariants) {
  EXPECT_EQ(entry_of(builtin(), "gpt-35-turbo"), "openai/gpt-3.5-turbo");
  EXPECT_EQ(entry_of(builtin(), "GPT-4o-Mini"), "openai/gpt-4o-mini");
  EXPECT_EQ(entry_of(builtin(), "gpt-4o-mini-tts"), "openai/gpt-4o-mini");
  EXPECT_EQ(builtin().resolve("gpt-4o-mini-tts")->match, MatchKind::Prefix);
  EXPECT_EQ(entry_of(builtin(), "ft:gpt-4o-mini-2024-07-18:acme::abc"), "openai/gpt-4o-mini");
  EXPECT_EQ(entry_of(builtin(), ""), "(unknown)");
  EXPECT_EQ(entry_of(builtin(), "   "), "(unknown)");
  // Bounded work: an id longer than any model's resolves to nothing, at once.
  EXPECT_EQ(entry_of(builtin(), "gpt-4o" + std::string(kMaxModelIdLength, '-')), "(unknown)");
  EXPECT_EQ(entry_of(builtin(), std::string(kMaxModelIdLength - 6, ' ') + "gpt-4o"), "openai/gpt-4o");
  EXPECT_EQ(builtin().closest(std::string(100000, '-') + "x", 2).size(), 2u);
}

TEST(ModelResolver, RegisteredModelsComeFirstAndReplaceEachOther) {
  ModelResolver resolver;
  resolver.add(parse_models_dev_catalog(R"({"acme": {"name": "Acme", "models": {
      "acme-7b": {"name": "Acme 7B", "limit": {"context": 32768, "output": 4096}, "cost": {"input": 0.1, "output": 0.2}},
      "gpt-4o": {"limit": {"context": 64000}},
      "acme-*": {"limit": {"context": 8192}}}}})"));
  EXPECT_EQ(resolver.resolve("acme-7b")->model->context_window, 32768u);
  EXPECT_EQ(resolver.resolve("Acme/Acme-7B")->model->source, ModelSource::Registered);
  EXPECT_EQ(resolver.resolve("gpt-4o")->model->context_window, 64000u);
  EXPECT_EQ(resolver.resolve("gpt-4o-2024-08-06")->model->context_window, 64000u);
  EXPECT_EQ(resolver.resolve("acme-other")->model->context_window, 8192u);
  EXPECT_EQ(resolver.resolve("acme-other")->match, MatchKind::Pattern);
  EXPECT_EQ(resolver.resolve("acme-7b")->match, MatchKind::Exact);  // before the pattern registered with it
  EXPECT_EQ(resolver.registered_count(), 3u);
  resolver.add(parse_models_dev_catalog(R"({"acme": {"models": {"acme-*": {"limit": {"context": 16384}}}}})"));
  EXPECT_EQ(resolver.resolve("acme-other")->model->context_window, 16384u);
  EXPECT_EQ(resolver.registered_count(), 3u);
  // The built-in catalog is untouched for every other resolver.
  EXPECT_EQ(builtin().resolve("gpt-4o")->model->context_window, 128000u);
  EXPECT_EQ(resolver.list().size(), builtin().list().size() + 3);
}

TEST(ModelResolver, ClosestIdsForAnUnknownOne) {
  const auto closest = builtin().closest("claude-opus-4-9", 3);
  ASSERT_EQ(closest.size(), 3u);
  EXPECT_EQ(closest[0], "claude-opus-4-8");
  EXPECT_TRUE(builtin().closest("x", 0).empty());
}

TEST(ModelsDevJson, ReadsTheFormat) {
  const auto models = parse_models_dev_catalog(R"({"providers": {"p": {"models": {
      "m": {"id": "m", "name": "M", "limit": {"context": 1000, "input": 800, "output": 200}, "release_date": "2026-01",
            "open_weights": true, "cost": {"input": 1, "output": 2, "cache_read": 0.1, "cache_write": 1.25}},
      "image": {"limit": {"context": 0, "output": 0}}}}}})");
  ASSERT_EQ(models.size(), 1u);  // the image model has no text window
  EXPECT_EQ(models[0].provider, "p");
  EXPECT_EQ(models[0].max_input, 800u);
  EXPECT_EQ(models[0].prices.cache_write, 1.25);
  EXPECT_TRUE(models[0].open_weights);
}

TEST(ModelsDevJson, NamesTheFirstBadValue) {
  auto error_of = [](std::string_view json) {
    try {
      parse_models_dev_catalog(json);
    } catch (const Error& e) {
      return std::string(e.js_code()) + " " + e.what();
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("{"), "ERR_CTXWIN_INVALID_ARGUMENT catalog must be JSON in models.dev's format: it does not parse");
  EXPECT_EQ(error_of("[]"), "ERR_CTXWIN_INVALID_ARGUMENT catalog must be an object of providers by id, got an array");
  EXPECT_EQ(error_of(R"({"p": {}})"), "ERR_CTXWIN_INVALID_ARGUMENT catalog[\"p\"].models must be an object, got nothing");
  EXPECT_EQ(error_of(R"({"p": {"models": {"m": {}}}})"),
            "ERR_CTXWIN_INVALID_ARGUMENT catalog[\"p\"].models[\"m\"].limit must be an object, got nothing");
  EXPECT_EQ(error_of(R"({"p": {"models": {"m": {"limit": {"context": "8k"}}}}})"),
            "ERR_CTXWIN_INVALID_ARGUMENT catalog[\"p\"].models[\"m\"].limit.context must be a number, got a string");
  EXPECT_EQ(error_of(R"({"p": {"models": {"m": {"limit": {"context": -1}}}}})"),
            "ERR_CTXWIN_OUT_OF_RANGE catalog[\"p\"].models[\"m\"].limit.context must be a whole number from 0 to 4294967295, got -1");
  EXPECT_EQ(error_of(R"({"p": {"models": {"m": {"limit": {"context": 10}, "cost": {"input": -2}}}}})"),
            "ERR_CTXWIN_OUT_OF_RANGE catalog[\"p\"].models[\"m\"].cost.input must be a price >= 0, got -2");
  EXPECT_EQ(error_of(R"({"p": {"models": {"*": {"limit": {"context": 10}}}}})").substr(0, 23), "ERR_CTXWIN_OUT_OF_RANGE");
  // Ids no resolver would find are refused (found by models_dev_json_fuzz).
  const std::string long_id(kMaxModelIdLength + 1, 'm');
  EXPECT_EQ(error_of(R"({"p": {"models": {")" + long_id + R"(": {"limit": {"context": 10}}}}})").substr(0, 23), "ERR_CTXWIN_OUT_OF_RANGE");
}

}  // namespace
}  // namespace ctxwin
