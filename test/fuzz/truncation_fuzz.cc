// Fuzzes the truncation planner on random metadata: a message per 4 bytes (role, tokens, flags,
// tool unit), a target and one to three strategies from the header bytes. Invariants: kept and
// removed partition the messages, each ascending; the marker sits inside the kept list; a plan
// that says it fits does; a tool unit is kept or removed whole.
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "ctxwin/error.hpp"
#include "ctxwin/history/truncation.hpp"
#include "fuzz_support.hpp"

namespace {

ctxwin::StrategySpec spec_from(const std::uint8_t* b) {
  ctxwin::StrategySpec spec;
  spec.kind = static_cast<ctxwin::StrategyKind>(b[0] % 4);
  spec.window_size = b[1] % 32;
  spec.preserve_first = b[2] % 8;
  spec.preserve_last = b[3] % 16;
  spec.marker_tokens = b[4] % 16;
  spec.preserve_roles = b[5] & 0x1F;
  spec.preserve_marked = (b[6] & 1) != 0;
  spec.drop_tool_results_first = (b[6] & 2) != 0;
  spec.options.preserve_system = (b[6] & 4) != 0;
  spec.options.start_on = (b[6] & 8) != 0 ? ctxwin::StartOn::User : ctxwin::StartOn::Any;
  spec.options.keep_last_user = (b[6] & 16) != 0;
  return spec;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr std::size_t kSpecBytes = 7;
  if (size < 3 + kSpecBytes) return 0;
  const std::size_t strategies = 1 + data[0] % 3;
  const std::uint64_t target = (static_cast<std::uint64_t>(data[1]) << 8 | data[2]) * 4;
  std::size_t at = 3;
  std::vector<ctxwin::StrategySpec> specs;
  for (std::size_t s = 0; s < strategies && at + kSpecBytes <= size; ++s, at += kSpecBytes) specs.push_back(spec_from(data + at));
  std::vector<ctxwin::MessageMeta> messages;
  for (; at + 4 <= size; at += 4) {
    ctxwin::MessageMeta meta;
    meta.role = static_cast<ctxwin::Role>(data[at] % 5);
    meta.tokens = static_cast<std::uint32_t>(data[at + 1]) * ((data[at] & 0x80) != 0 ? 1000 : 3);
    meta.flags = (data[at + 2] & 1) != 0 ? ctxwin::MessageMeta::kMarked : 0;
    meta.unit = (data[at + 3] & 0x80) != 0 ? -1 : static_cast<std::int32_t>(data[at + 3] % 8);
    messages.push_back(meta);
  }
  ctxwin::TruncationPlan plan;
  try {
    plan = specs.size() == 1 ? ctxwin::plan_truncation(messages, target, specs[0]) : ctxwin::plan_composite(messages, target, specs);
  } catch (const ctxwin::Error&) {
    return 0;  // rejected input is fine; a crash or a broken plan is not
  }
  std::vector<int> seen(messages.size(), 0);
  for (std::size_t i = 0; i < plan.kept.size(); ++i) {
    FUZZ_CHECK(plan.kept[i] < messages.size());
    FUZZ_CHECK(i == 0 || plan.kept[i - 1] < plan.kept[i]);
    ++seen[plan.kept[i]];
  }
  for (std::size_t i = 0; i < plan.removed.size(); ++i) {
    FUZZ_CHECK(plan.removed[i] < messages.size());
    FUZZ_CHECK(i == 0 || plan.removed[i - 1] < plan.removed[i]);
    ++seen[plan.removed[i]];
  }
  for (const int count : seen) FUZZ_CHECK(count == 1);
  FUZZ_CHECK(plan.marker_position >= -1 && plan.marker_position <= static_cast<std::int64_t>(plan.kept.size()));
  if (plan.fits) FUZZ_CHECK(plan.kept_tokens <= target);
  std::map<std::int32_t, std::pair<bool, bool>> units;  // unit -> (some kept, some removed)
  for (const auto i : plan.kept)
    if (messages[i].unit >= 0) units[messages[i].unit].first = true;
  for (const auto i : plan.removed)
    if (messages[i].unit >= 0) units[messages[i].unit].second = true;
  for (const auto& [unit, state] : units) FUZZ_CHECK(!(state.first && state.second));
  return 0;
}
