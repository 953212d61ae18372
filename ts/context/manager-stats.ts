// MessageContextManager.getStats(): what the manager reports of itself, gathered from its parts.
import type { BreakerState } from "../compaction/circuit-breaker.js";
import type { MessageLike } from "../messages/types.js";
import type { HistoryEditor } from "./history-editor.js";
import { limitStats, type ContextStats } from "./options.js";
import type { UsageCalibration } from "../budget/usage-calibration.js";
import type { ContextLimits } from "../budget/context-limits.js";

/** What getStats reads of the manager itself. */
type ManagerFigures = Pick<ContextStats, "model" | "mode" | "tokenUsage" | "availableTokens" | "usagePercentage"> & {
  limits: ContextLimits;
  calibration: UsageCalibration;
};

const ROLE_KEYS = ["system", "user", "assistant", "tool"] as const;

export function managerStats<M extends MessageLike>(
  manager: ManagerFigures,
  editor: HistoryEditor<M>,
  breaker: BreakerState,
  anchored: boolean,
): ContextStats {
  const byRole = { system: editor.systemPrompt === undefined ? 0 : 1, user: 0, assistant: 0, tool: 0 };
  for (const role of editor.history.roles) if (ROLE_KEYS[role]) byRole[ROLE_KEYS[role]]++;
  return {
    model: manager.model,
    mode: manager.mode,
    limits: limitStats(manager.limits),
    messageCount: editor.history.length,
    byRole,
    tokenUsage: manager.tokenUsage,
    availableTokens: manager.availableTokens,
    usagePercentage: manager.usagePercentage,
    countedTokens: editor.countedTokens,
    anchored,
    calibration: manager.calibration.toJSON(),
    cache: editor.cache.stats,
    cost: editor.cache.cost,
    breaker,
  };
}
