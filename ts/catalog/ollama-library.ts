// Ollama's library ids ("mistral:7b", "llama3.1:8b", "qwen2.5:7b-instruct-q4_K_M", and
// "ollama/<id>"): the model they name, with its real context length. models.dev lists no Ollama
// provider, so these ids used to resolve to a hosted model of a similar name ("mistral:7b" to
// Mistral's API's open-mistral-7b, an 8,000-token window, for a 32K model). The lengths are the
// `context_length` Ollama's library pages give for each model (the model's GGUF metadata).
//
// An Ollama server does not run that length unless told: it runs `num_ctx` (OLLAMA_CONTEXT_LENGTH,
// a Modelfile's PARAMETER, or a request's options), whose default Ollama's docs give as 4096
// tokens below 24 GiB of VRAM (docs/context-length.mdx: 32K from 24 GiB, 256K from 48 GiB), and it
// cuts a longer prompt silently. ContextLimits plans against OLLAMA_DEFAULT_NUM_CTX unless the
// caller gives `numCtx` (or the window) and says so once.
import type { ResolvedModel } from "./model-entry.js";

/** The context an Ollama server runs when nothing sets num_ctx (the smallest of its VRAM tiers). */
export const OLLAMA_DEFAULT_NUM_CTX = 4096;

/** A library model: its display name and context length; `tags` give other lengths for some tags. */
interface LibraryModel {
  name: string;
  context: number;
  tags?: ReadonlyArray<readonly [RegExp, number]>;
}

const K128 = 131072;
const LIBRARY: Readonly<Record<string, LibraryModel>> = {
  llama2: { name: "Llama 2", context: 4096 },
  llama3: { name: "Llama 3", context: 8192 },
  "llama3.1": { name: "Llama 3.1", context: K128 },
  "llama3.2": { name: "Llama 3.2", context: K128 },
  "llama3.3": { name: "Llama 3.3", context: K128 },
  mistral: { name: "Mistral 7B v0.3", context: 32768 },
  mixtral: { name: "Mixtral", context: 32768 },
  qwen2: { name: "Qwen2", context: 32768 },
  "qwen2.5": { name: "Qwen2.5", context: 32768 },
  "qwen2.5-coder": { name: "Qwen2.5 Coder", context: 32768 },
  qwen3: { name: "Qwen3", context: 40960 },
  gemma: { name: "Gemma", context: 8192 },
  gemma2: { name: "Gemma 2", context: 8192 },
  gemma3: { name: "Gemma 3", context: K128, tags: [[/^1b/, 32768]] },
  phi3: { name: "Phi-3", context: 4096, tags: [[/128k/, K128]] },
  phi4: { name: "Phi-4", context: 16384 },
  "deepseek-r1": { name: "DeepSeek-R1", context: K128 },
  codellama: { name: "Code Llama", context: 16384 },
  "command-r": { name: "Command R", context: K128 },
};

/**
 * The library model an Ollama id names, or undefined: `ollama/<name>[:tag]` (or `ollama:<name>`)
 * for any name of the library, or `<name>:<tag>` (Ollama's own form; a bare name is left to the
 * catalog, where "mistral" is also Mistral's API).
 */
export function ollamaModel(requested: string): ResolvedModel | undefined {
  const id = requested.trim().toLowerCase();
  const prefixed = /^ollama[/:]/.test(id);
  const rest = prefixed ? id.slice("ollama/".length) : id;
  if (rest.includes("/")) return undefined;
  const colon = rest.indexOf(":");
  if (!prefixed && colon < 0) return undefined;
  const name = colon < 0 ? rest : rest.slice(0, colon);
  const tag = colon < 0 ? "latest" : rest.slice(colon + 1);
  const model = Object.hasOwn(LIBRARY, name) ? LIBRARY[name] : undefined;
  if (model === undefined || !isLibraryTag(tag)) return undefined;
  const context = model.tags?.find(([pattern]) => pattern.test(tag))?.[1] ?? model.context;
  return Object.freeze({
    requested,
    provider: "ollama",
    providerName: "Ollama",
    id: `${name}:${tag}`,
    name: `${model.name} (Ollama)`,
    contextWindow: context,
    // Ollama publishes no output limit (num_predict runs to the window): the limits reserve 20%.
    maxOutput: 0,
    openWeights: true,
    source: "ollama",
    match: prefixed ? "provider" : "exact",
  });
}

/** A size first (7b, 8x7b, 1.5b, mini, latest), then variant and quantization words: "qwen2.5:1.5b-vision" is no tag of Qwen2.5. */
const SIZE = /^(?:latest|\d+(?:\.\d+)?[bm]|\d+x\d+b|mini|small|medium|large)$/;
const VARIANT = /^(?:instruct|text|chat|it|code|python|base|fp16|bf16|q\d\w*|v\d+(?:\.\d+)*|\d+k|distill|qwen|llama)$/;

function isLibraryTag(tag: string): boolean {
  const [size, ...rest] = tag.split("-");
  return size !== undefined && SIZE.test(size) && rest.every((word) => VARIANT.test(word));
}
