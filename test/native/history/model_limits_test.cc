#include "ctxwin/history/model_limits.hpp"

#include <gtest/gtest.h>

namespace ctxwin {
namespace {

std::string_view key_of(std::string_view id) {
  const auto limits = find_model_limits(id);
  return limits ? limits->key : std::string_view("(unknown)");
}

TEST(ModelLimits, SeedRows) {
  const auto opus = find_model_limits("claude-3-opus");
  ASSERT_TRUE(opus);
  EXPECT_EQ(opus->context_window, 200000u);
  EXPECT_EQ(opus->max_output, 4096u);
  EXPECT_EQ(find_model_limits("gpt-4")->context_window, 8192u);
  EXPECT_EQ(find_model_limits("gpt-3.5-turbo")->context_window, 16385u);
  EXPECT_EQ(find_model_limits("mistral-large")->context_window, 32000u);
}

TEST(ModelLimits, SpellingsOfOneModel) {
  EXPECT_EQ(key_of("gpt-4o-2024-08-06"), "gpt-4o");
  EXPECT_EQ(key_of("openai/gpt-4o"), "gpt-4o");
  EXPECT_EQ(key_of("GPT-4o-Mini"), "gpt-4o-mini");
  EXPECT_EQ(key_of("anthropic/claude-3-opus"), "claude-3-opus");
  EXPECT_EQ(key_of("claude-3-opus-20240229"), "claude-3-opus");
  EXPECT_EQ(key_of("anthropic/claude-3.5-sonnet"), "claude-3-5-sonnet");
  EXPECT_EQ(key_of("claude-3-5-sonnet@20240620"), "claude-3-5-sonnet");
  EXPECT_EQ(key_of("anthropic.claude-3-haiku-20240307-v1:0"), "claude-3-haiku");
  EXPECT_EQ(key_of("models/gemini-1.5-pro-latest"), "gemini-1.5-pro");
  EXPECT_EQ(key_of("meta-llama/llama-3.1-70b-instruct"), "llama-3.1-70b");
  EXPECT_EQ(key_of("gpt-4-turbo-2024-04-09"), "gpt-4-turbo");
  EXPECT_EQ(key_of("gpt-4.1-mini-2025-04-14"), "gpt-4.1-mini");
}

TEST(ModelLimits, LongestKeyAtABoundaryWins) {
  EXPECT_EQ(key_of("gpt-4o"), "gpt-4o");      // not "gpt-4"
  EXPECT_EQ(key_of("gpt-4-0613"), "gpt-4");
  EXPECT_EQ(key_of("o1-mini-2024-09-12"), "o1-mini");
  EXPECT_EQ(key_of("o10"), "(unknown)");
  EXPECT_EQ(key_of("custom-model"), "(unknown)");
  EXPECT_EQ(key_of(""), "(unknown)");
}

TEST(ModelLimits, UnpublishedOutputLimitsAreZero) {
  EXPECT_EQ(find_model_limits("llama-3.3-70b-instruct")->max_output, 0u);
  EXPECT_GT(builtin_model_count(), 50u);
}

TEST(ModelLimits, NormalizingIsIdempotent) {
  // A pass could expose what an earlier rule removes (found by test/fuzz/model_limits_fuzz).
  for (const char* id : {"x/ gpt-4o", "anthropic.anthropic.claude-3-opus", "openai/ GPT-4o ", "a/b@c/ d"}) {
    const std::string once = normalize_model_id(id);
    EXPECT_EQ(normalize_model_id(once), once) << id;
  }
  EXPECT_EQ(key_of("openai/ gpt-4o"), "gpt-4o");
}

TEST(ModelLimits, ListingIsTheTableItself) {
  const auto models = builtin_models();
  ASSERT_EQ(models.size(), builtin_model_count());
  EXPECT_EQ(models.front().key, "claude-3-opus");  // seed 003's rows first
  // Every listed key finds itself, with the same limits: the listing never disagrees with lookups.
  for (const ModelLimits& m : models) {
    const auto found = find_model_limits(m.key);
    ASSERT_TRUE(found.has_value()) << m.key;
    EXPECT_EQ(found->key, m.key);
    EXPECT_EQ(found->context_window, m.context_window);
    EXPECT_EQ(found->max_output, m.max_output);
  }
}

}  // namespace
}  // namespace ctxwin
