// ctxwin/mastra: ctxwin inside Mastra agents (`@mastra/core` 1, an optional peer dependency), as
// one of the agent's input processors.
//
//   const agent = new Agent({ id: "coder", name: "coder", model, tools, instructions,
//     inputProcessors: [new ToolCallFilter(), contextProcessor({ model: "gpt-4o" })] });
//
// The processor works at Mastra's last input stage, processLLMRequest: at every step of the loop
// (tool-call continuations included), on the prompt the provider is about to receive, after every
// other processor's work (a ToolCallFilter's removals included), and without changing what the
// agent's memory keeps. processInputStep only notes the step's tools and output reserve, which the
// prompt does not carry; processLLMResponse passes the reported usage on. Nothing here imports
// @mastra/core: the processor matches Mastra's Processor interface by shape, and recallTool loads
// Mastra's createTool when it is called.
import "../../runtime/node-loader.js"; // loads the core on Node before anything uses it
import { PromptFitter, checkContextOptions, type ContextOptions, type FitEvent } from "../shared/prompt-fitter.js";
import { asProviderMessage, observeQuietly, type ProviderPromptMessage } from "../shared/provider-prompt.js";
import { toolDefinitions } from "./tool-definitions.js";
import type { MessageLike, ToolDefinition } from "../../messages/types.js";

export type { PromptFitter, FitRequest, FitResult } from "../shared/prompt-fitter.js";
export type { ContextOptions, FitEvent };
export { UsageCalibration } from "../../budget/usage-calibration.js";
export { recallTool, type MastraValidationError, type RecallMastraTool } from "./recall-tool.js";
export { contextTools, type ContextMastraTool } from "./context-tools.js";

/** What processInputStep is handed, as far as the processor reads it. */
export interface InputStepArgs {
  tools?: Record<string, unknown> | undefined;
  modelSettings?: { maxOutputTokens?: number | undefined } | undefined;
  state: Record<string, unknown>;
}

/** What processLLMRequest is handed, as far as the processor reads it. */
export interface LLMRequestArgs<P extends readonly ProviderPromptMessage[]> {
  prompt: P;
  state: Record<string, unknown>;
}

/** What processLLMResponse is handed, as far as the processor reads it. */
export interface LLMResponseArgs {
  chunks: ReadonlyArray<{ type: string; payload: unknown }>;
  state: Record<string, unknown>;
}

/** Keys of the per-request state Mastra shares between the processor's methods. */
const TOOLS = "ctxwin.tools";
const MAX_OUTPUT = "ctxwin.maxOutputTokens";
const SENT = "ctxwin.sent";

/**
 * A Mastra input processor that brings every model call's prompt within the model's window (see
 * the file comment). One processor serves every run of an agent, concurrent ones included.
 */
export class ContextProcessor {
  readonly id = "ctxwin-context";
  readonly name = "ctxwin context window";
  /** The engine: its calibration, its budget(). */
  readonly fitter: PromptFitter;

  constructor(options: ContextOptions) {
    this.fitter = new PromptFitter(checkContextOptions(options));
  }

  /** Notes the step's tools and reserved output, which the provider prompt does not carry. */
  processInputStep({ tools, modelSettings, state }: InputStepArgs): undefined {
    state[TOOLS] = toolDefinitions(tools);
    state[MAX_OUTPUT] = modelSettings?.maxOutputTokens;
    return undefined;
  }

  /** Fits the prompt the provider is about to receive; returns it only when it changed. */
  async processLLMRequest<P extends readonly ProviderPromptMessage[]>({
    prompt,
    state,
  }: LLMRequestArgs<P>): Promise<{ prompt: P } | undefined> {
    const tools = state[TOOLS] as ToolDefinition[] | undefined;
    const maxOutputTokens = state[MAX_OUTPUT] as number | undefined;
    const result = await this.fitter.fit(prompt as unknown as MessageLike[], { tools, maxOutputTokens });
    if (!result.changed) {
      state[SENT] = prompt;
      return undefined;
    }
    const fitted = result.messages.map(asProviderMessage);
    this.fitter.recordRequest(fitted, result.tokens);
    state[SENT] = fitted;
    return { prompt: fitted as unknown as P };
  }

  /** Passes the step's reported usage (its finish chunk's) on. */
  processLLMResponse({ chunks, state }: LLMResponseArgs): undefined {
    const sent = state[SENT];
    const finish = chunks.findLast((c) => c.type === "finish")?.payload as { output?: { usage?: unknown } } | undefined;
    if (typeof sent === "object" && sent !== null) observeQuietly(this.fitter, finish?.output?.usage, sent);
    return undefined;
  }
}

/** A ContextProcessor for an agent's `inputProcessors`. */
export function contextProcessor(options: ContextOptions): ContextProcessor {
  return new ContextProcessor(options);
}
