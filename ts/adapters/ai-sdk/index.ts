// ctxwin/ai-sdk: ctxwin inside the AI SDK's tool loop (`ai` 6 or 7, an optional peer dependency).
//
//   const model = wrapLanguageModel({ model: openai("gpt-4o"), middleware: contextMiddleware({ model: "gpt-4o" }) });
//   await generateText({ model, tools, stopWhen: stepCountIs(100), prompt });
//
// contextMiddleware sees every call of every step (generateText, streamText, ToolLoopAgent) with
// the prompt the provider will receive: system, messages and tool definitions. It brings that
// prompt within the window with ctxwin's levels before the call and passes the reported usage on
// after it. contextPrepareStep does the same for code that uses `prepareStep` instead.
import "../../runtime/node-loader.js"; // loads the core on Node before anything uses it
import type { LanguageModelMiddleware, ModelMessage, StepResult, SystemModelMessage, ToolSet } from "ai";
import { PromptFitter, checkContextOptions, type ContextOptions, type FitEvent } from "../shared/prompt-fitter.js";
import { AI_SDK_PEER } from "../../runtime/require-peer.js";
import { loadPeer } from "../../runtime/load-peer.js";
import { asProviderMessage, observeQuietly as observe } from "../shared/provider-prompt.js";
import { describe, requireCount, requireString, typeError } from "../../runtime/errors.js";
import type { MessageLike, ToolDefinition } from "../../messages/types.js";

// Loaded while the subpath loads (import or require): without `ai`, the coded error comes here.
const ai = loadPeer<typeof import("ai")>("ai", "ai-sdk", AI_SDK_PEER);

export type { PromptFitter, FitRequest, FitResult } from "../shared/prompt-fitter.js";
export type { ContextOptions, FitEvent };
export { UsageCalibration } from "../../budget/usage-calibration.js";
export { cacheHintsMiddleware, withAnthropicCacheControl, type CacheHintsOptions } from "./cache-hints.js";
export { recallTool } from "./recall-tool.js";
export { contextTools } from "./context-tools.js";

type TransformParams = NonNullable<LanguageModelMiddleware["transformParams"]>;
type CallOptions = Parameters<TransformParams>[0]["params"];
type Prompt = CallOptions["prompt"];
type CallTool = NonNullable<CallOptions["tools"]>[number];

/** A provider-level tool as the counter reads tool definitions (function tools by their JSON Schema). */
function definitionOf(tool: CallTool): ToolDefinition {
  if (tool.type === "function") {
    return {
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.inputSchema as ToolDefinition["parameters"] },
    };
  }
  // Provider-defined tools (web search, ...): their definition is the provider's; counted by name.
  return { type: "function", function: { name: tool.name } };
}

/**
 * A LanguageModelV3 middleware for `wrapLanguageModel({ model, middleware })`: before every call it
 * counts the prompt the model will receive (system, messages, tool definitions) with the model's
 * counter and, when the prompt and the call's reserved output do not fit the window, brings it
 * within with ctxwin's levels; after every call (generate or stream) it passes the reported usage
 * on, so the model's reported-to-counted ratio scales later counts up.
 */
export function contextMiddleware(options: ContextOptions): LanguageModelMiddleware & { readonly fitter: PromptFitter } {
  const fitter = new PromptFitter(checkContextOptions(options));
  return {
    specificationVersion: "v3",
    fitter,
    transformParams: async ({ params }) => {
      const tools = (params.tools ?? []).map(definitionOf);
      const result = await fitter.fit(params.prompt as unknown as MessageLike[], { tools, maxOutputTokens: params.maxOutputTokens });
      if (!result.changed) return params;
      const prompt = result.messages.map(asProviderMessage) as unknown as Prompt;
      fitter.recordRequest(prompt, result.tokens);
      return { ...params, prompt };
    },
    wrapGenerate: async ({ doGenerate, params }) => {
      const result = await doGenerate();
      observe(fitter, result.usage, params.prompt);
      return result;
    },
    wrapStream: async ({ doStream, params }) => {
      const { stream, ...rest } = await doStream();
      const watched = stream.pipeThrough(
        new TransformStream({
          transform(part, controller) {
            if (part.type === "finish") observe(fitter, part.usage, params.prompt);
            controller.enqueue(part);
          },
        }),
      );
      return { ...rest, stream: watched };
    },
  };
}

export interface PrepareStepContextOptions extends ContextOptions {
  /**
   * The system prompt the call sends: counted, and kept. prepareStep sees it only in AI SDK 7 (as
   * `instructions`), which is used when this is not set.
   */
  system?: string;
  /**
   * The tools the call sends (prepareStep does not see them): their definitions are counted. Read
   * at the first step, so the context tools made from the returned function
   * (`Object.assign(tools, contextTools(prepareStep))`) are counted when added to the same object.
   */
  tools?: ToolSet;
  /** The call's `maxOutputTokens` (prepareStep does not see it): reserved for the answer (default: the model's output limit). */
  maxOutputTokens?: number;
}

/** What prepareStep is handed, as far as this function reads it (AI SDK 6 and 7). */
type PrepareStepArgs = {
  steps: ReadonlyArray<Pick<StepResult<ToolSet>, "usage">>;
  stepNumber: number;
  messages: ModelMessage[];
  /** AI SDK 7: the system prompt of the step. */
  instructions?: unknown;
};

/** A system prompt as AI SDK 7 hands it to prepareStep (a string, a system message or a list of them) as text. */
function instructionsText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  const list = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  const texts = list.map((m: unknown) =>
    typeof m === "object" && m !== null && typeof (m as { content?: unknown }).content === "string"
      ? (m as { content: string }).content
      : undefined,
  );
  return texts.length > 0 && texts.every((t) => t !== undefined) ? texts.join("\n") : undefined;
}

/**
 * A `prepareStep` for generateText / streamText / ToolLoopAgent (AI SDK 6 and 7): before every
 * step it brings the step's messages (with the system prompt, the definitions of `tools` and the
 * reserved output, which prepareStep cannot see) within the window, and it passes each finished
 * step's usage on. It fits the whole history at every step on both majors (AI SDK 7 hands back
 * what it returned: see historyOf), so its requests are the middleware's. Returns `{ messages }`
 * when the step is to send other messages than it was handed, else `{}`. The step's own tool
 * exchange (the calls of the last step and their results) is never taken out. One function serves
 * runs one after another; give concurrent runs one each (the usage of a step is matched to what
 * this function returned for it by step number, and AI SDK 7's messages to the history it came from).
 * Its `fitter` is what contextTools(prepareStep) acts on, as with contextMiddleware.
 */
export function contextPrepareStep(options: PrepareStepContextOptions): ContextPrepareStep {
  const fitter = new PromptFitter(checkContextOptions(options));
  if (options.system !== undefined) requireString(options.system, "options.system");
  if (options.tools !== undefined && (options.tools === null || typeof options.tools !== "object"))
    throw typeError(`options.tools must be a ToolSet, got ${describe(options.tools)}`);
  if (options.maxOutputTokens !== undefined) requireCount(options.maxOutputTokens, "options.maxOutputTokens");
  /** The system prompt as the first message of what is fitted, one object per text (so that a prompt reused from an earlier step is recognised). */
  const heads = new Map<string, SystemModelMessage>();
  const headSet = new WeakSet<object>();
  const headOf = (text: string): SystemModelMessage => {
    let head = heads.get(text);
    if (!head) {
      head = { role: "system", content: text };
      heads.set(text, head);
      headSet.add(head);
    }
    return head;
  };
  let definitions: Promise<ToolDefinition[]> | undefined;
  /** What each step was sent, to match its usage. */
  const sent: object[] = [];
  /**
   * The messages the last step was sent (what this function returned, or what it was handed when
   * it returned nothing), and the whole history they were made from. AI SDK 6 hands every step
   * the whole history; AI SDK 7 hands it what the previous step was sent plus that step's
   * response (generateText's and streamText's messagesForNextStep), so a fitted prompt would come
   * back as the next step's history and be fitted again from there. Put back, the fitter sees the
   * same history at every step on both majors.
   */
  let last: { sent: readonly ModelMessage[]; history: readonly ModelMessage[] } | undefined;
  const prepareStep = async ({ steps, stepNumber, messages, instructions }: PrepareStepArgs): Promise<{ messages?: ModelMessage[] }> => {
    if (!Array.isArray(messages)) throw typeError(`messages must be an array, got ${describe(messages)}`);
    if (stepNumber === 0) {
      // a new run
      sent.length = 0;
      last = undefined;
    }
    const history = historyOf(messages, last);
    const previous = steps[steps.length - 1];
    const prompt = sent[stepNumber - 1];
    if (previous && prompt) observe(fitter, previous.usage, prompt);
    definitions ??= Promise.all(
      Object.entries(options.tools ?? {}).map(async ([name, tool]) => ({
        type: "function",
        function: {
          name,
          description: tool.description,
          parameters: (await ai.asSchema(tool.inputSchema).jsonSchema) as ToolDefinition["parameters"],
        },
      })),
    );
    const text = options.system ?? instructionsText(instructions);
    const whole = text === undefined ? history : [headOf(text), ...history];
    const result = await fitter.fit(whole as unknown as MessageLike[], {
      tools: await definitions,
      maxOutputTokens: options.maxOutputTokens,
    });
    sent[stepNumber] = result.changed ? result.messages : whole;
    if (!result.changed && history === messages) {
      last = { sent: messages, history };
      return {};
    }
    // The system prompt stays where the caller set it (`system` / `instructions`); only the
    // messages are replaced (AI SDK 7 rejects system messages among them). A history put back
    // that fits as it is goes out whole, as AI SDK 6 would send it.
    const out = result.changed ? (result.messages as unknown as ModelMessage[]).filter((m) => !headSet.has(m)) : history.slice();
    last = { sent: out, history };
    return { messages: out };
  };
  return Object.assign(prepareStep, { fitter });
}

/** What contextPrepareStep returns: the `prepareStep`, holding its fitter (for contextTools). */
export interface ContextPrepareStep {
  (args: PrepareStepArgs): Promise<{ messages?: ModelMessage[] }>;
  readonly fitter: PromptFitter;
}

/** Whether `list` begins with the objects of `prefix`, in order. */
function startsWith(list: readonly object[], prefix: readonly object[]): boolean {
  if (prefix.length > list.length) return false;
  for (let i = 0; i < prefix.length; i++) if (list[i] !== prefix[i]) return false;
  return true;
}

/**
 * The whole history of a step: `messages` as AI SDK 6 hands them (the history itself: it begins
 * with the previous step's history), or, as AI SDK 7 hands them (what the previous step was sent,
 * then its response), that step's history followed by what came after what it was sent. Anything
 * else (a caller's own prepareStep changed the messages first) is taken as it is.
 */
function historyOf(
  messages: readonly ModelMessage[],
  last: { sent: readonly ModelMessage[]; history: readonly ModelMessage[] } | undefined,
): readonly ModelMessage[] {
  if (last === undefined || last.sent === last.history || startsWith(messages, last.history)) return messages;
  if (!startsWith(messages, last.sent)) return messages;
  return [...last.history, ...messages.slice(last.sent.length)];
}
