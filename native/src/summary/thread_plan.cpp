#include "ctxwin/summary/thread_plan.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "ctxwin/error.hpp"

namespace ctxwin {

namespace {

std::uint64_t checked_count(double value, const char* name, double minimum) {
  if (!std::isfinite(value) || std::floor(value) != value || value < minimum || value > 9007199254740991.0) {
    throw Error::range(ErrorCode::OutOfRange,
                       std::string(name) + " must be an integer >= " + describe_number(minimum) + ", got " + describe_number(value));
  }
  return static_cast<std::uint64_t>(value);
}

}  // namespace

ThreadPolicy ThreadPolicy::from_numbers(double max_context_tokens, double keep_recent_iterations) {
  ThreadPolicy policy;
  policy.max_context_tokens = checked_count(max_context_tokens, "config.maxContextTokens", 1);
  policy.keep_recent_iterations = checked_count(keep_recent_iterations, "config.keepRecentIterations", 0);
  return policy;
}

SummarizationPlan plan_summarization(std::span<const double> iterations, std::span<const std::uint8_t> is_summary,
                                     const ThreadPolicy& policy) {
  if (iterations.size() != is_summary.size()) {
    throw Error::range(ErrorCode::InvalidArgument, "isSummary must have one entry per event (" + std::to_string(iterations.size()) +
                                                       "), got " + std::to_string(is_summary.size()));
  }
  SummarizationPlan plan;
  if (iterations.empty()) return plan;

  double highest = iterations[0];
  for (std::size_t i = 0; i < iterations.size(); ++i) {
    if (!std::isfinite(iterations[i])) {
      throw Error::range(ErrorCode::InvalidThread, "thread.events[" + std::to_string(i) + "].iteration must be a finite number, got " +
                                                       describe_number(iterations[i]));
    }
    highest = std::max(highest, iterations[i]);
  }
  // Iterations are usually small integers, but any finite number groups correctly: the cutoff is
  // computed in doubles exactly as the reference's `max - keepRecentIterations`.
  plan.cutoff = highest - static_cast<double>(policy.keep_recent_iterations);

  // Stable sort of the old events by iteration keeps each group's events in thread order.
  std::vector<std::uint32_t> old_events;
  for (std::uint32_t i = 0; i < iterations.size(); ++i) {
    if (iterations[i] <= plan.cutoff) old_events.push_back(i);
  }
  std::stable_sort(old_events.begin(), old_events.end(), [&](std::uint32_t a, std::uint32_t b) { return iterations[a] < iterations[b]; });

  for (std::uint32_t index : old_events) {
    // -0 and +0 are one iteration, as in a JavaScript Map keyed by number.
    if (plan.old_iterations.empty() || plan.old_iterations.back().iteration != iterations[index]) {
      plan.old_iterations.push_back(OldIteration{iterations[index] == 0 ? 0.0 : iterations[index], {}, false});
    }
    plan.old_iterations.back().events.push_back(index);
  }
  for (auto& old : plan.old_iterations) {
    old.reuse_existing_summary = old.events.size() == 1 && is_summary[old.events.front()] != 0;
  }
  return plan;
}

}  // namespace ctxwin
