// The manager's `cost` option: true bills with the catalog's prices and the model's provider's
// cache semantics; an object sets them. The trim-before-every-request baseline trims to the
// manager's trimAt share of the effective limit, the most a request carries before the manager
// itself trims.
import { describe, typeError } from "../runtime/errors.js";
import { CostLedger, type CostOptions } from "./cost-ledger.js";

export function ledgerForManager(model: string, option: boolean | CostOptions | undefined, trimTarget: number): CostLedger | undefined {
  if (option === undefined || option === false) return undefined;
  if (option !== true && (option === null || typeof option !== "object")) throw typeError(`options.cost must be a boolean or an object, got ${describe(option)}`);
  return new CostLedger(model, Math.max(1, trimTarget), option === true ? {} : option);
}
