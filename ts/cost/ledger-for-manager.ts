// The manager's `cost` and `compactionTiming` options. `cost: true` bills with the catalog's
// prices and the model's provider's cache semantics; an object sets them. The trim-before-every-
// request baseline trims to the manager's trimAt share of the effective limit, the most a request
// carries before the manager itself trims. `compactionTiming: "cache-aware"` times trims by the
// same prices (and so bills the session too, with `cost: true` when no cost option is given).
import { describe, typeError } from "../runtime/errors.js";
import { CompactionTiming, checkTimingMode } from "./compaction-timing.js";
import { CostLedger, type CostOptions } from "./cost-ledger.js";

export interface ManagerCost {
  ledger: CostLedger | undefined;
  timing: CompactionTiming | undefined;
}

export function costForManager(
  model: string,
  option: boolean | CostOptions | undefined,
  timingOption: unknown,
  trimTarget: number,
): ManagerCost {
  const mode = checkTimingMode(timingOption);
  if (option !== undefined && typeof option !== "boolean" && (option === null || typeof option !== "object"))
    throw typeError(`options.cost must be a boolean or an object, got ${describe(option)}`);
  const wanted = mode === "cache-aware" && (option === undefined || option === false) ? true : option;
  if (wanted === undefined || wanted === false) return { ledger: undefined, timing: undefined };
  const ledger = new CostLedger(model, Math.max(1, trimTarget), wanted === true ? {} : wanted);
  return { ledger, timing: mode === "cache-aware" ? new CompactionTiming(ledger.provider, ledger.prices) : undefined };
}
