// The shapes of what callers hand ctxwin: chat messages in any of the shapes it reads, tool
// definitions, system prompt blocks, and a message as chat templates read it.

/**
 * A chat message in any of the shapes ctxwin reads: OpenAI chat, AI SDK ModelMessage, Anthropic
 * Messages, and LangChain's BaseMessage, which has no `role` (its `type` says what it is), so the
 * role is optional here; the readers reject a message that has neither.
 */
export interface MessageLike {
  role?: string;
  content?: unknown;
  name?: string;
  tool_calls?: unknown;
  tool_call_id?: string;
}

/** An OpenAI tool definition (`{ type: "function", function }`) or a bare function definition. */
export interface ToolDefinition {
  type?: string;
  function?: FunctionDefinition;
  name?: string;
  description?: string;
  parameters?: FunctionDefinition["parameters"];
  /** Anthropic's spelling of `parameters`. */
  input_schema?: unknown;
}

export interface FunctionDefinition {
  name: string;
  description?: string;
  /** Its arguments' JSON schema (an object schema). */
  parameters?: JsonSchema;
}

/** A JSON schema, with the keywords the counters read named; any other keyword is carried along. */
export interface JsonSchema {
  type?: string | string[];
  description?: string;
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  required?: string[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  [keyword: string]: unknown;
}

/** A text block of an Anthropic system prompt. */
export interface SystemTextBlock {
  type?: string;
  text: string;
}

/** A message as chat templates read it (Hugging Face's chat format). */
export interface TemplateMessage {
  role: string;
  content: string;
  name?: string;
  tool_call_id?: string;
  tool_calls?: Array<{ id?: string; type: "function"; function: { name: string; arguments: unknown } }>;
}
