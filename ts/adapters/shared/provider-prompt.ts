// The prompt a provider receives, as the AI SDK's model interface hands it (LanguageModelV2, V3
// and V4 prompts: system messages with string content, user / assistant / tool messages with
// parts). The AI SDK middleware and Mastra's processLLMRequest both see this shape.
import type { PromptFitter } from "./prompt-fitter.js";
import { reportedInputTokens } from "../../budget/usage-calibration.js";
import type { MessageLike } from "../../messages/types.js";

/** A message of a provider prompt, as far as the adapters read it. */
export interface ProviderPromptMessage {
  role: string;
  content: unknown;
}

/**
 * The messages ctxwin inserts (summaries, omission markers) carry string content; a provider
 * prompt wants parts for user and assistant messages.
 */
export function asProviderMessage(message: MessageLike): ProviderPromptMessage {
  if (typeof message.content === "string" && message.role !== undefined && message.role !== "system") {
    return { role: message.role, content: [{ type: "text", text: message.content }] };
  }
  return message as unknown as ProviderPromptMessage;
}

/** Passes a usage on, never breaking the caller's call over it. */
export function observeQuietly(fitter: PromptFitter, usage: unknown, prompt: object): void {
  try {
    if (usage === undefined || usage === null || reportedInputTokens(usage) === undefined) return; // the provider reports none
    fitter.observeUsage(usage as never, prompt);
  } catch (error) {
    fitter.logger.warn(`ctxwin: ignored a usage the provider reported: ${(error as Error).message}`);
  }
}
