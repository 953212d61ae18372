// Model makers' published chat templates, from a package that ships them: @huggingface/ollama-utils
// (MIT, a devDependency) carries the Hugging Face Jinja template of each Ollama library model it
// maps (`gguf`: the tokenizer_config.json chat_template the model was published with), in its
// shipped src/chat-template-automap.ts. Rendered here with @huggingface/jinja, the engine ctxwin
// itself uses; the tests hold ctxwin's own renderings (llama-chat-format.ts) to them.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Template } from "@huggingface/jinja";

const require = createRequire(import.meta.url);

interface AutomapEntry {
  model: string;
  gguf: string;
}

let entries: AutomapEntry[] | undefined;

async function automap(): Promise<AutomapEntry[]> {
  if (entries === undefined) {
    // The package's exports name only its bundle, which keeps the table internal: the shipped
    // source file is imported by its path.
    const source = join(dirname(require.resolve("@huggingface/ollama-utils")), "..", "src", "chat-template-automap.ts");
    entries = ((await import(source)) as { OLLAMA_CHAT_TEMPLATE_MAPPING: AutomapEntry[] }).OLLAMA_CHAT_TEMPLATE_MAPPING;
  }
  return entries;
}

/** The published Jinja template of an Ollama library model (`library/llama3.1:8b`). */
export async function publishedTemplate(model: string): Promise<string> {
  const entry = (await automap()).find((e) => e.model === model);
  if (entry === undefined) throw new Error(`@huggingface/ollama-utils maps no ${model}`);
  return entry.gguf;
}

/** The template rendered as transformers' apply_chat_template renders it, with the generation prompt. */
export function renderPublished(template: string, context: Record<string, unknown>): string {
  return new Template(template).render({ add_generation_prompt: true, ...context });
}
