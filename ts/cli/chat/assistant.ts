// Who answers in `ctxwin chat`: a real model through the AI SDK providers (optional dependencies:
// @ai-sdk/openai-compatible for OpenAI and every server that speaks its API, @ai-sdk/anthropic),
// or the built-in offline assistant, so that the chat works on a machine with no key and no
// network.
//
// The providers are called through the LanguageModel (v3) interface itself (doStream), which
// they implement; the `ai` package is not needed for a text-only chat.
import { extractiveSummarizer } from "../../models/extractive-summarizer.js";
import { plainError } from "../../runtime/errors.js";
import type { MessageLike } from "../../messages/types.js";
import { OMISSION_MARKER, isOmissionMarkerText } from "../../messages/omission-marker.js";

/** A message of the request, as MessageContextManager.getContextForRequest gives it. */
export type ChatMessage = MessageLike;

export interface Usage {
  inputTokens?: number;
  outputTokens?: number;
}

export interface Assistant {
  /** "offline assistant", "gpt-4o-mini via https://api.openai.com/v1", ... */
  readonly description: string;
  readonly offline: boolean;
  /** Streams the reply's text; `usage` is filled in when the provider reports it. */
  reply(messages: readonly ChatMessage[], usage: Usage, signal?: AbortSignal): AsyncIterable<string>;
}

const textOf = (m: ChatMessage): string => (typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? ""));

/**
 * The offline assistant. It is not a language model and does not pretend to be one: it answers
 * from the request it is given, deterministically, with the C++ core's extractive summarizer. What
 * it says shows what a model would see: how many earlier messages reach it (a trim or /clear
 * changes that), the first thing the user said (kept by the smart trim), and the facts it
 * extracts from the new message.
 */
export class OfflineAssistant implements Assistant {
  readonly description = "offline assistant (built in: no model, no network; deterministic replies from ctxwin's extractive summarizer)";
  readonly offline = true;
  private readonly summarizer = extractiveSummarizer();

  async *reply(messages: readonly ChatMessage[]): AsyncIterable<string> {
    const conversation = messages.filter((m) => m.role === "user" || m.role === "assistant");
    const last = conversation.at(-1);
    const earlier = conversation.slice(0, -1);
    const marker = messages.find((m) => m.role !== "user" && m.role !== "assistant" && isOmissionMarkerText(textOf(m)));
    const firstUser = earlier.find((m) => m.role === "user");
    const parts: string[] = [];
    if (earlier.length === 0) {
      parts.push("(offline) This is the start of the conversation as I receive it.");
    } else {
      const omitted = marker ? ` and a note that ${OMISSION_MARKER.exec(textOf(marker))?.[1] ?? "some"} messages were left out` : "";
      parts.push(`(offline) I receive ${earlier.length} earlier messages${omitted}.`);
      if (firstUser) parts.push(`The first: "${clip(textOf(firstUser), 80)}".`);
    }
    if (last) parts.push(`Yours, summarized: ${this.summarizer.summarize(textOf(last))}`);
    yield parts.join(" ");
  }
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 3)}...`;
}

/** The LanguageModel (v3) surface this file uses. */
interface StreamingModel {
  doStream(options: {
    prompt: unknown[];
    maxOutputTokens?: number;
    abortSignal?: AbortSignal;
  }): PromiseLike<{ stream: ReadableStream<StreamPart> }>;
}
type StreamPart =
  | { type: "text-delta"; delta: string }
  | { type: "error"; error: unknown }
  | { type: "finish"; usage?: { inputTokens?: { total?: number }; outputTokens?: { total?: number } } }
  | { type: string };

/** A model through an AI SDK provider. */
export class ProviderAssistant implements Assistant {
  readonly offline = false;
  constructor(
    readonly description: string,
    private readonly model: StreamingModel,
    /** Anthropic takes system text only before the conversation: later system messages go as user text. */
    private readonly systemFirstOnly: boolean,
  ) {}

  async *reply(messages: readonly ChatMessage[], usage: Usage, signal?: AbortSignal): AsyncIterable<string> {
    const prompt = messages.map((m, i) => {
      const text = textOf(m);
      if (m.role === "system" && (!this.systemFirstOnly || i === 0)) return { role: "system", content: text };
      const role = m.role === "assistant" ? "assistant" : "user";
      return { role, content: [{ type: "text", text }] };
    });
    const { stream } = await this.model.doStream({ prompt, ...(signal ? { abortSignal: signal } : {}) });
    const reader = stream.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (value.type === "text-delta") yield (value as { delta: string }).delta;
        else if (value.type === "error") throw toError((value as { error: unknown }).error);
        else if (value.type === "finish") {
          const u = (value as Extract<StreamPart, { type: "finish" }>).usage;
          if (u?.inputTokens?.total !== undefined) usage.inputTokens = u.inputTokens.total;
          if (u?.outputTokens?.total !== undefined) usage.outputTokens = u.outputTokens.total;
        }
      }
    } finally {
      reader.releaseLock();
    }
  }
}

function toError(error: unknown): Error {
  if (error instanceof Error) return error;
  if (typeof error === "object" && error !== null && "message" in error) return new Error(String((error as { message: unknown }).message));
  return new Error(typeof error === "string" ? error : JSON.stringify(error));
}

export type ProviderName = "openai" | "anthropic";

export interface AssistantChoice {
  assistant: Assistant;
  model: string;
  /** Why this one, for the banner. */
  note?: string;
}

/** What the environment and the flags select. */
export async function chooseAssistant(
  options: { offline: boolean; provider?: ProviderName; model?: string },
  env: NodeJS.ProcessEnv,
): Promise<AssistantChoice> {
  const openai = env.OPENAI_API_KEY !== undefined || env.OPENAI_BASE_URL !== undefined;
  const anthropic = env.ANTHROPIC_API_KEY !== undefined;
  const provider = options.offline ? undefined : (options.provider ?? (openai ? "openai" : anthropic ? "anthropic" : undefined));
  if (provider === undefined) {
    return {
      assistant: new OfflineAssistant(),
      model: options.model ?? "gpt-4o-mini",
      ...(options.offline ? {} : { note: "no OPENAI_API_KEY, OPENAI_BASE_URL or ANTHROPIC_API_KEY is set" }),
    };
  }
  if (provider === "openai") {
    const baseURL = (env.OPENAI_BASE_URL ?? "https://api.openai.com/v1").replace(/\/+$/, "");
    const model = options.model ?? "gpt-4o-mini";
    const { createOpenAICompatible } = await importProvider<typeof import("@ai-sdk/openai-compatible")>("@ai-sdk/openai-compatible");
    const factory = createOpenAICompatible({
      name: "openai-compatible",
      baseURL,
      ...(env.OPENAI_API_KEY ? { apiKey: env.OPENAI_API_KEY } : {}),
      includeUsage: true,
    });
    return {
      assistant: new ProviderAssistant(`${model} via ${baseURL}`, factory.chatModel(model) as unknown as StreamingModel, false),
      model,
    };
  }
  if (env.ANTHROPIC_API_KEY === undefined) throw new Error("--provider anthropic needs ANTHROPIC_API_KEY");
  const model = options.model ?? "claude-sonnet-4-5";
  const { createAnthropic } = await importProvider<typeof import("@ai-sdk/anthropic")>("@ai-sdk/anthropic");
  const factory = createAnthropic({
    apiKey: env.ANTHROPIC_API_KEY,
    ...(env.ANTHROPIC_BASE_URL ? { baseURL: env.ANTHROPIC_BASE_URL } : {}),
  });
  return { assistant: new ProviderAssistant(`${model} via Anthropic`, factory(model) as unknown as StreamingModel, true), model };
}

// The provider SDKs are optional peers, not dependencies: they (and the zod and undici they pull
// in) are for `ctxwin chat` only, and the library's users should not install them.
async function importProvider<T>(name: string): Promise<T> {
  try {
    return (await import(name)) as T;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") {
      throw plainError(
        `ctxwin chat needs the model provider package ${name}: npm install ${name}, or run with --offline`,
        "ERR_CTXWIN_PROVIDER_MISSING",
        { cause: error },
      );
    }
    throw error;
  }
}
