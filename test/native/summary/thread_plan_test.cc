#include "ctxwin/summary/thread_plan.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ctxwin/error.hpp"

namespace ctxwin {
namespace {

ThreadPolicy keep(std::uint64_t recent) {
  ThreadPolicy policy;
  policy.keep_recent_iterations = recent;
  return policy;
}

TEST(ThreadPolicy, DefaultsAreContextManagers) {
  ThreadPolicy policy;
  EXPECT_EQ(policy.max_context_tokens, 150000u);
  EXPECT_EQ(policy.keep_recent_iterations, 3u);
  EXPECT_FALSE(policy.needs_summarization(150000));
  EXPECT_TRUE(policy.needs_summarization(150001));
}

TEST(ThreadPolicy, ValidatesNumbersFromJavaScript) {
  auto policy = ThreadPolicy::from_numbers(1000, 0);
  EXPECT_EQ(policy.max_context_tokens, 1000u);
  EXPECT_EQ(policy.keep_recent_iterations, 0u);
  for (auto [max, keep_recent] :
       std::vector<std::pair<double, double>>{{-1, 3}, {0, 3}, {1.5, 3}, {std::nan(""), 3}, {100, -1}, {100, 2.5}, {100, INFINITY}}) {
    EXPECT_THROW(ThreadPolicy::from_numbers(max, keep_recent), Error) << max << " " << keep_recent;
  }
  try {
    ThreadPolicy::from_numbers(100, -1);
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::Range);
    EXPECT_STREQ(error.what(), "config.keepRecentIterations must be an integer >= 0, got -1");
  }
}

TEST(PlanSummarization, EmptyThreadHasNothingToDo) {
  auto plan = plan_summarization({}, {}, keep(3));
  EXPECT_TRUE(plan.old_iterations.empty());
}

TEST(PlanSummarization, OldIterationsAreThoseAtOrBelowHighestMinusKeep) {
  // iterations 1..6, two events each; keep 3 -> 1..3 old, 4..6 recent.
  std::vector<double> iterations;
  for (int i = 1; i <= 6; ++i) iterations.insert(iterations.end(), {double(i), double(i)});
  std::vector<std::uint8_t> summary(iterations.size(), 0);
  auto plan = plan_summarization(iterations, summary, keep(3));
  EXPECT_EQ(plan.cutoff, 3);
  ASSERT_EQ(plan.old_iterations.size(), 3u);
  EXPECT_EQ(plan.old_iterations[0].iteration, 1);
  EXPECT_EQ(plan.old_iterations[0].events, (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(plan.old_iterations[2].events, (std::vector<std::uint32_t>{4, 5}));
}

TEST(PlanSummarization, FewerIterationsThanKeptMeansNothingOld) {
  std::vector<double> iterations = {1, 2, 3};
  std::vector<std::uint8_t> summary(3, 0);
  EXPECT_TRUE(plan_summarization(iterations, summary, keep(3)).old_iterations.empty());
}

TEST(PlanSummarization, KeepZeroSummarizesEverything) {
  std::vector<double> iterations = {0, 1, 1};
  std::vector<std::uint8_t> summary(3, 0);
  auto plan = plan_summarization(iterations, summary, keep(0));
  ASSERT_EQ(plan.old_iterations.size(), 2u);
  EXPECT_EQ(plan.old_iterations[1].events, (std::vector<std::uint32_t>{1, 2}));
}

TEST(PlanSummarization, GroupsInterleavedAndUnsortedIterations) {
  std::vector<double> iterations = {2, 1, 2, 1, 9};
  std::vector<std::uint8_t> summary(5, 0);
  auto plan = plan_summarization(iterations, summary, keep(1));
  ASSERT_EQ(plan.old_iterations.size(), 2u);
  EXPECT_EQ(plan.old_iterations[0].iteration, 1);
  EXPECT_EQ(plan.old_iterations[0].events, (std::vector<std::uint32_t>{1, 3}));
  EXPECT_EQ(plan.old_iterations[1].events, (std::vector<std::uint32_t>{0, 2}));
}

TEST(PlanSummarization, ASingleSummaryEventIsReused) {
  std::vector<double> iterations = {1, 2, 2, 3, 4};
  std::vector<std::uint8_t> summary = {1, 1, 0, 0, 0};
  auto plan = plan_summarization(iterations, summary, keep(1));
  ASSERT_EQ(plan.old_iterations.size(), 3u);
  EXPECT_TRUE(plan.old_iterations[0].reuse_existing_summary);
  // A summary next to other events of its iteration is summarized again with them.
  EXPECT_FALSE(plan.old_iterations[1].reuse_existing_summary);
  EXPECT_FALSE(plan.old_iterations[2].reuse_existing_summary);
}

TEST(PlanSummarization, NegativeAndFractionalIterationsGroupByValue) {
  std::vector<double> iterations = {-1, 0.5, -0.0, 0.0, 10};
  std::vector<std::uint8_t> summary(5, 0);
  auto plan = plan_summarization(iterations, summary, keep(2));
  ASSERT_EQ(plan.old_iterations.size(), 3u);
  EXPECT_EQ(plan.old_iterations[1].events, (std::vector<std::uint32_t>{2, 3}));
  EXPECT_FALSE(std::signbit(plan.old_iterations[1].iteration));
}

TEST(PlanSummarization, RejectsNonFiniteIterationsNamingTheEvent) {
  std::vector<double> iterations = {1, std::nan("")};
  std::vector<std::uint8_t> summary(2, 0);
  try {
    plan_summarization(iterations, summary, keep(1));
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::Range);
    EXPECT_EQ(error.js_code(), "ERR_CTXWIN_INVALID_THREAD");
    EXPECT_STREQ(error.what(), "thread.events[1].iteration must be a finite number, got NaN");
  }
}

TEST(PlanSummarization, RejectsMismatchedSpans) {
  std::vector<double> iterations = {1, 2};
  std::vector<std::uint8_t> summary(1, 0);
  EXPECT_THROW(plan_summarization(iterations, summary, keep(1)), Error);
}

}  // namespace
}  // namespace ctxwin
