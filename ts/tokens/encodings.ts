// OpenAI's encodings and which models use them (as tiktoken maps them).
import { describe, rangeError, requireString } from "../runtime/errors.js";
import { claudeFamilyForModel, type ClaudeFamily } from "./claude-family.js";

export type EncodingName = "r50k_base" | "p50k_base" | "cl100k_base" | "o200k_base";
export const ENCODING_NAMES: readonly EncodingName[] = ["r50k_base", "p50k_base", "cl100k_base", "o200k_base"];

export function checkEncodingName(value: unknown, name = "encoding"): EncodingName {
  if (typeof value !== "string" || !(ENCODING_NAMES as readonly string[]).includes(value)) {
    throw rangeError(`${name} must be one of ${ENCODING_NAMES.join(", ")}, got ${describe(value)}`, "ERR_CTXWIN_UNKNOWN_ENCODING");
  }
  return value as EncodingName;
}

// tiktoken/model.py: exact names first, then prefixes (dated and fine-tuned variants).
const MODEL_TO_ENCODING: Record<string, EncodingName> = {
  "gpt-5": "o200k_base", "gpt-4.5": "o200k_base", "gpt-4.1": "o200k_base", "gpt-4o": "o200k_base", "chatgpt-4o-latest": "o200k_base",
  "o1": "o200k_base", "o3": "o200k_base", "o4-mini": "o200k_base",
  "gpt-4": "cl100k_base", "gpt-3.5-turbo": "cl100k_base", "gpt-3.5": "cl100k_base", "gpt-35-turbo": "cl100k_base",
  "davinci-002": "cl100k_base", "babbage-002": "cl100k_base",
  "text-embedding-ada-002": "cl100k_base", "text-embedding-3-small": "cl100k_base", "text-embedding-3-large": "cl100k_base",
  "text-davinci-003": "p50k_base", "text-davinci-002": "p50k_base", "code-davinci-002": "p50k_base", "code-davinci-001": "p50k_base",
  "text-davinci-001": "r50k_base", "davinci": "r50k_base", "curie": "r50k_base", "babbage": "r50k_base", "ada": "r50k_base",
};
const PREFIX_TO_ENCODING: Array<[string, EncodingName]> = [
  ["gpt-5-", "o200k_base"], ["gpt-4.5-", "o200k_base"], ["gpt-4.1-", "o200k_base"], ["chatgpt-4o-", "o200k_base"], ["gpt-4o-", "o200k_base"],
  ["o1-", "o200k_base"], ["o3-", "o200k_base"], ["o4-mini-", "o200k_base"], ["gpt-oss", "o200k_base"],
  ["gpt-4-", "cl100k_base"], ["gpt-3.5-turbo-", "cl100k_base"], ["gpt-35-turbo-", "cl100k_base"],
  ["ft:gpt-4o", "o200k_base"], ["ft:gpt-4", "cl100k_base"], ["ft:gpt-3.5-turbo", "cl100k_base"], ["ft:davinci-002", "cl100k_base"], ["ft:babbage-002", "cl100k_base"],
];

/** Claude's tokenizer families, as encodingForModel names them. */
export type ClaudeEncodingName = "claude-v3" | "claude-v4.7" | "claude-v5";

export interface ModelEncoding {
  encoding: EncodingName | ClaudeEncodingName;
  /** True when this is the model's own tokenizer (OpenAI models, Claude 3+); false for a stand-in. */
  exact: boolean;
  /** For Claude models: the family ClaudeCounter counts with. */
  family?: ClaudeFamily;
}

/**
 * The encoding for `model`. OpenAI models map as tiktoken maps them; a provider prefix
 * (`openai/gpt-4o`) is ignored. Claude 3 and later models (any spelling: Anthropic, provider
 * prefixes, Bedrock, Vertex) name their Claude tokenizer family, counted exactly by ClaudeCounter.
 * Other families (Gemini, Llama, Mistral, ...) have no public tokenizer here: they get o200k_base,
 * the closest general-purpose public vocabulary, as an approximation (`exact: false`).
 */
export function encodingForModel(model: string): ModelEncoding {
  requireString(model, "model");
  const family = claudeFamilyForModel(model);
  if (family) return { encoding: `claude-${family}`, exact: true, family };
  return openAiEncodingForModel(model);
}

/** The OpenAI encoding a TiktokenCounter uses for `model`: o200k_base as the stand-in for every non-OpenAI model. */
export function tiktokenEncodingForModel(model: string): EncodingName {
  requireString(model, "model");
  return openAiEncodingForModel(model).encoding as EncodingName;
}

function openAiEncodingForModel(model: string): ModelEncoding {
  const id = model.trim().toLowerCase().replace(/^[a-z0-9_.-]+\//, "");
  const direct = MODEL_TO_ENCODING[id];
  if (direct) return { encoding: direct, exact: true };
  for (const [prefix, encoding] of PREFIX_TO_ENCODING) if (id.startsWith(prefix)) return { encoding, exact: true };
  return { encoding: "o200k_base", exact: false };
}
