// ctxwin/langchain: ctxwin inside LangChain v1 agents (`langchain` 1 and `@langchain/core` 1,
// optional peer dependencies; everything but the agent middleware needs `@langchain/core` alone).
//
//   const agent = createAgent({ model, tools, systemPrompt, middleware: [contextMiddleware({ model: "gpt-4o" })] });
//
// The middleware wraps every model call of the agent's loop (wrapModelCall): it counts what the
// model will receive (system message, messages, tool definitions) with the model's counter and,
// when that and the reserved output do not fit the window, brings the call's messages within it
// with ctxwin's levels. The agent's state keeps the whole history; only what each call sends is
// fitted. After the call, the response's usage_metadata calibrates later counts.
import "../../runtime/node-loader.js"; // loads the core on Node before anything uses it
import type { AgentMiddleware } from "langchain";
import type { BaseMessage } from "@langchain/core/messages";
import { PromptFitter, checkContextOptions, type ContextOptions, type FitEvent } from "../shared/prompt-fitter.js";
import { LANGCHAIN_CORE_PEER, missingPeer } from "../../runtime/require-peer.js";
import { loadFramework, loadPeer } from "../../runtime/load-peer.js";
import { reportedInputTokens } from "../../budget/usage-calibration.js";
import type { ToolDefinition } from "../../messages/types.js";
import type { RunnableLambda } from "@langchain/core/runnables";
import { typeError } from "../../runtime/errors.js";
import { trimMessageList, type TrimMessagesOptions } from "./trim-messages.js";
import { CONTENT, ORIGINAL, toMessageLike, toMessageLikes, type LinkedMessage } from "./messages.js";

// Loaded while the subpath loads (import or require): without @langchain/core, the coded error comes here.
const core = loadPeer<typeof import("@langchain/core/messages")>("@langchain/core/messages", "langchain", LANGCHAIN_CORE_PEER);
const functionCalling = loadPeer<typeof import("@langchain/core/utils/function_calling")>(
  "@langchain/core/utils/function_calling",
  "langchain",
  LANGCHAIN_CORE_PEER,
);
const runnables = loadPeer<typeof import("@langchain/core/runnables")>("@langchain/core/runnables", "langchain", LANGCHAIN_CORE_PEER);

// The agent middleware needs `langchain` itself (createMiddleware); counting, converting and
// trimming messages need only `@langchain/core`, so the subpath loads without it.
const agents = ((): typeof import("langchain") | Error => {
  try {
    return loadFramework("langchain") as typeof import("langchain");
  } catch (cause) {
    return missingPeer(
      "contextMiddleware of ctxwin/langchain",
      { what: "`langchain` (version 1)", install: "langchain@^1", code: "ERR_CTXWIN_LANGCHAIN_MISSING" },
      cause,
    );
  }
})();

export type { PromptFitter, FitRequest, FitResult } from "../shared/prompt-fitter.js";
export type { ContextOptions, FitEvent, LinkedMessage };
export { toMessageLike, toMessageLikes };
export { UsageCalibration } from "../../budget/usage-calibration.js";
export type { TrimMessagesOptions, MessageTypeOrClass, NumTokensCounter } from "./trim-messages.js";

/**
 * @langchain/core's trimMessages, with its options, keeping every tool call with its results (see
 * trim-messages.ts): `await trimMessages(messages, options)`, or `trimMessages(options)` for a
 * Runnable that trims its input (`trimMessages(options).pipe(model)`).
 */
export function trimMessages<M extends BaseMessage>(messages: readonly M[], options: TrimMessagesOptions<M>): Promise<M[]>;
export function trimMessages(options: TrimMessagesOptions<BaseMessage>): RunnableLambda<BaseMessage[], BaseMessage[]>;
export function trimMessages<M extends BaseMessage>(
  messagesOrOptions: readonly M[] | TrimMessagesOptions<BaseMessage>,
  options?: TrimMessagesOptions<M>,
): Promise<M[]> | RunnableLambda<BaseMessage[], BaseMessage[]> {
  if (Array.isArray(messagesOrOptions)) {
    if (options === undefined) return Promise.reject(typeError("options must be given with the messages"));
    return trimMessageList(messagesOrOptions as readonly M[], options);
  }
  const trimOptions = messagesOrOptions as TrimMessagesOptions<BaseMessage>;
  return runnables.RunnableLambda.from((input: BaseMessage[]) => trimMessageList(input, trimOptions)).withConfig({
    runName: "trim_messages",
  }) as RunnableLambda<BaseMessage[], BaseMessage[]>;
}
export { recallTool } from "./recall-tool.js";
export { contextTools } from "./context-tools.js";

/** A tool of the request as the counter reads definitions. */
function definitionOf(tool: unknown): ToolDefinition {
  try {
    const converted = functionCalling.convertToOpenAITool(tool as Record<string, unknown>) as ToolDefinition;
    if (converted.function && typeof converted.function.name === "string") return converted;
  } catch {
    // Provider-side tools (plain objects of a provider's own format) are counted by name below.
  }
  const record = tool as { name?: unknown; type?: unknown };
  return { type: "function", function: { name: String(record.name ?? record.type ?? "tool") } };
}

const REASONING = new Set(["reasoning", "thinking", "redacted_thinking"]);

/** A fitted message back as a LangChain message: the original where untouched. */
function toLangChain(message: LinkedMessage): BaseMessage {
  const original = message[ORIGINAL];
  if (original && message.content === message[CONTENT]) return original;
  const content =
    typeof message.content === "string" || Array.isArray(message.content) ? message.content : JSON.stringify(message.content ?? "");
  if (original && core.ToolMessage.isInstance(original)) {
    return new core.ToolMessage({
      content,
      tool_call_id: original.tool_call_id,
      name: original.name,
      id: original.id,
      status: original.status,
      artifact: original.artifact,
      additional_kwargs: original.additional_kwargs,
      response_metadata: original.response_metadata,
    });
  }
  if (original && core.AIMessage.isInstance(original)) {
    // Level 0 cleared its reasoning: the same message without reasoning and thinking blocks.
    const blocks = Array.isArray(original.content)
      ? original.content.filter((b) => !(typeof b === "object" && b !== null && REASONING.has(String((b as { type?: unknown }).type))))
      : original.content;
    return new core.AIMessage({
      content: blocks,
      tool_calls: original.tool_calls,
      invalid_tool_calls: original.invalid_tool_calls,
      id: original.id,
      name: original.name,
      additional_kwargs: original.additional_kwargs,
      response_metadata: original.response_metadata,
      usage_metadata: original.usage_metadata,
    });
  }
  if (original) return original; // levels rewrite only tool results and reasoning
  // Messages ctxwin writes: summaries and omission markers.
  const text = String(message.content ?? "");
  if (message.role === "system") return new core.SystemMessage(text);
  if (message.role === "assistant") return new core.AIMessage(text);
  return new core.HumanMessage(text);
}

export interface LangChainContextOptions extends ContextOptions {
  /** The middleware's name in the agent (default "ctxwin"). */
  name?: string;
}

/**
 * An agent middleware for `createAgent({ middleware: [...] })` that keeps every model call of the
 * agent's loop within the window (see the file comment). Summaries are written as user messages
 * unless `summaryRole` says otherwise.
 */
export function contextMiddleware(options: LangChainContextOptions): AgentMiddleware & { readonly fitter: PromptFitter } {
  if (agents instanceof Error) throw agents;
  checkContextOptions(options);
  const fitter = new PromptFitter(options);
  const middleware = agents.createMiddleware({
    name: options.name ?? "ctxwin",
    wrapModelCall: async (request, handler) => {
      const system = request.systemMessage;
      const systemText = system ? system.text : "";
      const head: LinkedMessage[] = systemText === "" ? [] : [toMessageLike(system, -1)];
      const whole = [...head, ...toMessageLikes(request.messages)];
      const tools = request.tools.map(definitionOf);
      const result = await fitter.fit(whole, { tools });
      const key: object = result.changed ? result.messages : whole;
      const response = result.changed
        ? await handler({ ...request, messages: (result.messages as LinkedMessage[]).slice(head.length).map(toLangChain) })
        : await handler(request);
      const usage = core.AIMessage.isInstance(response) ? response.usage_metadata : undefined;
      try {
        if (usage && reportedInputTokens(usage) !== undefined) fitter.observeUsage(usage, key);
      } catch (error) {
        fitter.logger.warn(`ctxwin: ignored a usage the model reported: ${(error as Error).message}`);
      }
      return response;
    },
  });
  return Object.assign(middleware, { fitter });
}
