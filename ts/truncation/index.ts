// The truncation strategies: which messages to drop to fit a budget, planned in the core over
// per-message metadata, never splitting a tool call from its result; and the omission marker a
// trim leaves where it dropped messages, with the roles of the messages ctxwin writes itself.
export {
  SlidingWindowStrategy,
  TokenBudgetStrategy,
  SmartTruncationStrategy,
  SelectiveTruncationStrategy,
  CompositeStrategy,
  type TruncationStrategy,
  type TruncationPlan,
  type TruncationOptions,
} from "./strategies.js";
export type { InsertedRole, OmissionMarker, OmittedEntry, OmissionNames } from "../messages/index.js";
