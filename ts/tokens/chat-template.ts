// The chat side of a tokenizer.json model: its tokenizer_config.json (chat template, special
// tokens), the template class, and messages read into the shape chat templates expect.
import { describe, rangeError, typeError } from "../runtime/errors.js";
import { coreHost, type JinjaTemplateClass } from "../runtime/native.js";
import { isRecord, roleOf, visitMessage, visitToolOutput, type MessageVisitor } from "../messages/message-shape.js";
import { chatMessageOf } from "../messages/langchain-shape.js";
import type { TemplateMessage } from "../messages/types.js";
import { hostFiles, tokenizerUnavailable } from "./tokenizer-files.js";

/** @huggingface/jinja's Template, from the runtime (on the web: what init() was given). */
export function templateClass(): JinjaTemplateClass {
  const template = coreHost().jinjaTemplate();
  if (template === undefined) {
    throw tokenizerUnavailable(
      'ctxwin: rendering a chat template needs @huggingface/jinja; on the web pass it to init(): `init({ jinja: await import("@huggingface/jinja") })`',
    );
  }
  return template;
}

export const SPECIAL_TOKEN_KEYS = ["bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"];

export function readConfig(
  config: string | Record<string, unknown> | undefined,
  file: string | undefined,
): Record<string, unknown> | undefined {
  let text: string | undefined;
  if (config === undefined) {
    const files = coreHost().files;
    if (file === undefined || files === undefined) return undefined;
    config = files.sibling(file, "tokenizer_config.json");
    text = files.readText(config);
    if (text === undefined) return undefined;
  }
  if (typeof config === "string") {
    try {
      text ??= hostFiles("options.tokenizerConfig", config).readText(config);
      // plain Error: caught just below, the reason (and cause) of ERR_CTXWIN_TOKENIZER_UNAVAILABLE.
      if (text === undefined) throw new Error("no such file");
      return JSON.parse(text) as Record<string, unknown>;
    } catch (error) {
      if ((error as { code?: unknown }).code === "ERR_CTXWIN_TOKENIZER_UNAVAILABLE") throw error;
      throw tokenizerUnavailable(
        `ctxwin: cannot read tokenizer_config.json "${config}": ${error instanceof Error ? error.message : String(error)}`,
        error,
      );
    }
  }
  if (!isRecord(config) || Array.isArray(config))
    throw typeError(`options.tokenizerConfig must be a path or an object, got ${describe(config)}`);
  return config;
}

/** The config's chat template: a string, or the one named "default" of a list of named templates. */
export function templateOf(config: Record<string, unknown> | undefined): string | undefined {
  const template = config?.chat_template;
  if (typeof template === "string") return template;
  if (Array.isArray(template)) {
    const named = template.find((t) => isRecord(t) && t.name === "default") as { template?: unknown } | undefined;
    if (named && typeof named.template === "string") return named.template;
  }
  return undefined;
}

export function tokenText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (isRecord(value) && typeof value.content === "string") return value.content;
  return undefined;
}

function parseArguments(args: unknown): unknown {
  if (typeof args !== "string") return args ?? {};
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

/**
 * A message as chat templates read it, with its reasoning apart from its text, in the field
 * Qwen 3's and DeepSeek's templates (and vLLM, SGLang) read it from: each template places it.
 */
export interface ChatTemplateMessage extends TemplateMessage {
  reasoning_content?: string;
}

// Reasoning parts: the AI SDK's `reasoning`, Anthropic's `thinking` (its signature and Anthropic's
// encrypted `redacted_thinking` mean nothing to an open model's template and are not sent to one).
const REASONING_PART_TYPES = new Set(["reasoning", "thinking", "redacted_thinking"]);

/** The reasoning a message carries: its reasoning parts, or the field providers return it in. */
function splitReasoning(message: Record<string, unknown>): { body: Record<string, unknown>; reasoning: string[] } {
  const reasoning: string[] = [];
  // DeepSeek's and vLLM's `reasoning_content`, OpenRouter's `reasoning`, Ollama's `thinking`.
  for (const key of ["reasoning_content", "reasoning", "thinking"]) {
    if (typeof message[key] === "string" && message[key] !== "") reasoning.push(message[key]);
  }
  // A Responses reasoning item: its summary and its text, as reasoning (its encrypted_content is
  // OpenAI's, as a signature is Anthropic's).
  if (message.role === undefined && message.type === "reasoning") {
    for (const list of [message.summary, message.content]) {
      if (Array.isArray(list))
        for (const part of list) if (isRecord(part) && typeof part.text === "string" && part.text !== "") reasoning.push(part.text);
    }
    return { body: { role: "assistant", content: [] }, reasoning };
  }
  if (!Array.isArray(message.content)) return { body: message, reasoning };
  const content: unknown[] = [];
  for (const part of message.content) {
    if (isRecord(part) && typeof part.type === "string" && REASONING_PART_TYPES.has(part.type)) {
      const text = part.type === "reasoning" ? part.text : part.type === "thinking" ? part.thinking : undefined;
      if (typeof text === "string" && text !== "") reasoning.push(text);
    } else {
      content.push(part);
    }
  }
  return { body: { ...message, content }, reasoning };
}

/** Reads any message shape ctxwin knows into the chat format templates expect; counts its images. */
export function toTemplateMessage(given: unknown, index: number): { message: ChatTemplateMessage; images: number } {
  const read = chatMessageOf(given, `messages[${index}]`);
  if (!isRecord(read)) throw typeError(`messages[${index}] must be a message object, got ${describe(read)}`);
  // A Responses item goes in as the message of the role it stands for.
  const role = roleOf(read, `messages[${index}]`);
  const { body: message, reasoning } = splitReasoning(read);
  const texts: string[] = [];
  // An AI SDK or Anthropic tool result names its call in the part, not in the message.
  let resultId: string | undefined;
  const calls: NonNullable<TemplateMessage["tool_calls"]> = [];
  let images = 0;
  const text = (value: unknown) => {
    if (typeof value === "string") texts.push(value);
    else if (value !== undefined && value !== null) texts.push(JSON.stringify(value) ?? "");
  };
  const visitor: MessageVisitor = {
    text,
    image: () => {
      images++;
    },
    toolCall: (id, name, args) => {
      calls.push({
        ...(id !== undefined ? { id } : {}),
        type: "function",
        function: { name: String(name ?? ""), arguments: parseArguments(args) },
      });
    },
    toolResult: (id, output) => {
      resultId ??= id;
      visitToolOutput(output, visitor);
    },
  };
  const body: Record<string, unknown> = { ...message };
  // The template gets these as fields (visitMessage would count tool_call_id as text).
  for (const key of ["tool_call_id", "reasoning_content", "reasoning", "thinking"]) delete body[key];
  visitMessage(body, visitor);
  const out: ChatTemplateMessage = { role, content: texts.join("") };
  if (typeof message.name === "string") out.name = message.name;
  if (typeof message.tool_call_id === "string") out.tool_call_id = message.tool_call_id;
  else if (resultId !== undefined && role === "tool") out.tool_call_id = resultId;
  if (calls.length > 0) out.tool_calls = calls;
  if (reasoning.length > 0) out.reasoning_content = reasoning.join("\n");
  return { message: out, images };
}

/** What render and countMessages need of the config: the compiled template and the special tokens. */
export interface ChatSetup {
  template: InstanceType<JinjaTemplateClass> | undefined;
  /** The template's source (the config's, or the `chatTemplate` option's). */
  templateText: string | undefined;
  specialTokens: Record<string, string>;
}

/** Throws a TypeError when the `tokenizerConfig` option is neither a path nor an object (cheap: reads nothing). */
export function checkConfigOption(config: unknown): void {
  if (config === undefined || (typeof config === "string" && config.length > 0)) return;
  if (!isRecord(config) || Array.isArray(config))
    throw typeError(`options.tokenizerConfig must be a path or an object, got ${describe(config)}`);
}

/**
 * Reads the config (the given one, else the tokenizer_config.json beside `file`) and compiles its
 * chat template, or `chatTemplate` when given (`null`: none). This is the part of a tokenizer.json
 * model that only messages need: for Gemma 3 a 1.2 MB JSON file and a template.
 */
export function resolveChat(
  config: string | Record<string, unknown> | undefined,
  chatTemplate: string | null | undefined,
  file: string | undefined,
): ChatSetup {
  const read = readConfig(config, file);
  const specialTokens: Record<string, string> = {};
  for (const key of SPECIAL_TOKEN_KEYS) {
    const value = tokenText(read?.[key]);
    if (value !== undefined) specialTokens[key] = value;
  }
  const templateText = chatTemplate === null ? undefined : (chatTemplate ?? templateOf(read));
  if (templateText === undefined) return { template: undefined, templateText, specialTokens };
  // A template's checks (Gemma's "roles must alternate") would make a partial conversation, such
  // as the one message the history code prices alone, uncountable: they render nothing.
  let template: InstanceType<JinjaTemplateClass>;
  try {
    template = new (templateClass())(templateText.replaceAll("raise_exception(", "__ctxwin_ignore("));
  } catch (error) {
    if ((error as { code?: unknown }).code === "ERR_CTXWIN_TOKENIZER_UNAVAILABLE") throw error;
    throw rangeError(
      `ctxwin: the chat template does not parse: ${error instanceof Error ? error.message : String(error)}`,
      "ERR_CTXWIN_INVALID_TOKENIZER",
      { cause: error },
    );
  }
  return { template, templateText, specialTokens };
}
