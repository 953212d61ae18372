// ctxwin/ai-sdk: ctxwin inside the AI SDK's tool loop (`ai` 6, an optional peer dependency).
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
import { requirePeer } from "../shared/require-peer.js";
import { reportedInputTokens } from "../../history/usage-calibration.js";
import { describe, requireString, typeError } from "../../runtime/errors.js";
import type { MessageLike, ToolDefinition } from "../../messages/types.js";

const ai = await requirePeer(() => import("ai"), "ai-sdk", "the `ai` package (version 6)", "ERR_CTXWIN_AI_SDK_MISSING");

export type { PromptFitter, FitRequest, FitResult } from "../shared/prompt-fitter.js";
export type { ContextOptions, FitEvent };
export { UsageCalibration } from "../../history/usage-calibration.js";

type TransformParams = NonNullable<LanguageModelMiddleware["transformParams"]>;
type CallOptions = Parameters<TransformParams>[0]["params"];
type Prompt = CallOptions["prompt"];
type CallTool = NonNullable<CallOptions["tools"]>[number];

/** A provider-level tool as the counter reads tool definitions (function tools by their JSON Schema). */
function definitionOf(tool: CallTool): ToolDefinition {
  if (tool.type === "function") {
    return { type: "function", function: { name: tool.name, description: tool.description, parameters: tool.inputSchema as ToolDefinition["parameters"] } };
  }
  // Provider-defined tools (web search, ...): their definition is the provider's; counted by name.
  return { type: "function", function: { name: tool.name } };
}

/**
 * The messages ctxwin inserts (summaries, omission markers) carry string content; AI SDK prompts
 * want parts for user and assistant messages.
 */
function asPromptMessage(message: MessageLike): Prompt[number] {
  if (typeof message.content === "string" && message.role !== "system") {
    return { role: message.role as "user" | "assistant", content: [{ type: "text", text: message.content }] };
  }
  return message as unknown as Prompt[number];
}

/** Passes a usage on, never breaking the caller's call over it. */
function observe(fitter: PromptFitter, usage: unknown, prompt: object): void {
  try {
    if (usage === undefined || reportedInputTokens(usage) === undefined) return; // the provider reports none
    fitter.observeUsage(usage as never, prompt);
  } catch (error) {
    (fitter.logger).warn(`ctxwin: ignored a usage the provider reported: ${(error as Error).message}`);
  }
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
      const prompt = result.messages.map(asPromptMessage);
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
  /** The system prompt the call sends (prepareStep does not see it): counted, and kept. */
  system?: string;
  /** The tools the call sends (prepareStep does not see them): their definitions are counted. */
  tools?: ToolSet;
}

type PrepareStepArgs = { steps: ReadonlyArray<Pick<StepResult<ToolSet>, "usage">>; stepNumber: number; messages: ModelMessage[] };

/**
 * A `prepareStep` for generateText / streamText / ToolLoopAgent: before every step it brings the
 * step's messages (with `system` and the definitions of `tools`, which prepareStep cannot see)
 * within the window, and it passes each finished step's usage on. Returns `{ messages }` when it
 * changed them, else `{}`. One function serves runs one after another; give concurrent runs one each
 * (the usage of a step is matched to what this function returned for it by step number).
 */
export function contextPrepareStep(options: PrepareStepContextOptions): (args: PrepareStepArgs) => Promise<{ messages?: ModelMessage[] }> {
  const fitter = new PromptFitter(checkContextOptions(options));
  if (options.system !== undefined) requireString(options.system, "options.system");
  if (options.tools !== undefined && (options.tools === null || typeof options.tools !== "object")) throw typeError(`options.tools must be a ToolSet, got ${describe(options.tools)}`);
  const system: SystemModelMessage | undefined = options.system === undefined ? undefined : { role: "system", content: options.system };
  let definitions: Promise<ToolDefinition[]> | undefined;
  /** What each step was sent, to match its usage. */
  const sent: object[] = [];
  return async ({ steps, stepNumber, messages }) => {
    if (!Array.isArray(messages)) throw typeError(`messages must be an array, got ${describe(messages)}`);
    if (stepNumber === 0) sent.length = 0; // a new run
    const previous = steps[steps.length - 1];
    const prompt = sent[stepNumber - 1];
    if (previous && prompt) observe(fitter, previous.usage, prompt);
    definitions ??= Promise.all(
      Object.entries(options.tools ?? {}).map(async ([name, tool]) => ({
        type: "function",
        function: { name, description: tool.description, parameters: (await ai.asSchema(tool.inputSchema).jsonSchema) as ToolDefinition["parameters"] },
      })),
    );
    const whole = system ? [system, ...messages] : messages;
    const result = await fitter.fit(whole as unknown as MessageLike[], { tools: await definitions });
    sent[stepNumber] = result.changed ? result.messages : whole;
    if (!result.changed) return {};
    // The system prompt goes as `system`, as the caller set it; only the messages are replaced.
    // System messages stay first through every level, so the system prompt is the first message
    // (this call's, or the same text from the call whose result was reused).
    const out = (result.messages as unknown as ModelMessage[]).slice(system ? 1 : 0);
    return { messages: out };
  };
}
