// Prompt-cache hints inside the AI SDK: a middleware that marks each call's prompt the way
// anthropicCacheControl marks a Messages API body (providerOptions.anthropic.cacheControl on the
// last tool, the system prompt, the last compaction boundary and the newest message, at most 4
// with the caller's own), or sets OpenAI's `promptCacheKey` for the session. Composed after
// contextMiddleware (`middleware: [contextMiddleware(...), cacheHintsMiddleware(...)]`), it marks
// the prompt ctxwin fitted, so the breakpoints follow every compaction.
import type { LanguageModelMiddleware, ModelMessage } from "ai";
import { MAX_ANTHROPIC_BREAKPOINTS, type AnthropicCacheControl } from "../../cost/anthropic-cache-hints.js";
import { lastCompactionBoundary } from "../../cost/compaction-boundary.js";
import { openAIPromptCacheKey } from "../../cost/openai-cache-hints.js";
import type { AnthropicCacheTtl } from "../../cost/provider-cache.js";
import { describe, rangeError, requireString, typeError } from "../../runtime/errors.js";

export interface CacheHintsOptions {
  /** Whose hints: Anthropic `cacheControl` breakpoints or OpenAI's `promptCacheKey`. */
  provider: "anthropic" | "openai";
  /** Anthropic: "5m" (default) or "1h". */
  ttl?: AnthropicCacheTtl;
  /** OpenAI: the session the key is derived from (openAIPromptCacheKey). */
  sessionId?: string;
}

type Options = Record<string, Record<string, unknown>>;
type Marked = { providerOptions?: Options };

const marked = (item: Marked | undefined): boolean => item?.providerOptions?.anthropic?.cacheControl !== undefined;
const mark = <T extends Marked>(item: T, control: AnthropicCacheControl): T => ({
  ...item,
  providerOptions: { ...item.providerOptions, anthropic: { ...item.providerOptions?.anthropic, cacheControl: control } },
});

/**
 * `messages` (AI SDK ModelMessages, or a provider prompt) with `providerOptions.anthropic.cacheControl`
 * on the newest message, the system prompt (the system messages it opens with) and the last compaction boundary, and `tools`
 * (when given) with it on the last tool: at most 4 breakpoints with the caller's own. Returns
 * copies; what the caller passed is not changed.
 */
export function withAnthropicCacheControl<M extends { role: string; content: unknown } & Marked, T extends Marked = Marked>(
  messages: readonly M[],
  options: { ttl?: AnthropicCacheTtl; tools?: readonly T[] } = {},
): { messages: M[]; tools: T[] | undefined } {
  if (!Array.isArray(messages)) throw typeError(`messages must be an array, got ${describe(messages)}`);
  messages.forEach((m, i) => {
    if (m === null || typeof m !== "object" || typeof m.role !== "string")
      throw typeError(`messages[${i}] must be a message, got ${describe(m)}`);
  });
  if (options === null || typeof options !== "object") throw typeError(`options must be an object, got ${describe(options)}`);
  const ttl = options.ttl ?? "5m";
  if (ttl !== "5m" && ttl !== "1h") throw rangeError(`options.ttl must be "5m" or "1h", got ${describe(ttl)}`);
  const tools = options.tools;
  if (tools !== undefined && !Array.isArray(tools)) throw typeError(`options.tools must be an array, got ${describe(tools)}`);
  const control: AnthropicCacheControl = ttl === "5m" ? { type: "ephemeral" } : { type: "ephemeral", ttl };
  let room = MAX_ANTHROPIC_BREAKPOINTS - messages.filter(marked).length - (tools ?? []).filter(marked).length;
  const out = messages.slice();
  const at = (index: number) => {
    const message = out[index];
    if (room <= 0 || message === undefined || marked(message)) return;
    out[index] = mark(message, control);
    room--;
  };
  const boundary = lastCompactionBoundary(out);
  // The system prompt: the last of the system messages the prompt opens with.
  let system = -1;
  for (let i = 0; i < out.length && out[i]?.role === "system" && i !== boundary; i++) system = i;
  at(out.length - 1);
  if (system >= 0) at(system);
  if (boundary >= 0) at(boundary);
  const outTools = tools?.slice();
  if (outTools !== undefined && outTools.length > 0 && room > 0 && !marked(outTools[outTools.length - 1])) {
    outTools[outTools.length - 1] = mark(outTools[outTools.length - 1] as T, control);
    room--;
  }
  return { messages: out, tools: outTools };
}

function checkHints(options: CacheHintsOptions): { provider: "anthropic" | "openai"; ttl: AnthropicCacheTtl; key: string | undefined } {
  if (options === null || typeof options !== "object") throw typeError(`options must be an object, got ${describe(options)}`);
  if (options.provider !== "anthropic" && options.provider !== "openai")
    throw rangeError(`options.provider must be "anthropic" or "openai", got ${describe(options.provider)}`);
  const ttl = options.ttl ?? "5m";
  if (ttl !== "5m" && ttl !== "1h") throw rangeError(`options.ttl must be "5m" or "1h", got ${describe(ttl)}`);
  if (options.provider === "openai" && options.sessionId === undefined)
    throw typeError("options.sessionId is required for OpenAI: the prompt_cache_key is derived from it");
  const key = options.sessionId === undefined ? undefined : openAIPromptCacheKey(requireString(options.sessionId, "options.sessionId"));
  return { provider: options.provider, ttl, key };
}

/** A LanguageModelV3 middleware that puts the provider's cache hints on every call. */
export function cacheHintsMiddleware(options: CacheHintsOptions): LanguageModelMiddleware {
  const { provider, ttl, key } = checkHints(options);
  return {
    specificationVersion: "v3",
    transformParams: async ({ params }) => {
      if (provider === "openai") {
        const openai = { ...(params.providerOptions?.openai ?? {}), promptCacheKey: key as string };
        return { ...params, providerOptions: { ...params.providerOptions, openai } };
      }
      const { messages, tools } = withAnthropicCacheControl(params.prompt as unknown as Array<ModelMessage & Marked>, {
        ttl,
        tools: params.tools as Marked[] | undefined,
      });
      return {
        ...params,
        prompt: messages as unknown as typeof params.prompt,
        ...(tools !== undefined ? { tools: tools as unknown as typeof params.tools } : {}),
      };
    },
  };
}
