// OpenAI's encodings and which models use them (as tiktoken maps them).
import { describe, rangeError, requireString } from "../runtime/errors.js";
import type { ClaudeFamily } from "./claude-family.js";

export type EncodingName = "r50k_base" | "p50k_base" | "cl100k_base" | "o200k_base";
export const ENCODING_NAMES: readonly EncodingName[] = ["r50k_base", "p50k_base", "cl100k_base", "o200k_base"];

export function checkEncodingName(value: unknown, name = "encoding"): EncodingName {
  if (typeof value !== "string" || !(ENCODING_NAMES as readonly string[]).includes(value)) {
    throw rangeError(`${name} must be one of ${ENCODING_NAMES.join(", ")}, got ${describe(value)}`, "ERR_CTXWIN_UNKNOWN_ENCODING");
  }
  return value as EncodingName;
}

// tiktoken/model.py: exact names first, then prefixes (dated and fine-tuned variants); its two
// encodings ctxwin has under other names are mapped to them (gpt2 -> r50k_base, p50k_edit ->
// p50k_base: same ranks, see below). "gpt-5."
// is not in tiktoken's table (it knows "gpt-5" and "gpt-5-"): gpt-tokenizer's list of OpenAI
// models, made from OpenAI's model pages, counts every GPT-5.x (gpt-5.1 to gpt-5.6, their codex,
// mini, nano and pro) with o200k_base.
const MODEL_TO_ENCODING: Record<string, EncodingName> = {
  "gpt-5": "o200k_base",
  "gpt-4.5": "o200k_base",
  "gpt-4.1": "o200k_base",
  "gpt-4o": "o200k_base",
  "chatgpt-4o-latest": "o200k_base",
  o1: "o200k_base",
  o3: "o200k_base",
  "o4-mini": "o200k_base",
  "gpt-4": "cl100k_base",
  "gpt-3.5-turbo": "cl100k_base",
  "gpt-3.5": "cl100k_base",
  "gpt-35-turbo": "cl100k_base",
  "davinci-002": "cl100k_base",
  "babbage-002": "cl100k_base",
  "text-embedding-ada-002": "cl100k_base",
  "text-embedding-3-small": "cl100k_base",
  "text-embedding-3-large": "cl100k_base",
  "text-davinci-003": "p50k_base",
  "text-davinci-002": "p50k_base",
  "code-davinci-002": "p50k_base",
  "code-davinci-001": "p50k_base",
  "code-cushman-002": "p50k_base",
  "code-cushman-001": "p50k_base",
  "davinci-codex": "p50k_base",
  "cushman-codex": "p50k_base",
  // tiktoken's p50k_edit: p50k_base's ranks and pattern plus three fill-in-the-middle special
  // tokens (50281-50283). Special-token text counts as ordinary text, so its counts are p50k_base's.
  "text-davinci-edit-001": "p50k_base",
  "code-davinci-edit-001": "p50k_base",
  "text-davinci-001": "r50k_base",
  "text-curie-001": "r50k_base",
  "text-babbage-001": "r50k_base",
  "text-ada-001": "r50k_base",
  davinci: "r50k_base",
  curie: "r50k_base",
  babbage: "r50k_base",
  ada: "r50k_base",
  "text-similarity-davinci-001": "r50k_base",
  "text-similarity-curie-001": "r50k_base",
  "text-similarity-babbage-001": "r50k_base",
  "text-similarity-ada-001": "r50k_base",
  "text-search-davinci-doc-001": "r50k_base",
  "text-search-curie-doc-001": "r50k_base",
  "text-search-babbage-doc-001": "r50k_base",
  "text-search-ada-doc-001": "r50k_base",
  "code-search-babbage-code-001": "r50k_base",
  "code-search-ada-code-001": "r50k_base",
  // The query and text halves of the search models, which tiktoken's table dropped and
  // gpt-tokenizer's (from an older model.py) keeps.
  "text-search-davinci-query-001": "r50k_base",
  "text-search-curie-query-001": "r50k_base",
  "text-search-babbage-query-001": "r50k_base",
  "text-search-ada-query-001": "r50k_base",
  "code-search-babbage-text-001": "r50k_base",
  "code-search-ada-text-001": "r50k_base",
  "gpt-3.5-0301": "cl100k_base",
  // tiktoken's gpt2 encoding is r50k_base under another name: the same ranks (GPT-2's
  // encoder.json and vocab.bpe), the same pattern and the same <|endoftext|> (50256).
  gpt2: "r50k_base",
  "gpt-2": "r50k_base",
};
const PREFIX_TO_ENCODING: Array<[string, EncodingName]> = [
  ["gpt-5-", "o200k_base"],
  ["gpt-5.", "o200k_base"],
  ["gpt-4.5-", "o200k_base"],
  ["gpt-4.1-", "o200k_base"],
  ["chatgpt-4o-", "o200k_base"],
  ["gpt-4o-", "o200k_base"],
  ["o1-", "o200k_base"],
  ["o3-", "o200k_base"],
  ["o4-mini-", "o200k_base"],
  ["gpt-oss", "o200k_base"],
  ["gpt-4-", "cl100k_base"],
  ["gpt-3.5-turbo-", "cl100k_base"],
  ["gpt-35-turbo-", "cl100k_base"],
  ["ft:gpt-4o", "o200k_base"],
  ["ft:gpt-4", "cl100k_base"],
  ["ft:gpt-3.5-turbo", "cl100k_base"],
  ["ft:davinci-002", "cl100k_base"],
  ["ft:babbage-002", "cl100k_base"],
];

/** Claude's tokenizer families, as encodingForModel names them. */
export type ClaudeEncodingName = "claude-v3" | "claude-v4.7" | "claude-v5";

export interface ModelEncoding {
  /**
   * An OpenAI encoding, a Claude family, or a tokenizer.json: `tokenizer.json (registered)` or
   * `tokenizer.json (<the installed package>)`.
   */
  encoding: EncodingName | ClaudeEncodingName | `tokenizer.json (${string})`;
  /** True when this is the model's own tokenizer (OpenAI models, Claude 3+, tokenizer.json); false for a stand-in. */
  exact: boolean;
  /** For Claude models: the family ClaudeCounter counts with. */
  family?: ClaudeFamily;
}

/** The OpenAI encoding a TiktokenCounter uses for `model`: o200k_base as the stand-in for every non-OpenAI model. */
export function tiktokenEncodingForModel(model: string): EncodingName {
  requireString(model, "model");
  return openAiEncoding(model).encoding;
}

/**
 * OpenAI's encoding of `model` as tiktoken maps models (provider paths such as `openai/` or
 * `openrouter/openai/` ignored), exact; o200k_base, not exact, for any other model.
 */
export function openAiEncoding(model: string): { encoding: EncodingName; exact: boolean } {
  const id = model
    .trim()
    .toLowerCase()
    .replace(/^(?:[a-z0-9_.-]+\/)+/, "");
  const direct = MODEL_TO_ENCODING[id];
  if (direct) return { encoding: direct, exact: true };
  for (const [prefix, encoding] of PREFIX_TO_ENCODING) if (id.startsWith(prefix)) return { encoding, exact: true };
  return { encoding: "o200k_base", exact: false };
}
