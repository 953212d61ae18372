// The open problems of an agent's session: every failure its tools reported, until a later result
// shows the same check passing. Compaction keeps this record so that an error survives the
// clearing, cutting or summarizing of the output that reported it, and every summary receives it.
//
// What "the same check" is:
//   - a failing test is the test of that name (the last part of "file > suite > name"); it is
//     resolved when a later output reports that test passing, or when a later run of the same
//     command succeeds;
//   - any other failure is the tool call's subject: the tool with its command (`command`, `cmd`,
//     `script`), else its path (`path`, `file`, `url`, ...), else its test filter (`filter`, `test`,
//     ...), else its first id argument (`id`, `order_id`, `chargeId`, ...), else the tool alone; it
//     is resolved when a later call of the same tool on the same subject succeeds (no error line, no
//     failing test or tally, exit code 0 when one is reported).
// A later failure of the same check replaces its lines (the record holds each problem's last
// output) and reopens it if it was resolved. A cleared result without error lines says nothing
// either way.
//
//   ProblemLedger ledger;
//   ledger.observe({"call_17", "run_tests", R"({"filter":"billing"})"}, test_log);
//   ledger.open();          // newest first
//   ledger.to_json();       // the record, for a summary or an export; ProblemLedger::from_json reads it back
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ctxwin/compaction/tool_outcome.hpp"

namespace ctxwin {

struct Problem {
  // What was checked: "test\n<name>", or "<tool>\n<subject>".
  std::string check;
  // The test's name, for a failing test.
  std::string test;
  // The call that showed it last: `npm run build`, run_tests {"filter":"billing"}.
  std::string label;
  // The tool call id of that result.
  std::string id;
  // Its failure lines in that result.
  std::vector<std::string> lines;
  // How that run ended: its tally, or its exit code.
  std::string outcome;
  // The check of the command that ran the test (a later success of it resolves the test).
  std::string command;
  // When it was last seen: its place among the observed results.
  std::uint64_t seen = 0;
  bool resolved = false;
  // The result that showed it passing, and its line.
  std::string resolved_by;
  std::string resolution;
};

// A tool call as the ledger reads it: its id, the tool's name, its arguments as JSON text (an
// object, or anything else, which names no subject).
struct ToolCallRef {
  std::string_view id;
  std::string_view tool;
  std::string_view args_json;
};

// The check a call's failure is about: "<tool>\n<subject>" (see the top of this file).
std::string check_of_call(std::string_view tool, std::string_view args_json);

// How a call is written for a reader: `the command` when it has one, else the tool and its arguments.
std::string describe_call(std::string_view tool, std::string_view args_json, std::size_t max_code_points = 160);

struct LedgerLimits {
  // Open problems kept; beyond, the oldest is forgotten (a session with this many open problems has others to solve).
  std::size_t max_open = 24;
  // Resolved problems kept, the newest.
  std::size_t max_resolved = 8;
  ErrorLineLimits lines{.max_lines = 6, .max_line_bytes = 200, .frames_per_error = 2};
};

class ProblemLedger {
 public:
  explicit ProblemLedger(LedgerLimits limits = {}) : limits_(limits) {}

  // Reads one tool result, after every result before it. `reported_error`: the tool or framework
  // marked the result as an error (an AI SDK error output), whatever its text says.
  void observe(const ToolCallRef& call, std::string_view result, bool reported_error = false);

  // Open problems, newest first.
  std::vector<const Problem*> open() const;
  // Resolved problems, newest first.
  std::vector<const Problem*> resolved() const;
  bool empty() const noexcept { return problems_.empty(); }
  // The id of the last result observed.
  const std::string& observed_through() const noexcept { return observed_through_; }

  // {"problems":[{check, test?, label, id, lines, outcome, command, seen, resolved?: {id, line}}], "seen": N, "observedThrough": id}
  std::string to_json() const;
  // Throws ctxwin::Error (TypeError, ERR_CTXWIN_INVALID_ARGUMENT) naming the first bad field.
  static ProblemLedger from_json(std::string_view json, LedgerLimits limits = {});

 private:
  Problem& upsert(const std::string& check);
  void resolve(Problem& problem, std::string_view by, std::string_view line);
  void bound();

  LedgerLimits limits_;
  std::vector<Problem> problems_;  // ascending by `seen`
  std::uint64_t seen_ = 0;
  std::string observed_through_;
};

// The record `record_json` (empty: none yet) after observing `events`, in order: JSON lines
// {"type":"tool_result","toolCallId":..,"toolName":..,"args":{..},"result":".."} (or "error": ".."
// for a result marked as an error). Lines that are not such an event are skipped. Returns the
// record's JSON. Throws ctxwin::Error when `record_json` is not a record.
std::string observe_tool_results(std::string_view record_json, std::span<const std::string_view> events, LedgerLimits limits = {});

// A stack frame or a traceback's heading ("    at f (x.ts:1:2)", "  File \"x.py\", line 3"): a line
// that says where, not what, failed.
bool is_frame(std::string_view line);

// A problem as a summary lists it: "- test \"rejects a duplicate charge\" (run_tests {...}): Error: ...
// | at ... (last output: Tests 1 failed | 48 passed (49)) [id call_17]".
std::string describe_open_problem(const Problem& problem);
// "- `npm run build`: Error: ENOSPC: ... -> now build ok in 4.4s; exit code 0 [id call_31]".
std::string describe_resolved_problem(const Problem& problem);

// The line that counts the open problems a list leaves out (`older`, newest first) and names the
// ids a recall reads them back by, the first kMaxOlderIds of them:
// "- and 5 older open problems (recall by id: call_8, call_5, call_2, call_1, call_0)".
// A problem a summary no longer lists stays one recall away.
std::string describe_older_open_problems(std::span<const Problem* const> older);
inline constexpr std::size_t kMaxOlderIds = 8;

// The record's open problems and then the resolved ones, as a summary lists them, each under its
// heading ("Open problems, newest first:", "Resolved problems, newest first:"), at most
// `max_open` and `max_resolved` of each. Empty when the record holds none.
std::string describe_problems(const ProblemLedger& ledger, std::size_t max_open = 8, std::size_t max_resolved = 4);

}  // namespace ctxwin
