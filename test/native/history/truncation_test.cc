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

TEST(Smart, AsNeededDropsTheMiddleOldestFirstOnlyUntilTheTarget) {
  auto s = spec(StrategyKind::Smart);
  s.preserve_first = 2;
  s.preserve_last = 5;
  s.marker_tokens = 8;
  s.drop_middle_as_needed = true;
  // 1,000 tokens, a target of 500: the first two stay, the oldest of the rest go until it fits.
  auto plan = plan_truncation(alternating(100, 10), 500, s);
  EXPECT_TRUE(plan.fits);
  EXPECT_EQ(plan.kept.size(), 49u);  // 2 + 47, and the marker: 2 * 10 + 47 * 10 + 8 = 498
  EXPECT_EQ(plan.kept[0], 0u);
  EXPECT_EQ(plan.kept[1], 1u);
  EXPECT_EQ(plan.kept[2], 53u);
  EXPECT_EQ(plan.marker_position, 2);
  // Under the target nothing goes, whatever preserve_last says.
  plan = plan_truncation(alternating(100, 10), 1'000'000, s);
  EXPECT_EQ(plan.kept.size(), 100u);
  EXPECT_EQ(plan.marker_position, -1);
}

TEST(Selective, PreservedRolesStayToolResultsGoFirst) {
  std::vector<MessageMeta> history = {m(Role::System, 10),    m(Role::User, 10), m(Role::Assistant, 10, 7), m(Role::Tool, 100, 7),
                                      m(Role::Assistant, 10), m(Role::User, 10), m(Role::Assistant, 10)};
  auto s = spec(StrategyKind::Selective);
  s.preserve_roles = (1u << static_cast<unsigned>(Role::System)) | (1u << static_cast<unsigned>(Role::User));
  auto plan = plan_truncation(history, 60, s);
  EXPECT_EQ(plan.kept, (std::vector<std::uint32_t>{0, 1, 4, 5, 6}));  // the tool unit went first, whole
}

TEST(StartOnUser, LeadingAssistantTurnsGo) {
  std::vector<MessageMeta> history = {m(Role::System, 1), m(Role::User, 50), m(Role::Assistant, 10), m(Role::Assistant, 10),
                                      m(Role::User, 10)};
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

// The issue's session: a pinned task and summary (2,266 tokens), nine older messages, and the
// exchange the model is about to read (a call and its 1,400-token result). A trim to 3,240 cannot
// keep the exchange; within the window (5,400) it must, whatever it drops before it.
std::vector<MessageMeta> issue_session() {
  std::vector<MessageMeta> history = {m(Role::User, 1500, -1, MessageMeta::kMarked), m(Role::System, 766, -1, MessageMeta::kMarked)};
  for (std::int32_t unit = 0; unit < 3; ++unit) {
    history.push_back(m(Role::Assistant, 40, unit));
    history.push_back(m(Role::Tool, 200, unit));
    history.push_back(m(Role::Assistant, 30));
  }
  history.push_back(m(Role::Assistant, 50, 3));
  history.push_back(m(Role::Tool, 1400, 3));
  return history;
}

TEST(NewestExchange, KeptWithinTheRequestLimitWhenTheTargetCannotHoldIt) {
  const auto history = issue_session();
  for (StrategyKind kind : {StrategyKind::TokenBudget, StrategyKind::Smart, StrategyKind::SlidingWindow, StrategyKind::Selective}) {
    auto s = spec(kind);
    s.marker_tokens = kind == StrategyKind::Smart ? 8 : 0;
    s.preserve_roles = 1u << static_cast<unsigned>(Role::User);
    s.options.request_limit = 5400;
    const auto plan = plan_truncation(history, 3240, s);
    EXPECT_EQ(plan.kept, (std::vector<std::uint32_t>{0, 1, 11, 12})) << "strategy " << static_cast<int>(kind);
    EXPECT_FALSE(plan.fits);
    EXPECT_EQ(plan.newest_exchange_excess, 0u);
    EXPECT_NE(plan.warning.find("and the newest exchange need 3716 tokens"), std::string::npos) << plan.warning;
    // The request has room for the marker: the model is told that messages were left out.
    if (kind == StrategyKind::Smart) {
      EXPECT_EQ(plan.marker_position, 2);
      EXPECT_EQ(plan.kept_tokens, 3724u);
    }
  }
}

TEST(NewestExchange, DroppedWhenEvenTheLimitCannotHoldItAndTheExcessSaysByHowMuch) {
  const auto history = issue_session();
  auto s = spec(StrategyKind::TokenBudget);
  s.options.request_limit = 3500;
  auto plan = plan_truncation(history, 3240, s);
  EXPECT_EQ(plan.kept, (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(plan.newest_exchange_excess, 3716u - 3500u);
  // Cut by that much, the exchange is kept.
  auto cut = history;
  cut.back().tokens -= static_cast<std::uint32_t>(plan.newest_exchange_excess);
  plan = plan_truncation(cut, 3240, s);
  EXPECT_EQ(plan.kept, (std::vector<std::uint32_t>{0, 1, 11, 12}));
  EXPECT_EQ(plan.newest_exchange_excess, 0u);
  EXPECT_EQ(plan.kept_tokens, 3500u);
}

TEST(NewestExchange, KeptWhenItFitsTheTargetWhereStrategiesUsedToDropItFirst) {
  // Selective drops tool units first: the newest one went before any plain message.
  std::vector<MessageMeta> history = {m(Role::User, 10),      m(Role::Assistant, 10, 0), m(Role::Tool, 100, 0),
                                      m(Role::Assistant, 60), m(Role::Assistant, 10, 1), m(Role::Tool, 100, 1)};
  auto selective = spec(StrategyKind::Selective);
  auto plan = plan_truncation(history, 130, selective);
  EXPECT_EQ(plan.kept, (std::vector<std::uint32_t>{0, 4, 5}));
  selective.options.keep_newest_exchange = false;
  EXPECT_EQ(plan_truncation(history, 130, selective).kept, (std::vector<std::uint32_t>{0, 3}));
  // A sliding window smaller than the newest unit kept none of it.
  std::vector<MessageMeta> parallel = {m(Role::User, 10), m(Role::Assistant, 10, 0)};
  for (int r = 0; r < 5; ++r) parallel.push_back(m(Role::Tool, 10, 0));
  auto window = spec(StrategyKind::SlidingWindow);
  window.window_size = 3;
  EXPECT_EQ(plan_truncation(parallel, 1000, window).kept.size(), 7u);
}

// mini-swe-agent answers a reply without a command with a correction (a user message): the
// command run last and its output come before the agent's notes and the corrections, and stay
// while they fit the request's limit, the notes between giving way first.
TEST(NewestExchange, TheNewestToolUnitStaysWhenNotesAndCorrectionsFollowIt) {
  std::vector<MessageMeta> history = {m(Role::User, 1000, -1, MessageMeta::kMarked),
                                      m(Role::Assistant, 30, 0),
                                      m(Role::Tool, 400, 0),
                                      m(Role::Assistant, 30, 1),
                                      m(Role::Tool, 600, 1),
                                      m(Role::Assistant, 40),
                                      m(Role::User, 50),
                                      m(Role::Assistant, 40),
                                      m(Role::User, 50)};
  auto s = spec(StrategyKind::TokenBudget);
  s.options.request_limit = 2000;
  // Past the target with them: the task, the newest command and output, the last correction.
  EXPECT_EQ(plan_truncation(history, 1200, s).kept, (std::vector<std::uint32_t>{0, 3, 4, 8}));
  EXPECT_EQ(plan_truncation(history, 1800, s).kept, (std::vector<std::uint32_t>{0, 3, 4, 6, 7, 8}));  // the oldest note before it
  // Without the room the oldest go first, as before.
  s.options.request_limit = 1500;
  EXPECT_EQ(plan_truncation(history, 1200, s).kept, (std::vector<std::uint32_t>{0, 5, 6, 7, 8}));
}

TEST(NewestExchange, ACompositeLeavesRoomForTheMarkerAndReportsTheLargestExcess) {
  auto history = issue_session();
  std::vector<StrategySpec> chain = {spec(StrategyKind::Smart), spec(StrategyKind::TokenBudget)};
  chain[0].marker_tokens = 8;
  for (auto& s : chain) s.options.request_limit = 5400;
  auto plan = plan_composite(history, 3240, chain);
  EXPECT_EQ(plan.kept, (std::vector<std::uint32_t>{0, 1, 11, 12}));
  EXPECT_LE(plan.kept_tokens, 5400u);
  for (auto& s : chain) s.options.request_limit = 3600;
  plan = plan_composite(history, 3240, chain);
  EXPECT_EQ(plan.newest_exchange_excess, 3716u + 8u - 3600u);
}

// A trim that keeps the newest exchange (a 5,000-token file read) past its target keeps the marker
// too while the request's limit has room for it: dropped to meet the target, it left a request of
// the task and the read alone, with no word of the 20 messages before (a SUMMARIZE replay at 16K).
TEST(NewestExchange, TheMarkerStaysWithinTheLimitWhenOnlyTheTargetCannotHoldIt) {
  std::vector<MessageMeta> history = {m(Role::User, 678, -1, MessageMeta::kMarked)};
  for (std::int32_t unit = 0; unit < 10; ++unit) {
    history.push_back(m(Role::Assistant, 30, unit));
    history.push_back(m(Role::Tool, 200, unit));
  }
  history.push_back(m(Role::Assistant, 27, 10));
  history.push_back(m(Role::Tool, 4981, 10));
  for (StrategyKind kind : {StrategyKind::Smart}) {
    auto s = spec(kind);
    s.marker_tokens = 90;
    s.options.request_limit = 10'000;
    auto plan = plan_truncation(history, 5'700, s);
    EXPECT_EQ(plan.kept, (std::vector<std::uint32_t>{0, 21, 22}));
    EXPECT_EQ(plan.marker_position, 1);
    EXPECT_EQ(plan.kept_tokens, 678u + 27u + 4981u + 90u);
    // Without the room (a limit that is the target), the marker still gives way.
    s.options.request_limit = 5'700;
    plan = plan_truncation(history, 5'700, s);
    EXPECT_EQ(plan.marker_position, -1);
  }
}

// Past the target, a marker that would cost more than the removal frees is left out: a trim never
// makes the request larger (the regression case is preview.test.ts's "never makes the request
// larger", fast-check's counterexample; this one guards the plan's own totals).
TEST(NewestExchange, NoMarkerThatCostsMoreThanTheRemovalFrees) {
  const std::vector<MessageMeta> history = {m(Role::User, 13, -1, MessageMeta::kMarked),
                                            m(Role::User, 64, -1, MessageMeta::kMarked),
                                            m(Role::User, 5),
                                            m(Role::Assistant, 14, 0),
                                            m(Role::Tool, 8, 0),
                                            m(Role::Assistant, 5)};
  std::uint64_t total = 0;
  for (const auto& message : history) total += message.tokens;
  auto s = spec(StrategyKind::Smart);
  s.marker_tokens = 9;
  s.options.request_limit = 212;
  const auto plan = plan_truncation(history, 42, s);
  EXPECT_EQ(plan.marker_position, -1);
  EXPECT_LE(plan.kept_tokens, total);
  // (A removal that frees more than the marker keeps it past the target: TheMarkerStaysWithinTheLimit... above.)
}

// The invariants over random histories with tool units, system and marked messages.
TEST(Units, IdsFarApartPlanAsDenseOnesDo) {
  // Unit ids index a table when they are dense and a map otherwise: both must find the same units.
  std::mt19937 rng(11);
  for (int round = 0; round < 500; ++round) {
    std::vector<MessageMeta> dense;
    const int n = 1 + static_cast<int>(rng() % 40);
    std::int32_t unit = 0;
    for (int i = 0; i < n; ++i) {
      const bool in_unit = rng() % 3 == 0;
      // Results may join an earlier unit than the newest one.
      const std::int32_t id = in_unit ? std::max(0, unit - static_cast<std::int32_t>(rng() % 3)) : -1;
      dense.push_back(m(in_unit ? (rng() % 2 ? Role::Tool : Role::Assistant) : (rng() % 2 ? Role::User : Role::Assistant), rng() % 90, id));
      if (in_unit && rng() % 2) ++unit;
    }
    std::vector<MessageMeta> sparse = dense;
    for (auto& message : sparse)
      if (message.unit >= 0) message.unit = 2'000'000'000 - message.unit * 7'919;
    std::uint64_t total = 0;
    for (const auto& message : dense) total += message.tokens;
    const std::uint64_t target = total / 2;
    for (const StrategyKind kind : {StrategyKind::TokenBudget, StrategyKind::SlidingWindow, StrategyKind::Smart, StrategyKind::Selective}) {
      StrategySpec s = spec(kind);
      s.window_size = 6;
      s.marker_tokens = 5;
      const TruncationPlan a = plan_truncation(dense, target, s);
      const TruncationPlan b = plan_truncation(sparse, target, s);
      ASSERT_EQ(a.kept, b.kept);
      ASSERT_EQ(a.kept_tokens, b.kept_tokens);
      ASSERT_EQ(a.marker_position, b.marker_position);
    }
  }
}

TEST(Invariants, HoldForEveryStrategyOnRandomHistories) {
  std::mt19937 rng(7);
  for (int round = 0; round < 2000; ++round) {
    std::vector<MessageMeta> history;
    const int n = static_cast<int>(rng() % 30);
    std::int32_t unit = 0;
    for (int i = 0; i < n;) {
      const int kind = static_cast<int>(rng() % 6);
      const std::uint8_t flags = rng() % 10 == 0 ? MessageMeta::kMarked : 0;
      if (kind == 0) {
        history.push_back(m(Role::System, rng() % 50, -1, flags));
        ++i;
      } else if (kind == 1 || kind == 2) {
        history.push_back(m(Role::User, rng() % 100, -1, flags));
        ++i;
      } else if (kind == 3) {
        history.push_back(m(Role::Assistant, rng() % 100, -1, flags));
        ++i;
      } else {
        history.push_back(m(Role::Assistant, rng() % 50, unit, flags));
        const int results = 1 + static_cast<int>(rng() % 3);
        for (int r = 0; r < results; ++r) history.push_back(m(Role::Tool, rng() % 200, unit));
        ++unit;
        i += 1 + results;
      }
    }
    const std::uint64_t target = rng() % 600;
    std::vector<StrategySpec> specs = {spec(StrategyKind::TokenBudget), spec(StrategyKind::SlidingWindow), spec(StrategyKind::Smart),
                                       spec(StrategyKind::Selective)};
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
    for (std::size_t i = 0; i < history.size(); ++i)
      if (history[i].role == Role::User) last_user = static_cast<std::int64_t>(i);
    std::uint64_t pinned = 0;
    for (std::size_t i = 0; i < history.size(); ++i) {
      const bool pin =
          history[i].role == Role::System || (history[i].flags & MessageMeta::kMarked) || static_cast<std::int64_t>(i) == last_user;
      if (pin) pinned += history[i].tokens;
    }
    // What the planner keeps whole for the newest exchange's sake: every message of a unit with a
    // pinned member (for Selective, with a member of a preserved role: users here).
    auto pinned_tokens = [&](bool users) {
      std::set<std::int32_t> units;
      std::vector<bool> pin(history.size());
      for (std::size_t i = 0; i < history.size(); ++i) {
        pin[i] = history[i].role == Role::System || (history[i].flags & MessageMeta::kMarked) ||
                 static_cast<std::int64_t>(i) == last_user || (users && history[i].role == Role::User);
        if (pin[i] && history[i].unit >= 0) units.insert(history[i].unit);
      }
      std::uint64_t total = 0;
      for (std::size_t i = 0; i < history.size(); ++i)
        if (pin[i] || units.count(history[i].unit)) total += history[i].tokens;
      return total;
    };
    // The newest exchange: the last non-system message with its unit, when nothing of it is pinned.
    std::int64_t newest = static_cast<std::int64_t>(history.size()) - 1;
    while (newest >= 0 && history[static_cast<std::size_t>(newest)].role == Role::System) --newest;
    std::uint64_t newest_tokens = 0;
    for (std::size_t i = 0; newest >= 0 && i < history.size(); ++i) {
      const auto& last = history[static_cast<std::size_t>(newest)];
      const bool in = static_cast<std::int64_t>(i) == newest || (last.unit >= 0 && history[i].unit == last.unit);
      const bool pin =
          history[i].role == Role::System || (history[i].flags & MessageMeta::kMarked) || static_cast<std::int64_t>(i) == last_user;
      if (in && pin)
        newest = -1;  // pinned already: the check above covers it
      else if (in)
        newest_tokens += history[i].tokens;
    }
    for (const auto& plan : plans) {
      std::set<std::uint32_t> kept(plan.kept.begin(), plan.kept.end());
      ASSERT_TRUE(std::is_sorted(plan.kept.begin(), plan.kept.end()));  // order
      ASSERT_EQ(plan.kept.size() + plan.removed.size(), history.size());
      for (std::size_t i = 0; i < history.size(); ++i) {
        const auto& h = history[i];
        const bool pin = h.role == Role::System || (h.flags & MessageMeta::kMarked) || static_cast<std::int64_t>(i) == last_user;
        if (pin) {
          ASSERT_TRUE(kept.count(static_cast<std::uint32_t>(i))) << "pinned message " << i << " dropped";
        }
        for (std::size_t j = 0; j < history.size(); ++j) {  // units whole
          if (h.unit >= 0 && history[j].unit == h.unit) {
            ASSERT_EQ(kept.count(static_cast<std::uint32_t>(i)), kept.count(static_cast<std::uint32_t>(j)));
          }
        }
      }
      // The newest exchange stays whenever it fits the target with the pinned messages (and the
      // marker a smart trim adds); the composite's later strategies leave room for an earlier marker.
      if (&plan != &plans.back() && newest >= 0) {
        const std::uint64_t marker = &plan == &plans[2] ? specs[2].marker_tokens : 0;
        const std::uint64_t held = pinned_tokens(&plan == &plans[3]);
        if (held + newest_tokens + marker <= target) {
          ASSERT_TRUE(kept.count(static_cast<std::uint32_t>(newest)))
              << "round " << round << ": newest exchange dropped by plan " << (&plan - plans.data()) << " (target " << target << ", pinned "
              << held << ", newest " << newest_tokens << ")";
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
