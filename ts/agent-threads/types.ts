// The agent loop's core types (threads of events), exactly as the agent loops that call the thread
// manager declare them.

export type AgentEventType =
  | "tool_call"
  | "tool_result"
  | "error"
  | "human_input_requested"
  | "human_input_received"
  | "message"
  | "completion"
  | "summary";

export interface BaseEvent {
  type: AgentEventType;
  timestamp: number;
  iteration: number;
}

export interface ToolCallEvent extends BaseEvent {
  type: "tool_call";
  toolName: string;
  toolCallId: string;
  args: Record<string, unknown>;
}

export interface ToolResultEvent extends BaseEvent {
  type: "tool_result";
  toolCallId: string;
  result: unknown;
}

export interface ErrorEvent extends BaseEvent {
  type: "error";
  error: string;
  toolCallId?: string;
  recoverable: boolean;
}

export interface HumanInputRequestedEvent extends BaseEvent {
  type: "human_input_requested";
  question: string;
  context?: string;
  urgency?: "low" | "medium" | "high";
  format?: "free_text" | "yes_no" | "multiple_choice";
  choices?: string[];
}

export interface HumanInputReceivedEvent extends BaseEvent {
  type: "human_input_received";
  response: string;
}

export interface MessageEvent extends BaseEvent {
  type: "message";
  role: "user" | "assistant" | "system";
  content: string;
}

export interface CompletionEvent extends BaseEvent {
  type: "completion";
  result: string;
  verified: boolean;
}

export interface SummaryEvent extends BaseEvent {
  type: "summary";
  summarizedIterations: number[];
  summary: string;
}

export type AgentEvent =
  | ToolCallEvent
  | ToolResultEvent
  | ErrorEvent
  | HumanInputRequestedEvent
  | HumanInputReceivedEvent
  | MessageEvent
  | CompletionEvent
  | SummaryEvent;

export interface AgentThread {
  id: string;
  events: AgentEvent[];
  metadata: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
}

export interface ContextManagementConfig {
  /** Max total estimated tokens before summarization triggers (default: 150000). */
  maxContextTokens?: number;
  /** Number of most recent iterations to keep in full detail (default: 3). */
  keepRecentIterations?: number;
  /** Replaces the built-in estimate (Math.ceil(text.length / 3.5)) when given. */
  tokenEstimator?: (text: string) => number;
}
