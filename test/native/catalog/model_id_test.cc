#include "ctxwin/catalog/model_id.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ctxwin {
namespace {

using Names = std::vector<std::string>;

TEST(ModelId, FoldsCaseAndSurroundingSpace) {
  EXPECT_EQ(fold_model_id("  GPT-4o\t"), "gpt-4o");
  EXPECT_EQ(fold_model_id(""), "");
}

TEST(ModelId, CanonicalSpelling) {
  EXPECT_EQ(canonical_model_name("Claude-3.5-Sonnet"), "claude-3-5-sonnet");
  EXPECT_EQ(canonical_model_name("claude_3_5 sonnet"), "claude-3-5-sonnet");
  EXPECT_EQ(canonical_model_name("llama3.3"), "llama-3-3");
  EXPECT_EQ(canonical_model_name("Qwen3-235B-A22B"), "qwen-3-235b-a22b");
  EXPECT_EQ(canonical_model_name("gpt4o"), "gpt-4o");
  // Short words keep their numbers: o3, v3, r1, k2, a22b.
  EXPECT_EQ(canonical_model_name("o3-mini"), "o3-mini");
  EXPECT_EQ(canonical_model_name("deepseek-v3.1"), "deepseek-v3-1");
  EXPECT_EQ(canonical_model_name("--gpt--4o--"), "gpt-4o");
}

TEST(ModelId, NamesWithoutProviderPackaging) {
  EXPECT_EQ(model_names("openai/gpt-4o"), Names{"gpt-4o"});
  EXPECT_EQ(model_names("openrouter/anthropic/claude-3.5-sonnet:free"), Names{"claude-3-5-sonnet"});
  EXPECT_EQ(model_names("claude-3-5-sonnet@20240620"), Names{"claude-3-5-sonnet-20240620"});
  EXPECT_EQ(model_names("claude-3-5-sonnet-v2@20241022"), Names{"claude-3-5-sonnet-20241022"});
  EXPECT_EQ(model_names("gemini-1.5-pro@002"), Names{"gemini-1-5-pro"});
  EXPECT_EQ(model_names("llama3.3:70b"), Names{"llama-3-3-70b"});
  EXPECT_EQ(model_names("qwen2.5:7b-instruct-q4_K_M"), Names{"qwen-2-5-7b-instruct"});
  EXPECT_EQ(model_names("mistral:latest"), Names{"mistral"});
  EXPECT_EQ(model_names("ft:gpt-4o-mini-2024-07-18:acme::abc123"), Names{"gpt-4o-mini-2024-07-18"});
  EXPECT_EQ(model_names("hf:meta-llama/Llama-3.3-70B-Instruct"), Names{"llama-3-3-70b-instruct"});
}

TEST(ModelId, BedrockIds) {
  EXPECT_EQ(model_names("us.anthropic.claude-opus-4-7-v1:0"),
            (Names{"claude-opus-4-7-v1", "anthropic-claude-opus-4-7-v1", "claude-opus-4-7", "anthropic-claude-opus-4-7"}));
  EXPECT_EQ(model_names("global.anthropic.claude-sonnet-4-5-20250929-v1:0")[2], "claude-sonnet-4-5-20250929");
  EXPECT_EQ(model_names("deepseek.r1-v1:0")[3], "deepseek-r1");
  // Claude 2's "-v2" is the model's version: kept as one of the names.
  EXPECT_EQ(model_names("anthropic.claude-v2:1")[0], "claude-v2");
  // Not vendors: versions with dots.
  EXPECT_EQ(model_names("gpt-4.1"), Names{"gpt-4-1"});
  EXPECT_EQ(model_names("qwen2.5-72b"), Names{"qwen-2-5-72b"});
  EXPECT_TRUE(model_names("  ").empty());
  EXPECT_TRUE(model_names("openai/").empty());
}

TEST(ModelId, VendorsAndRegions) {
  EXPECT_EQ(vendor_prefix_length("anthropic.claude-3"), 10u);
  EXPECT_EQ(vendor_prefix_length("ai21.jamba-1-5"), 5u);
  EXPECT_EQ(vendor_prefix_length("gpt-4.1"), 0u);
  EXPECT_EQ(vendor_prefix_length("qwen2.5-72b"), 0u);
  EXPECT_EQ(vendor_prefix_length("anthropic."), 0u);
  EXPECT_EQ(without_bedrock_region("us.anthropic.x"), "anthropic.x");
  EXPECT_EQ(without_bedrock_region("global.meta.x"), "meta.x");
  EXPECT_EQ(without_bedrock_region("us."), "us.");
  EXPECT_EQ(without_bedrock_region("usa.x"), "usa.x");
}

TEST(ModelId, FamiliesDropDatesNeverVersions) {
  EXPECT_EQ(model_family("gpt-4o-2024-08-06"), "gpt-4o");
  EXPECT_EQ(model_family("gpt-4-0613"), "gpt-4");
  EXPECT_EQ(model_family("claude-3-5-sonnet-20241022"), "claude-3-5-sonnet");
  EXPECT_EQ(model_family("claude-3-5-sonnet-latest"), "claude-3-5-sonnet");
  EXPECT_EQ(model_family("gemini-2-5-flash-preview-05-20"), "gemini-2-5-flash-preview");
  EXPECT_EQ(model_family("gemini-1-5-pro-002"), "gemini-1-5-pro");
  EXPECT_EQ(model_family("mistral-large-2411"), "mistral-large");
  EXPECT_EQ(model_family("claude-opus-4-7-20260101"), "claude-opus-4-7");
  EXPECT_EQ(model_family("claude-opus-4-7"), "claude-opus-4-7");
  EXPECT_EQ(model_family("qwen-2-5-72b"), "qwen-2-5-72b");
  EXPECT_EQ(model_family("2024"), "2024");  // never the whole name
}

TEST(ModelId, BasesOfOpenWeightNames) {
  EXPECT_EQ(model_base("llama-3-3-70b-instruct"), "llama-3-3-70b");
  EXPECT_EQ(model_base("gemma-2-9b-it"), "gemma-2-9b");
  EXPECT_EQ(model_base("instruct"), "instruct");
  EXPECT_EQ(model_base("gpt-4o"), "gpt-4o");
}

TEST(ModelId, VariantsAreNotVersions) {
  EXPECT_TRUE(is_variant_rest("-tts", false));
  EXPECT_TRUE(is_variant_rest("-70b-chat", false));
  EXPECT_TRUE(is_variant_rest("-20260101", false));
  EXPECT_FALSE(is_variant_rest("-7-20260101", false));  // claude-opus-4 + 7: another version
  EXPECT_FALSE(is_variant_rest("-1", false));
  EXPECT_FALSE(is_variant_rest("-v2", false));
  EXPECT_FALSE(is_variant_rest("-32k", false));
  EXPECT_FALSE(is_variant_rest("-mini", false));  // a sibling, not a variant
  EXPECT_FALSE(is_variant_rest("-lite-preview", false));
  EXPECT_FALSE(is_variant_rest("-", false));
  EXPECT_FALSE(is_variant_rest("tts", false));
  EXPECT_TRUE(is_variant_rest("-70b", true));
  EXPECT_TRUE(is_variant_rest("-8x7b", true));
  EXPECT_TRUE(is_variant_rest("-instruct", true));
  EXPECT_FALSE(is_variant_rest("-large", true));
}

}  // namespace
}  // namespace ctxwin
