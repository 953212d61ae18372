// The offline digest that message-history compaction puts in place of old turns: what an agent
// needs to continue its task, in sections, read from the turns' events (the same JSON lines as
// the extractive summary: messages, tool calls and tool results, with their toolCallId).
//
// Sections, most needed first, so that a summary cut to its token bound loses the least useful
// ones: the goal in the user's words, files changed, errors still open (a tool's failure stays open
// until a later call of the same tool succeeds), commands run with their outcome (newest first),
// the last stated next step, the assistant's decisions, files read, what else the user said, the
// tools called, other paths, figures (numbers with what they count), and errors since resolved.
//
//   std::vector<std::string_view> lines = {R"({"type":"message","role":"user","content":"Fix ..."})", ...};
//   std::string digest = ctxwin::summarize_task(lines);
//   // "Goal (the user's words): \"Fix ...\"\nFiles changed: src/util/dates.ts\n..."
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace ctxwin {

struct TaskDigestOptions {
  // Every command, path, tool and error written out (no "and N more").
  bool complete = false;
  // Longest quote of the goal, in code points.
  std::size_t max_goal_code_points = 600;
  // Longest quote of anything else.
  std::size_t max_excerpt_code_points = 160;
};

std::string summarize_task(std::span<const std::string_view> texts, const TaskDigestOptions& options = {});

}  // namespace ctxwin
