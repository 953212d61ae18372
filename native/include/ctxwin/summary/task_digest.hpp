// The offline digest that message-history compaction puts in place of old turns: what an agent
// needs to continue its task, in sections, read from the turns' events (the same JSON lines as
// the extractive summary: messages, tool calls and tool results, with their toolCallId).
//
// Sections, most needed first, one fact per line where a fact is long, so that a summary cut to
// its token bound at a line loses the least useful ones: the task in the user's words, the
// constraints of a task too long to quote whole, what the user said later, the files changed, the
// open problems with their last output (the problem ledger's rules, problem_ledger.hpp), the last
// command and its outcome, the next step the agent stated and has not taken, the problems since
// resolved, the agent's findings, earlier commands, files read, tools called, other paths.
//
// A number is only ever written inside the sentence or output line it came from, never in a list
// of bare figures; a quote too long is cut after a whole word, and a fact that would be only a
// fragment is left out.
//
// An event {"type":"problems","given":true} among the lines says the caller puts the session's
// problem record beside the digest: the digest then leaves its own problem sections out.
//
//   std::vector<std::string_view> lines = {R"({"type":"message","role":"user","content":"Fix ..."})", ...};
//   std::string digest = ctxwin::summarize_task(lines);
//   // "Task (the user's words): \"Fix ...\"\nFiles changed: src/util/dates.ts.\nOpen problems, newest first:\n- ..."
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace ctxwin {

struct TaskDigestOptions {
  // Every command, path, tool and error written out (no "and N more").
  bool complete = false;
  // Longest quote of the task, in code points.
  std::size_t max_goal_code_points = 600;
  // Longest quote of anything else.
  std::size_t max_excerpt_code_points = 160;
};

std::string summarize_task(std::span<const std::string_view> texts, const TaskDigestOptions& options = {});

}  // namespace ctxwin
