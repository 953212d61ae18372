// The inspect view's shape: what analyzeContext returns, `--json` prints and `--html` draws
// (inspect-html.ts reads it without importing the command).
import type { CostView } from "./inspect-cost.js";

export interface Component {
  name: string;
  tokens: number;
  children?: Component[];
}

export interface MessageSummary {
  index: number;
  role: string;
  /** The tool whose result it is, for tool results. */
  tool?: string;
  tokens: number;
  preview: string;
}

export interface ContextView {
  model: string;
  encoding: string;
  exact: boolean;
  window: number;
  effectiveLimit: number;
  /** Window tokens kept for the response and the safety margin. */
  reserved: number;
  total: number;
  messages: number;
  components: Component[];
  largest: MessageSummary[];
  trim: {
    strategy: string;
    /** Trims start above this many tokens (trimAt of the effective limit), and trim to it. */
    threshold: number;
    due: boolean;
    removed: MessageSummary[];
    removedTokens: number;
    tokensAfter: number;
    marker?: string;
    warning?: string;
  };
  /** What the request costs through the provider's cache, where the catalog has the model's prices. */
  cost?: CostView;
}
