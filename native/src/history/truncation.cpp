#include "ctxwin/history/truncation.hpp"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "ctxwin/error.hpp"

namespace ctxwin {

namespace {

// A message, or a whole tool unit: what strategies keep or drop. Messages find their atom through
// History::atom_of, so an atom needs no list of its own (no allocation per message).
struct Atom {
  std::uint32_t first_message = 0;
  std::uint64_t tokens = 0;
  std::uint32_t non_system = 0;
  bool pinned = false;
  bool system = true;         // every message is a system message
  bool tool_bearing = false;  // a tool unit or a tool result
  Role first_role = Role::User;
};

struct History {
  std::vector<Atom> atoms;             // in order of their first message
  std::vector<std::uint32_t> atom_of;  // per message
  std::vector<std::uint8_t> keep;      // per atom (bytes: a trim reads it in every pass)
  bool newest_pinned = false;          // the newest exchange was pinned for the request's limit
};

History build(std::span<const MessageMeta> messages, const TruncationOptions& options, std::uint8_t pinned_roles) {
  History h;
  h.atoms.reserve(messages.size());
  h.atom_of.resize(messages.size());
  // The atom of each tool unit: a table indexed by unit id when the ids are dense (a managed
  // history numbers its units as they come, so they stay within a few times its length), else a map.
  constexpr std::uint32_t kNone = 0xFFFFFFFF;
  std::int32_t max_unit = -1;
  for (const MessageMeta& m : messages) max_unit = std::max(max_unit, m.unit);
  const bool dense = static_cast<std::uint64_t>(max_unit) + 1 <= 4 * static_cast<std::uint64_t>(messages.size()) + 1024;
  std::vector<std::uint32_t> unit_table(dense ? static_cast<std::size_t>(max_unit + 1) : 0, kNone);
  std::unordered_map<std::int32_t, std::uint32_t> unit_atom;
  std::int64_t last_user = -1;
  if (options.keep_last_user) {
    for (std::size_t i = messages.size(); i-- > 0;) {
      if (messages[i].role == Role::User) {
        last_user = static_cast<std::int64_t>(i);
        break;
      }
    }
  }
  for (std::uint32_t i = 0; i < messages.size(); ++i) {
    const MessageMeta& m = messages[i];
    if (m.unit < -1) {
      throw Error::range(ErrorCode::InvalidArgument, "messages[" + std::to_string(i) + "].unit must be -1 or a unit id >= 0");
    }
    std::uint32_t a;
    bool fresh = true;
    if (m.unit >= 0 && dense) {
      std::uint32_t& slot = unit_table[static_cast<std::size_t>(m.unit)];
      fresh = slot == kNone;
      if (fresh) slot = static_cast<std::uint32_t>(h.atoms.size());
      a = slot;
    } else if (m.unit >= 0) {
      auto [it, inserted] = unit_atom.try_emplace(m.unit, static_cast<std::uint32_t>(h.atoms.size()));
      a = it->second;
      fresh = inserted;
    } else {
      a = static_cast<std::uint32_t>(h.atoms.size());
    }
    if (fresh) {
      h.atoms.emplace_back();
      h.atoms.back().first_message = i;
      h.atoms.back().first_role = m.role;
    }
    h.atom_of[i] = a;
    Atom& atom = h.atoms[a];
    atom.tokens += m.tokens;
    const bool is_system = m.role == Role::System;
    if (!is_system) ++atom.non_system;
    atom.system = atom.system && is_system;
    atom.tool_bearing = atom.tool_bearing || m.unit >= 0 || m.role == Role::Tool;
    atom.pinned = atom.pinned || (is_system && options.preserve_system) || (m.flags & MessageMeta::kMarked) != 0 ||
                  static_cast<std::int64_t>(i) == last_user || (pinned_roles & (1u << static_cast<unsigned>(m.role))) != 0;
  }
  h.keep.assign(h.atoms.size(), 1);
  return h;
}

// Pins the newest exchange when the pinned messages and it, with the marker a removal brings, fit
// `limit`: first the atom of the last non-system message (the message or tool unit the model
// answers next; when it does not fit, returns by how much), then the newest tool unit, when other
// messages came after it (the agent's note, a framework's correction) and it fits too: the command
// the model ran last and its output, which the messages between may give way to.
std::uint64_t protect_newest_exchange(History& h, std::span<const MessageMeta> messages, std::uint64_t limit, std::uint32_t marker_tokens) {
  std::size_t last = messages.size();
  while (last > 0 && messages[last - 1].role == Role::System) --last;
  if (last == 0) return 0;
  // What pinning `atom` needs, with the pinned ones.
  auto need = [&](std::size_t atom) {
    std::uint64_t total = h.atoms[atom].tokens;
    bool others = false;  // something else may go, and a marker with it
    for (std::size_t a = 0; a < h.atoms.size(); ++a) {
      if (h.atoms[a].pinned)
        total += h.atoms[a].tokens;
      else if (a != atom && !h.atoms[a].system)
        others = true;
    }
    return total + (others ? marker_tokens : 0);
  };
  const std::uint32_t newest = h.atom_of[last - 1];
  if (!h.atoms[newest].pinned) {
    const std::uint64_t needed = need(newest);
    if (needed > limit) return needed - limit;
    h.atoms[newest].pinned = true;
    h.newest_pinned = true;
  }
  for (std::size_t a = h.atoms.size(); a-- > 0;) {
    if (h.atoms[a].system || !h.atoms[a].tool_bearing) continue;
    if (!h.atoms[a].pinned && need(a) <= limit) {
      h.atoms[a].pinned = true;
      h.newest_pinned = true;
    }
    break;
  }
  return 0;
}

std::uint64_t kept_tokens(const History& h) {
  std::uint64_t total = 0;
  for (std::size_t a = 0; a < h.atoms.size(); ++a) {
    if (h.keep[a]) total += h.atoms[a].tokens;
  }
  return total;
}

// Drops the unpinned kept atoms that `chosen` picks, oldest first, until `total` fits the target;
// returns whether it does. Strategies that drop in another order call it once per class of atoms
// (tool-bearing first, ...): no list of the order is built, for a trim of 10,000 messages either.
template <typename Chosen>
bool drop_oldest(History& h, std::uint64_t target, std::uint64_t& total, Chosen chosen) {
  for (std::size_t a = 0; a < h.atoms.size(); ++a) {
    if (total <= target) return true;
    if (!h.keep[a] || h.atoms[a].pinned || !chosen(a)) continue;
    h.keep[a] = 0;
    total -= h.atoms[a].tokens;
  }
  return total <= target;
}

// Where the marker goes: before the first kept message after the first removed one (-1: none).
std::int64_t marker_place(const History& h) {
  bool seen_removed = false;
  for (std::size_t a = 0; a < h.atoms.size(); ++a) {
    if (!h.keep[a] && !h.atoms[a].system) seen_removed = true;
    if (h.keep[a] && seen_removed && !h.atoms[a].system) return h.atoms[a].first_message;
  }
  return -1;
}

TruncationPlan finish(History& h, std::span<const MessageMeta> messages, std::uint64_t target, std::uint64_t limit,
                      const TruncationOptions& options, std::uint32_t marker_tokens, bool marker_wanted) {
  TruncationPlan plan;
  // startOn 'user': leading unpinned non-user atoms go.
  if (options.start_on == StartOn::User) {
    for (std::size_t a = 0; a < h.atoms.size(); ++a) {
      if (!h.keep[a] || h.atoms[a].system) continue;
      if (h.atoms[a].first_role == Role::User) break;
      if (h.atoms[a].pinned) {
        plan.warning = "the kept messages cannot start on a user message: a pinned message comes first";
        break;
      }
      h.keep[a] = 0;
    }
  }
  std::uint64_t total = kept_tokens(h);
  // What the removal frees: past the target, a marker that costs more than that is left out (a trim
  // never makes the request larger than it was).
  const auto frees_room_for_marker = [&] {
    std::uint64_t removed = 0;
    for (std::size_t a = 0; a < h.atoms.size(); ++a)
      if (!h.keep[a]) removed += h.atoms[a].tokens;
    return removed >= marker_tokens;
  };
  std::int64_t marker_before = -1;
  if (marker_wanted) {
    marker_before = marker_place(h);
    if (marker_before >= 0) total += marker_tokens;
    // A marker that itself breaks the request's limit is left out: fitting matters more than saying
    // so. Within the limit it stays, past the target if it must (a trim that keeps the newest
    // exchange over its target would otherwise leave no word of what it removed), unless it costs
    // more than the removal frees.
    if (marker_before >= 0 && ((total > limit && total - marker_tokens <= limit) || (total > target && !frees_room_for_marker()))) {
      marker_before = -1;
      total -= marker_tokens;
    }
  }
  if (total > target) {
    std::uint64_t pinned = 0;
    for (const Atom& atom : h.atoms)
      if (atom.pinned) pinned += atom.tokens;
    if (pinned > target) {
      // Invariant 4: the pinned messages alone, and say why.
      for (std::size_t a = 0; a < h.atoms.size(); ++a) h.keep[a] = h.atoms[a].pinned ? 1 : 0;
      total = pinned;
      marker_before = -1;
      // Past the target only for the newest exchange, the request still has room for the marker
      // (its protection counted it): the model is told that messages were left out.
      if (marker_wanted && h.newest_pinned && pinned + marker_tokens <= limit && frees_room_for_marker()) {
        marker_before = marker_place(h);
        if (marker_before >= 0) total += marker_tokens;
      }
      plan.warning =
          std::string(h.newest_pinned ? "the pinned messages (system, marked and the last user message) and the newest exchange need "
                                      : "the pinned messages (system, marked and the last user message) need ") +
          std::to_string(pinned) + " tokens, more than the target of " + std::to_string(target) + "; only they are kept";
    }
  }
  plan.kept.reserve(messages.size());
  for (std::uint32_t i = 0; i < messages.size(); ++i) {
    if (h.keep[h.atom_of[i]]) {
      if (static_cast<std::int64_t>(i) == marker_before) plan.marker_position = static_cast<std::int64_t>(plan.kept.size());
      plan.kept.push_back(i);
    } else {
      plan.removed.push_back(i);
      plan.removed_tokens += messages[i].tokens;
    }
  }
  plan.kept_tokens = total;
  plan.fits = total <= target;
  return plan;
}

std::uint8_t pinned_roles_of(const StrategySpec& spec) { return spec.kind == StrategyKind::Selective ? spec.preserve_roles : 0; }

}  // namespace

TruncationPlan plan_truncation(std::span<const MessageMeta> messages, std::uint64_t target, const StrategySpec& spec) {
  History h = build(messages, spec.options, pinned_roles_of(spec));
  std::uint64_t excess = 0;
  const std::uint64_t limit = std::max(target, spec.options.request_limit.value_or(target));
  if (spec.options.keep_newest_exchange) {
    excess = protect_newest_exchange(h, messages, limit, spec.kind == StrategyKind::Smart ? spec.marker_tokens : 0);
  }
  const auto any = [](std::size_t) { return true; };
  bool marker = false;
  switch (spec.kind) {
    case StrategyKind::TokenBudget: {
      std::uint64_t total = kept_tokens(h);
      drop_oldest(h, target, total, any);
      break;
    }
    case StrategyKind::SlidingWindow: {
      // The newest window_size non-system messages (whole units), pinned atoms besides.
      std::uint32_t in_window = 0;
      bool closed = false;
      for (std::size_t a = h.atoms.size(); a-- > 0;) {
        const Atom& atom = h.atoms[a];
        if (atom.system) continue;
        if (!closed && in_window + atom.non_system <= spec.window_size) {
          in_window += atom.non_system;  // pinned messages inside the window count toward it
        } else {
          closed = true;
          if (!atom.pinned) h.keep[a] = 0;
        }
      }
      std::uint64_t total = kept_tokens(h);
      drop_oldest(h, target, total, any);
      break;
    }
    case StrategyKind::Smart: {
      std::uint32_t non_system = 0;
      for (const Atom& atom : h.atoms) non_system += atom.non_system;
      std::vector<bool> head(h.atoms.size(), false);
      // As needed: the opening turns are kept as ever, and the middle goes oldest first, only
      // until the target (the fallback below), not whole.
      if (non_system > spec.preserve_first + spec.preserve_last || spec.drop_middle_as_needed) {
        std::uint32_t count = 0;
        for (std::size_t a = 0; a < h.atoms.size() && count < spec.preserve_first; ++a) {
          if (h.atoms[a].system) continue;
          head[a] = true;
          count += h.atoms[a].non_system;
        }
        std::vector<bool> tail(h.atoms.size(), false);
        count = 0;
        for (std::size_t a = h.atoms.size(); a-- > 0 && count < spec.preserve_last;) {
          if (h.atoms[a].system || head[a]) continue;
          tail[a] = true;
          count += h.atoms[a].non_system;
        }
        if (!spec.drop_middle_as_needed && non_system > spec.preserve_first + spec.preserve_last) {
          for (std::size_t a = 0; a < h.atoms.size(); ++a) {
            if (!head[a] && !tail[a] && !h.atoms[a].pinned) h.keep[a] = 0;
          }
          marker = true;
        }
      }
      // Still too large: the oldest of the kept conversation goes first, the opening turns last.
      // Any removal, here or in the fallback, brings a marker: leave room for it.
      std::uint64_t total = kept_tokens(h);
      const bool will_remove = std::find(h.keep.begin(), h.keep.end(), 0) != h.keep.end() || total > target;
      if (will_remove) total += spec.marker_tokens;
      if (!drop_oldest(h, target, total, [&](std::size_t a) { return !head[a]; }))
        drop_oldest(h, target, total, [&](std::size_t a) { return static_cast<bool>(head[a]); });
      marker = marker || std::find(h.keep.begin(), h.keep.end(), 0) != h.keep.end();
      break;
    }
    case StrategyKind::Selective: {
      std::uint64_t total = kept_tokens(h);
      if (!spec.drop_tool_results_first)
        drop_oldest(h, target, total, any);
      else if (!drop_oldest(h, target, total, [&](std::size_t a) { return h.atoms[a].tool_bearing; }))
        drop_oldest(h, target, total, [&](std::size_t a) { return !h.atoms[a].tool_bearing; });
      break;
    }
  }
  TruncationPlan plan = finish(h, messages, target, limit, spec.options, spec.kind == StrategyKind::Smart ? spec.marker_tokens : 0,
                               spec.kind == StrategyKind::Smart && marker);
  plan.newest_exchange_excess = excess;
  return plan;
}

TruncationPlan plan_composite(std::span<const MessageMeta> messages, std::uint64_t target, std::span<const StrategySpec> strategies) {
  if (strategies.empty()) {
    throw Error::range(ErrorCode::InvalidArgument, "strategies must hold at least one strategy");
  }
  // Each strategy runs on what the previous one kept; indices are mapped back at the end.
  std::vector<std::uint32_t> current(messages.size());
  for (std::uint32_t i = 0; i < current.size(); ++i) current[i] = i;
  TruncationPlan result;
  std::int64_t marker_message = -1;  // absolute index the marker precedes
  std::uint64_t marker_cost = 0;     // later strategies leave room for an earlier one's marker
  std::vector<MessageMeta> subset;
  for (const StrategySpec& spec : strategies) {
    // The first strategy plans over the messages themselves; each later one over what the one
    // before kept (a copy: a chain usually stops at its first strategy, which then copies nothing).
    const bool whole = current.size() == messages.size();
    if (!whole) {
      subset.clear();
      subset.reserve(current.size());
      for (std::uint32_t i : current) subset.push_back(messages[i]);
    }
    // The marker an earlier strategy placed comes out of the request's limit as out of the target.
    StrategySpec room = spec;
    if (room.options.request_limit)
      room.options.request_limit = *room.options.request_limit > marker_cost ? *room.options.request_limit - marker_cost : 0;
    TruncationPlan step =
        plan_truncation(whole ? messages : std::span<const MessageMeta>(subset), target > marker_cost ? target - marker_cost : 0, room);
    result.newest_exchange_excess = std::max(result.newest_exchange_excess, step.newest_exchange_excess);
    std::vector<std::uint32_t> next;
    next.reserve(step.kept.size());
    for (std::uint32_t k : step.kept) next.push_back(current[k]);
    if (step.marker_position >= 0) {
      marker_message = next[static_cast<std::size_t>(step.marker_position)];
      marker_cost = spec.marker_tokens;
      step.kept_tokens -= spec.marker_tokens;  // counted once, below
    }
    result.warning = step.warning;
    result.kept_tokens = step.kept_tokens + (marker_message >= 0 ? marker_cost : 0);
    result.fits = result.kept_tokens <= target;
    current = std::move(next);
    if (result.fits) break;
  }
  std::vector<bool> kept(messages.size(), false);
  for (std::uint32_t i : current) kept[i] = true;
  result.kept = current;
  for (std::uint32_t i = 0; i < messages.size(); ++i)
    if (!kept[i]) {
      result.removed.push_back(i);
      result.removed_tokens += messages[i].tokens;
    }
  if (marker_message >= 0 && kept[static_cast<std::size_t>(marker_message)]) {
    result.marker_position =
        std::find(result.kept.begin(), result.kept.end(), static_cast<std::uint32_t>(marker_message)) - result.kept.begin();
  }
  return result;
}

}  // namespace ctxwin
