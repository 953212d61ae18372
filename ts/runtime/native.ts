// Loads the compiled core (build/ctxwin.node) once and describes what it exports.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
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
  estimateTokensByWords(text: string, tokensPerWord: number): number;
  estimateTokensByWordsMany(texts: string[], tokensPerWord: number): Uint32Array;
  Tokenizer: new (encoding: string, dataDir: string) => NativeTokenizer;
  /** A tokenizer.json model: `source` is a file path (`isPath`) or the file's text. */
  HfTokenizer: new (source: string, isPath: boolean) => NativeHfTokenizer;
  clearPieceCaches(): void;
  findModelLimits(model: string): { key: string; contextWindow: number; maxOutput: number } | null;
  normalizeModelId(model: string): string;
  planTruncation(
    roles: Uint8Array,
    tokens: Uint32Array,
    flags: Uint8Array,
    units: Int32Array,
    targetTokens: number,
    strategies: NativeStrategySpec[],
  ): NativeTruncationPlan;
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

/** One encoding of the core; encodings are loaded once per process and shared. */
export interface NativeTokenizer {
  count(text: string, allowSpecial?: boolean): number;
  countMany(texts: string[]): Uint32Array;
  countAsync(text: string): Promise<number>;
  countManyAsync(texts: string[]): Promise<Uint32Array>;
  encode(text: string, allowSpecial?: boolean): Uint32Array;
  decode(tokens: Uint32Array): string;
  compactToolResult(result: string, maxResultTokens: number, truncationMessage: string): NativeCompactedResult;
}

/** A tokenizer.json model loaded by the core; each object has its own piece cache. */
export interface NativeHfTokenizer {
  count(text: string, allowSpecial?: boolean): number;
  countMany(texts: string[], allowSpecial?: boolean): Uint32Array;
  encode(text: string, allowSpecial?: boolean): Uint32Array;
  summary(): string;
  memoryBytes(): number;
  clearCache(): void;
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

function load(): NativeCore {
  const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
  const addonPath = join(packageRoot, "build", "ctxwin.node");
  if (!existsSync(addonPath)) {
    throw plainError(
      `ctxwin: the native addon is not built (${addonPath} is missing). Run \`npm rebuild ctxwin\`, ` +
        "or, with npm 11's install-script approvals, `npm install-scripts approve ctxwin` and reinstall.",
      "ERR_CTXWIN_ADDON_MISSING",
    );
  }
  return createRequire(import.meta.url)(addonPath) as NativeCore;
}

export const native: NativeCore = load();
