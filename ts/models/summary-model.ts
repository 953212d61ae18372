// The models summaries can be written with, and one way to call each of them.
//
// Accepted shapes:
//  - an AI SDK LanguageModel (a model object with doGenerate, or a model id string), called
//    through `generateText` of the `ai` package (an optional peer dependency);
//  - a plain function `(prompt: string) => Promise<string>`;
//  - an object with `invoke(messages)` resolving to `{ content }` (LangChain chat models);
//  - the built-in extractive summarizer (see extractive-summarizer.ts), which the core runs
//    directly on the events instead of on a prompt.
import { describe, plainError, typeError } from "../runtime/errors.js";
import { ExtractiveSummarizer } from "./extractive-summarizer.js";

/** Structural type of an AI SDK LanguageModel object (v2 or v3 specification). */
export interface LanguageModelLike {
  readonly specificationVersion: string;
  readonly provider: string;
  readonly modelId: string;
  doGenerate(options: never): PromiseLike<unknown>;
}

/** A prompt-in, text-out function. */
export type PromptFunction = (prompt: string) => Promise<string>;

/** A LangChain-style chat model: `invoke([{ role, content }])` resolves to a message with `content`. */
export interface InvokableModel {
  invoke(messages: Array<{ role: "user"; content: string }>): PromiseLike<{ content: unknown }>;
}

/** Everything `ContextManager.summarize` accepts as its `model` argument. */
export type SummaryModel = LanguageModelLike | string | PromptFunction | InvokableModel | ExtractiveSummarizer;

/** A resolved model: either the core's extractive path or a prompt caller. */
export type ResolvedModel =
  | { kind: "extractive"; summarizer: ExtractiveSummarizer }
  | { kind: "prompt"; call: (prompt: string) => Promise<string> };

function isLanguageModel(value: object): value is LanguageModelLike {
  const candidate = value as Partial<LanguageModelLike>;
  return typeof candidate.doGenerate === "function" && typeof candidate.specificationVersion === "string";
}

type GenerateText = (options: { model: unknown; prompt: string }) => Promise<{ text: string }>;

async function loadGenerateText(): Promise<GenerateText> {
  try {
    const ai = (await import("ai")) as unknown as { generateText: GenerateText };
    return ai.generateText;
  } catch (cause) {
    throw plainError(
      // ai 7 requires Node 22 or later: on an older Node the command installs ai 6.
      `ctxwin: summarizing with an AI SDK LanguageModel needs the \`ai\` package (6 or 7): npm install ai@^${Number(process.versions.node.split(".")[0]) >= 22 ? 7 : 6}`,
      "ERR_CTXWIN_AI_SDK_MISSING",
      { cause },
    );
  }
}

/** Text of a LangChain message's content: a string, or an array of parts with `text`. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) =>
        typeof part === "string" ? part : typeof (part as { text?: unknown })?.text === "string" ? (part as { text: string }).text : "",
      )
      .join("");
  }
  throw typeError(`invoke() resolved to content of type ${describe(content)}, expected a string or text parts`, "ERR_CTXWIN_INVALID_MODEL");
}

function requireText(value: unknown, what: string): string {
  // The model answered, but not with text: its shape is wrong (a model that throws passes its own error on).
  if (typeof value !== "string") throw typeError(`${what} resolved to ${describe(value)}, expected a string`, "ERR_CTXWIN_INVALID_MODEL");
  return value;
}

/**
 * Checks `model` and returns how to call it. Throws a TypeError (code ERR_CTXWIN_INVALID_MODEL)
 * naming `argumentName` when it is none of the accepted shapes, and an Error
 * (ERR_CTXWIN_AI_SDK_MISSING) when it is an AI SDK model but `ai` is not installed.
 */
export async function resolveSummaryModel(model: unknown, argumentName = "model"): Promise<ResolvedModel> {
  if (model instanceof ExtractiveSummarizer) return { kind: "extractive", summarizer: model };
  if (typeof model === "function") {
    const fn = model as (prompt: string) => unknown;
    return { kind: "prompt", call: async (prompt) => requireText(await fn(prompt), `${argumentName}(prompt)`) };
  }
  if ((typeof model === "string" && model.length > 0) || (typeof model === "object" && model !== null && isLanguageModel(model))) {
    const generateText = await loadGenerateText();
    return {
      kind: "prompt",
      call: async (prompt) => requireText((await generateText({ model, prompt })).text, "generateText"),
    };
  }
  if (typeof model === "object" && model !== null && typeof (model as Partial<InvokableModel>).invoke === "function") {
    const invokable = model as InvokableModel;
    return {
      kind: "prompt",
      call: async (prompt) => {
        const message = await invokable.invoke([{ role: "user", content: prompt }]);
        if (typeof message === "string") return message;
        if (message === null || typeof message !== "object") {
          throw typeError(`invoke() resolved to ${describe(message)}, expected a message with content`, "ERR_CTXWIN_INVALID_MODEL");
        }
        return contentText(message.content);
      },
    };
  }
  throw typeError(
    `${argumentName} must be an AI SDK LanguageModel, a function (prompt) => Promise<string>, ` +
      `an object with invoke(messages), or extractiveSummarizer(); got ${describe(model)}`,
    "ERR_CTXWIN_INVALID_MODEL",
  );
}
