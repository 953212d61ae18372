// Summarization planning for the thread manager (ContextManager): which events of an agent thread
// to replace by summaries.
//
// The thread's events stay in JavaScript; the planner sees one (iteration, is-summary) pair per
// event and answers with indices. Events are grouped by their `iteration` value. With
// H = the highest iteration present and K = keep_recent_iterations, every iteration <= H - K is
// "old": each old iteration becomes one SummaryEvent, except an iteration that already consists
// of exactly one summary event, which is kept as it is (so summarizing twice is idempotent).
// Iterations above H - K are recent and their events are kept in full, in their order.
//
// The plan is a pure function of its input: the same events always give the same plan.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace ctxwin {

struct ThreadPolicy {
  // Summarize once the estimate exceeds this many tokens (ContextManager's default, 150000).
  std::uint64_t max_context_tokens = 150000;
  // How many of the most recent iterations stay in full detail (ContextManager's default, 3).
  std::uint64_t keep_recent_iterations = 3;

  // Validates values that arrived as JavaScript numbers; throws ctxwin::Error naming
  // `config.maxContextTokens` / `config.keepRecentIterations`.
  static ThreadPolicy from_numbers(double max_context_tokens, double keep_recent_iterations);

  bool needs_summarization(std::uint64_t estimated_tokens) const noexcept { return estimated_tokens > max_context_tokens; }
};

// One old iteration and what happens to it.
struct OldIteration {
  double iteration = 0;
  // Indices into the thread's events, ascending. All of them leave the thread.
  std::vector<std::uint32_t> events;
  // True when the iteration is already a single summary event: it is reused, not re-summarized.
  bool reuse_existing_summary = false;
};

struct SummarizationPlan {
  // Old iterations in ascending iteration order: the order the summaries take at the front.
  std::vector<OldIteration> old_iterations;
  // Iterations <= cutoff are old. Meaningless when the thread is empty.
  double cutoff = 0;
};

// `iterations[i]` and `is_summary[i]` describe event i. Throws ctxwin::Error (RangeError) naming
// `thread.events[i].iteration` when an iteration is not a finite number, and when the two spans
// differ in length.
SummarizationPlan plan_summarization(std::span<const double> iterations, std::span<const std::uint8_t> is_summary,
                                     const ThreadPolicy& policy);

}  // namespace ctxwin
