// The built-in offline summarizer as a model object.
//
// `extractiveSummarizer()` works wherever ctxwin takes a model, and because it also implements
// the AI SDK LanguageModel (v3) interface it works with `generateText` / `streamText` too. It is
// deterministic and never leaves the process: the C++ core extracts tool names, error messages,
// file paths and numbers and writes two or three sentences.
import { requireString } from "../runtime/errors.js";
import { native } from "../runtime/native.js";

interface PromptPart {
  type: string;
  text?: string;
}
interface PromptMessage {
  role: string;
  content: string | PromptPart[];
}
interface CallOptions {
  prompt: PromptMessage[];
}

type Generated = Awaited<ReturnType<ExtractiveSummarizer["doGenerate"]>>;

/** The parts of an AI SDK LanguageModelV3 stream this model sends, in this order. */
export type ExtractiveStreamPart =
  | { type: "stream-start"; warnings: [] }
  | { type: "text-start"; id: string }
  | { type: "text-delta"; id: string; delta: string }
  | { type: "text-end"; id: string }
  | { type: "finish"; finishReason: Generated["finishReason"]; usage: Generated["usage"] };

const usageOf = (input: string, output: string) => ({
  // The extractive summarizer has no tokenizer of its own; the thread manager's estimate is reported.
  inputTokens: { total: native.estimateTokens(input.length), noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: native.estimateTokens(output.length), text: undefined, reasoning: undefined },
});

export class ExtractiveSummarizer {
  readonly specificationVersion = "v3" as const;
  readonly provider = "ctxwin";
  readonly modelId = "extractive";
  readonly supportedUrls: Record<string, RegExp[]> = {};

  /**
   * Summarizes events, each the JSON of one event (or plain text). `complete` writes out every
   * tool name, path and error instead of the first 12 (compaction digests must not lose any).
   */
  summarizeEvents(eventJsonLines: string[], options: { complete?: boolean } = {}): string {
    return native.summarizeExtractive(eventJsonLines, options.complete === true);
  }

  /**
   * Summarizes a prompt. If any line of it is a JSON object, only those lines are read (the rest
   * is taken to be instructions); otherwise the whole text is.
   */
  summarize(prompt: string): string {
    return native.summarizePrompt(requireString(prompt, "prompt"));
  }

  /** AI SDK LanguageModelV3: the text of the user and system messages is summarized. */
  async doGenerate(options: CallOptions) {
    const input = promptText(options.prompt);
    const text = this.summarize(input);
    return {
      content: [{ type: "text" as const, text }],
      finishReason: { unified: "stop" as const, raw: undefined },
      usage: usageOf(input, text),
      warnings: [],
    };
  }

  /** AI SDK LanguageModelV3 streaming: the whole summary arrives as one text delta. */
  // The return type is spelled out: inferred, it would name Node's "stream/web" module in the
  // declarations, which then need @types/node. The global ReadableStream is in TypeScript's DOM
  // lib and in @types/node alike.
  async doStream(options: CallOptions): Promise<{ stream: ReadableStream<ExtractiveStreamPart> }> {
    const { content, finishReason, usage } = await this.doGenerate(options);
    const text = content[0]?.text ?? "";
    const stream = new ReadableStream<ExtractiveStreamPart>({
      start(controller) {
        controller.enqueue({ type: "stream-start", warnings: [] });
        controller.enqueue({ type: "text-start", id: "0" });
        controller.enqueue({ type: "text-delta", id: "0", delta: text });
        controller.enqueue({ type: "text-end", id: "0" });
        controller.enqueue({ type: "finish", finishReason, usage });
        controller.close();
      },
    });
    return { stream };
  }
}

function promptText(prompt: PromptMessage[]): string {
  const texts: string[] = [];
  for (const message of prompt ?? []) {
    if (message.role !== "user" && message.role !== "system") continue;
    if (typeof message.content === "string") {
      texts.push(message.content);
    } else {
      for (const part of message.content) if (part.type === "text" && typeof part.text === "string") texts.push(part.text);
    }
  }
  return texts.join("\n");
}

/** A deterministic, offline summarizer usable wherever ctxwin (or the AI SDK) takes a model. */
export function extractiveSummarizer(): ExtractiveSummarizer {
  return new ExtractiveSummarizer();
}
