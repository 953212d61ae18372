#include "ctxwin/history/truncation.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <set>
#include <vector>

namespace ctxwin {
namespace {

MessageMeta m(Role role, std::uint32_t tokens, std::int32_t unit = -1, std::uint8_t flags = 0) {
  return MessageMeta{role, tokens, flags, unit};
}

std::vector<MessageMeta> alternating(std::size_t n, std::uint32_t tokens) {
  std::vector<MessageMeta> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(m(i % 2 ? Role::Assistant : Role::User, tokens));
  return out;
}

StrategySpec spec(StrategyKind kind) {
  StrategySpec s;
  s.kind = kind;
  return s;
}

TEST(SlidingWindow, KeepsTheLastNAndEverySystemMessage) {
  auto history = alternating(25, 10);
  auto s = spec(StrategyKind::SlidingWindow);
  s.window_size = 10;
  auto plan = plan_truncation(history, 1'000'000, s);
  EXPECT_EQ(plan.kept, (std::vector<std::uint32_t>{15, 16, 17, 18, 19, 20, 21, 22, 23, 24}));

  std::vector<MessageMeta> with_system = {m(Role::System, 5)};
  for (const auto& x : alternating(20, 10)) with_system.push_back(x);
  with_system.insert(with_system.begin() + 8, m(Role::System, 5));
  s.window_size = 5;
  plan = plan_truncation(with_system, 1'000'000, s);
  EXPECT_EQ(plan.kept, (std::vector<std::uint32_t>{0, 8, 17, 18, 19, 20, 21}));
}

TEST(SlidingWindow, NoTruncationWhenUnderTheWindow) {
  auto s = spec(StrategyKind::SlidingWindow);
  s.window_size = 10;
  auto plan = plan_truncation(alternating(5, 10), 1000, s);
  EXPECT_EQ(plan.kept.size(), 5u);
  EXPECT_TRUE(plan.removed.empty());
}

TEST(TokenBudget, RemovesOldestFirstUntilItFits) {
  auto plan = plan_truncation(alternating(100, 100), 5000, spec(StrategyKind::TokenBudget));  // 10000 tokens
  EXPECT_TRUE(plan.fits);
  EXPECT_LE(plan.kept_tokens, 5000u);
  EXPECT_EQ(plan.kept.front(), 50u);
  EXPECT_EQ(plan.kept.back(), 99u);
}

TEST(TokenBudget, SystemMessagesSurviveAndTheRestGoesToRecentMessages) {
  std::vector<MessageMeta> history = {m(Role::System, 500)};
  for (const auto& x : alternating(100, 100)) history.push_back(x);
  auto plan = plan_truncation(history, 2000, spec(StrategyKind::TokenBudget));
  EXPECT_EQ(plan.kept.front(), 0u);
  EXPECT_EQ(plan.kept_tokens, 2000u);
  EXPECT_EQ(plan.kept[1], 86u);
}

TEST(TokenBudget, PinnedAloneWithAWarningWhenEvenTheyDoNotFit) {
  std::vector<MessageMeta> history = {m(Role::System, 1500), m(Role::System, 1500), m(Role::User, 10), m(Role::Assistant, 10)};
  auto plan = plan_truncation(history, 2000, spec(StrategyKind::TokenBudget));
  EXPECT_EQ(plan.kept, (std::vector<std::uint32_t>{0, 1, 2}));  // systems + the last user message
  EXPECT_FALSE(plan.fits);
  EXPECT_NE(plan.warning.find("more than the target of 2000"), std::string::npos);
}

TEST(Smart, FirstTwoLastFiveAndAMarker) {
  auto s = spec(StrategyKind::Smart);
  s.preserve_first = 2;
  s.preserve_last = 5;
  s.marker_tokens = 8;
  auto plan = plan_truncation(alternating(100, 10), 1'000'000, s);
  EXPECT_EQ(plan.kept, (std::vector<std::uint32_t>{0, 1, 95, 96, 97, 98, 99}));
  EXPECT_EQ(plan.removed.size(), 93u);
  EXPECT_EQ(plan.marker_position, 2);
  EXPECT_EQ(plan.kept_tokens, 78u);
}

TEST(Smart, SmallConversationsAreNotTruncatedAndGetNoMarker) {
  auto s = spec(StrategyKind::Smart);
  s.preserve_first = 2;
  s.preserve_last = 5;
  auto plan = plan_truncation(alternating(5, 10), 1000, s);
  EXPECT_EQ(plan.kept.size(), 5u);
  EXPECT_EQ(plan.marker_position, -1);
}

TEST(Selective, PreservedRolesStayToolResultsGoFirst) {
  std::vector<MessageMeta> history = {
      m(Role::System, 10), m(Role::User, 10), m(Role::Assistant, 10, 7), m(Role::Tool, 100, 7),
      m(Role::Assistant, 10), m(Role::User, 10), m(Role::Assistant, 10)};
  auto s = spec(StrategyKind::Selective);
  s.preserve_roles = (1u << static_cast<unsigned>(Role::System)) | (1u << static_cast<unsigned>(Role::User));
  auto plan = plan_truncation(history, 60, s);
  EXPECT_EQ(plan.kept, (std::vector<std::uint32_t>{0, 1, 4, 5, 6}));  // the tool unit went first, whole
}

TEST(StartOnUser, LeadingAssistantTurnsGo) {
  std::vector<MessageMeta> history = {m(Role::System, 1), m(Role::User, 50), m(Role::Assistant, 10), m(Role::Assistant, 10), m(Role::User, 10)};
  auto s = spec(StrategyKind::TokenBudget);
  s.options.start_on = StartOn::User;
  auto plan = plan_truncation(history, 40, s);
  EXPECT_EQ(plan.kept, (std::vector<std::uint32_t>{0, 4}));
}

TEST(Composite, StopsAsSoonAsItFitsAndMapsIndicesBack) {
  std::vector<StrategySpec> chain = {spec(StrategyKind::Smart), spec(StrategyKind::TokenBudget)};
  chain[0].preserve_first = 2;
  chain[0].preserve_last = 10;
  chain[0].marker_tokens = 5;
  auto plan = plan_composite(alternating(50, 10), 200, chain);
  EXPECT_TRUE(plan.fits);
  EXPECT_LE(plan.kept_tokens, 200u);
  EXPECT_GE(plan.marker_position, 0);
}

// The invariants over random histories with tool units, system and marked messages.
TEST(Invariants, HoldForEveryStrategyOnRandomHistories) {
  std::mt19937 rng(7);
  for (int round = 0; round < 2000; ++round) {
    std::vector<MessageMeta> history;
    const int n = static_cast<int>(rng() % 30);
    std::int32_t unit = 0;
    for (int i = 0; i < n;) {
      const int kind = static_cast<int>(rng() % 6);
      const std::uint8_t flags = rng() % 10 == 0 ? MessageMeta::kMarked : 0;
      if (kind == 0) { history.push_back(m(Role::System, rng() % 50, -1, flags)); ++i; }
      else if (kind == 1 || kind == 2) { history.push_back(m(Role::User, rng() % 100, -1, flags)); ++i; }
      else if (kind == 3) { history.push_back(m(Role::Assistant, rng() % 100, -1, flags)); ++i; }
      else {
        history.push_back(m(Role::Assistant, rng() % 50, unit, flags));
        const int results = 1 + static_cast<int>(rng() % 3);
        for (int r = 0; r < results; ++r) history.push_back(m(Role::Tool, rng() % 200, unit));
        ++unit;
        i += 1 + results;
      }
    }
    const std::uint64_t target = rng() % 600;
    std::vector<StrategySpec> specs = {spec(StrategyKind::TokenBudget), spec(StrategyKind::SlidingWindow), spec(StrategyKind::Smart), spec(StrategyKind::Selective)};
    specs[1].window_size = rng() % 12;
    specs[2].preserve_first = rng() % 4;
    specs[2].preserve_last = rng() % 8;
    specs[2].marker_tokens = rng() % 20;
    specs[3].preserve_roles = 1u << static_cast<unsigned>(Role::User);
    for (auto& s : specs) s.options.start_on = rng() % 2 ? StartOn::User : StartOn::Any;
    std::vector<TruncationPlan> plans;
    for (const auto& s : specs) plans.push_back(plan_truncation(history, target, s));
    plans.push_back(plan_composite(history, target, specs));
    std::int64_t last_user = -1;
    for (std::size_t i = 0; i < history.size(); ++i) if (history[i].role == Role::User) last_user = static_cast<std::int64_t>(i);
    std::uint64_t pinned = 0;
    for (std::size_t i = 0; i < history.size(); ++i) {
      const bool pin = history[i].role == Role::System || (history[i].flags & MessageMeta::kMarked) || static_cast<std::int64_t>(i) == last_user;
      if (pin) pinned += history[i].tokens;
    }
    for (const auto& plan : plans) {
      std::set<std::uint32_t> kept(plan.kept.begin(), plan.kept.end());
      ASSERT_TRUE(std::is_sorted(plan.kept.begin(), plan.kept.end()));               // order
      ASSERT_EQ(plan.kept.size() + plan.removed.size(), history.size());
      for (std::size_t i = 0; i < history.size(); ++i) {
        const auto& h = history[i];
        const bool pin = h.role == Role::System || (h.flags & MessageMeta::kMarked) || static_cast<std::int64_t>(i) == last_user;
        if (pin) {
          ASSERT_TRUE(kept.count(static_cast<std::uint32_t>(i))) << "pinned message " << i << " dropped";
        }
        for (std::size_t j = 0; j < history.size(); ++j) {                          // units whole
          if (h.unit >= 0 && history[j].unit == h.unit) {
            ASSERT_EQ(kept.count(static_cast<std::uint32_t>(i)), kept.count(static_cast<std::uint32_t>(j)));
          }
        }
      }
      if (pinned <= target && plan.warning.empty()) {
        ASSERT_TRUE(plan.fits) << "round " << round;
      }
      if (!plan.fits) {
        ASSERT_FALSE(plan.warning.empty()) << "round " << round;
      }
    }
  }
}

}  // namespace
}  // namespace ctxwin
