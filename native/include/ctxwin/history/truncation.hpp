// Truncation planning: which messages of a history to keep so that it fits a token target.
//
// The history stays in the caller's hands; the planner sees one MessageMeta per message (role,
// tokens, flags, tool unit) and answers with the indices to keep. Every strategy keeps these
// invariants, which agents rely on to stay coherent after a trim:
//   1. system messages are kept (unless preserve_system is off);
//   2. an assistant message that calls tools and the results that answer it (one `unit`) are kept
//      or dropped together;
//   3. order is preserved (kept indices ascend);
//   4. the result fits the target whenever the pinned messages allow it; when even they do not,
//      the result is the pinned messages alone and `warning` says why;
//   5. marked messages (kMarked) are kept like system messages;
//   and the most recent user message is never dropped (the request the model must answer), nor the
//   newest exchange (the message or tool unit last in the history: the calls the model just made
//   and the results it is about to read; then also the newest tool unit, when an agent's note or a
//   framework's correction came after it) while the pinned messages and it fit the request's limit
//   (`request_limit`, the target unless it is given). When they do not, the plan says by how much
//   (`newest_exchange_excess`), so that its caller can cut the exchange's results rather than lose them.
// A plan is a pure function of its input.
//
//   std::vector<MessageMeta> meta = ...;                  // one per message
//   TruncationPlan plan = plan_token_budget(meta, 4000, {});
//   for (std::uint32_t i : plan.kept) ...                 // the caller's messages to keep
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ctxwin {

enum class Role : std::uint8_t { System = 0, User = 1, Assistant = 2, Tool = 3, Other = 4 };

struct MessageMeta {
  Role role = Role::User;
  std::uint32_t tokens = 0;
  std::uint8_t flags = 0;
  // Messages with the same unit >= 0 are one tool unit (a call and its results); -1: none.
  std::int32_t unit = -1;

  static constexpr std::uint8_t kMarked = 1;  // `_preserve: true` or pinned through the API
};

enum class StartOn : std::uint8_t { Any = 0, User = 1 };

struct TruncationOptions {
  bool preserve_system = true;
  // The kept conversation (after system messages) opens on a user message, as providers require.
  StartOn start_on = StartOn::Any;
  bool keep_last_user = true;
  // The newest exchange is kept like a pinned message while the pinned messages and it fit
  // `request_limit`: a trim aims at its target but stops before the exchange the model answers next.
  bool keep_newest_exchange = true;
  // What the whole request may hold, when more than the target (a manager trims to 60% of the
  // window, and the newest exchange may take the rest); unset: the target.
  std::optional<std::uint64_t> request_limit;
};

struct TruncationPlan {
  std::vector<std::uint32_t> kept;     // ascending message indices
  std::vector<std::uint32_t> removed;  // ascending message indices
  std::uint64_t kept_tokens = 0;       // including the marker, when there is one
  std::uint64_t removed_tokens = 0;    // the removed messages' tokens
  bool fits = true;
  // Where a "[N messages omitted]" marker goes: before kept[marker_position]; -1 for none.
  std::int64_t marker_position = -1;
  std::string warning;  // empty unless the result cannot honour everything
  // Tokens by which the pinned messages and the newest exchange exceed the request's limit, when
  // the exchange was not kept for that reason (0 otherwise): what cutting its results must free.
  std::uint64_t newest_exchange_excess = 0;
};

enum class StrategyKind : std::uint8_t { SlidingWindow = 0, TokenBudget = 1, Smart = 2, Selective = 3 };

struct StrategySpec {
  StrategyKind kind = StrategyKind::TokenBudget;
  std::uint32_t window_size = 20;       // SlidingWindow: non-system messages kept
  std::uint32_t preserve_first = 2;     // Smart
  std::uint32_t preserve_last = 10;     // Smart
  std::uint32_t marker_tokens = 0;      // Smart: what the marker message costs
  bool drop_middle_as_needed = false;   // Smart: the middle goes oldest first until the target, not whole
  std::uint8_t preserve_roles = 0;      // Selective: bit (1 << Role)
  bool preserve_marked = true;          // Selective (marked messages are kept by every strategy)
  bool drop_tool_results_first = true;  // Selective
  TruncationOptions options;
};

// One strategy over the whole history. Throws ctxwin::Error for inconsistent input (a message whose
// unit id is out of range).
TruncationPlan plan_truncation(std::span<const MessageMeta> messages, std::uint64_t target, const StrategySpec& spec);

// Strategies in order, each on what the previous kept, stopping as soon as the result fits.
TruncationPlan plan_composite(std::span<const MessageMeta> messages, std::uint64_t target, std::span<const StrategySpec> strategies);

}  // namespace ctxwin
