// How OpenAI's chat models see function definitions: the API renders them into the system prompt
// as a TypeScript namespace (`namespace functions { type f = (_: { ... }) => any; }`), and a
// request's prompt_tokens count that text. The rendering is the one hmarr/openai-chat-tokens
// reconstructed from the API's counts (MIT; gpt-tokenizer's countChatCompletionTokens uses it too):
// top-level property descriptions as `//` comments, nested ones left out, `?` on optional
// properties, enums as unions of literals, arrays as `T[]`, objects as nested braces. It gives
// every prompt_tokens figure gpt-tokenizer records (32 requests, nested schemas included) and
// the Cookbook's tools example (101 tokens on gpt-4o, 105 on gpt-4 / gpt-3.5-turbo): see
// test/ts/tokens/openai-function-calling.test.ts. Type arrays (`["string", "null"]`) and
// anyOf / oneOf, which none of those requests has, are rendered as unions, the way OpenAI's own
// harmony format renders them for gpt-oss; docs/tokens.md lists them as unmeasured.
import { describe, typeError } from "../runtime/errors.js";
import { checkJsonValue, isRecord } from "../messages/message-shape.js";
import type { FunctionDefinition, JsonSchema, ToolDefinition } from "../messages/types.js";

/** Tokens the API adds around the rendered namespace (hmarr/openai-chat-tokens, checked against the recorded requests). */
export const FUNCTION_DEFINITIONS_OVERHEAD = 9;
/** Tokens the API saves when the namespace joins a system message the request already has (same source). */
export const SYSTEM_WITH_FUNCTIONS_DEDUCTION = 4;

/** The function a tool definition stands for: `{ type: "function", function }`, a bare definition, or Anthropic's `input_schema` spelling. */
export function functionOf(tool: ToolDefinition, at: string): FunctionDefinition {
  if (!isRecord(tool) || Array.isArray(tool)) throw typeError(`${at} must be a tool definition object, got ${describe(tool)}`);
  const nested = tool.function !== undefined;
  const fn: unknown = nested ? tool.function : tool;
  const fnAt = nested ? `${at}.function` : at;
  if (!isRecord(fn) || typeof fn.name !== "string") throw typeError(`${at} must be a function tool definition with a name`);
  if (fn.description !== undefined && fn.description !== null && typeof fn.description !== "string") {
    throw typeError(`${fnAt}.description must be a string, got ${describe(fn.description)}`);
  }
  const key = fn.parameters === undefined && !nested && (tool as ToolDefinition).input_schema !== undefined ? "input_schema" : "parameters";
  const parameters = fn[key];
  if (parameters !== undefined && parameters !== null) {
    checkJsonValue(parameters, `${fnAt}.${key}`);
    checkSchema(parameters, `${fnAt}.${key}`);
  }
  const description = typeof fn.description === "string" ? fn.description : undefined;
  return {
    name: fn.name,
    ...(description !== undefined ? { description } : {}),
    ...(isRecord(parameters) ? { parameters: parameters as JsonSchema } : {}),
  };
}

/** Checks the parts of a schema the rendering reads, naming the first bad one. */
function checkSchema(schema: unknown, at: string): void {
  if (!isRecord(schema) || Array.isArray(schema)) throw typeError(`${at} must be a JSON schema object, got ${describe(schema)}`);
  const { description, properties, items, required, type } = schema;
  if (description !== undefined && typeof description !== "string")
    throw typeError(`${at}.description must be a string, got ${describe(description)}`);
  if (type !== undefined && typeof type !== "string" && !(Array.isArray(type) && type.every((t) => typeof t === "string"))) {
    throw typeError(`${at}.type must be a string or an array of strings, got ${describe(type)}`);
  }
  if (required !== undefined && !(Array.isArray(required) && required.every((r) => typeof r === "string"))) {
    throw typeError(`${at}.required must be an array of strings, got ${describe(required)}`);
  }
  if (schema.enum !== undefined && !Array.isArray(schema.enum))
    throw typeError(`${at}.enum must be an array, got ${describe(schema.enum)}`);
  if (properties !== undefined) {
    if (!isRecord(properties) || Array.isArray(properties))
      throw typeError(`${at}.properties must be an object, got ${describe(properties)}`);
    for (const [name, property] of Object.entries(properties)) checkSchema(property, `${at}.properties.${name}`);
  }
  if (items !== undefined && !Array.isArray(items)) checkSchema(items, `${at}.items`);
  for (const key of ["anyOf", "oneOf"] as const) {
    const list = schema[key];
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw typeError(`${at}.${key} must be an array of schemas, got ${describe(list)}`);
    list.forEach((member: unknown, i) => checkSchema(member, `${at}.${key}[${i}]`));
  }
}

function literal(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

/** One schema as a TypeScript type; `indent` is the column of the property it types. */
function typeOf(schema: JsonSchema, indent: number): string {
  const union = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(union) && union.length > 0) return union.map((member) => typeOf(member, indent)).join(" | ");
  const type = schema.type;
  if (Array.isArray(type)) return type.length > 0 ? type.map((t) => typeOf({ ...schema, type: t }, indent)).join(" | ") : "any";
  switch (type) {
    case "string":
      return Array.isArray(schema.enum) ? schema.enum.map((value) => JSON.stringify(value)).join(" | ") : "string";
    case "integer":
    case "number":
      return Array.isArray(schema.enum) ? schema.enum.map((value) => String(value)).join(" | ") : "number";
    case "boolean":
    case "null":
      return type;
    case "array":
      return isRecord(schema.items) && !Array.isArray(schema.items) ? `${typeOf(schema.items, indent)}[]` : "any[]";
    case "object":
      return `{\n${propertiesOf(schema, indent + 2)}\n${" ".repeat(indent)}}`;
    default:
      if (type === undefined && Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum.map(literal).join(" | ");
      if (type === undefined && isRecord(schema.properties)) return typeOf({ ...schema, type: "object" }, indent);
      return "any";
  }
}

/** An object schema's properties, one line each (the top level's descriptions as comments above them). */
function propertiesOf(schema: JsonSchema, indent: number): string {
  if (!isRecord(schema.properties)) return "";
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const pad = " ".repeat(indent);
  const lines: string[] = [];
  for (const [name, property] of Object.entries(schema.properties)) {
    if (typeof property.description === "string" && property.description !== "" && indent < 2)
      lines.push(`${pad}// ${property.description}`);
    lines.push(`${pad}${name}${required.has(name) ? "" : "?"}: ${typeOf(property, indent)},`);
  }
  return lines.join("\n");
}

/** The namespace the API renders for these functions (the text whose tokens a request pays for them). */
export function renderFunctions(functions: readonly FunctionDefinition[]): string {
  const lines = ["namespace functions {", ""];
  for (const fn of functions) {
    if (fn.description !== undefined && fn.description !== "") lines.push(`// ${fn.description}`);
    const parameters = fn.parameters;
    if (parameters === undefined || !isRecord(parameters.properties) || Object.keys(parameters.properties).length === 0) {
      lines.push(`type ${fn.name} = () => any;`);
    } else {
      lines.push(`type ${fn.name} = (_: {`);
      const properties = propertiesOf(parameters, 0);
      if (properties !== "") lines.push(properties);
      lines.push("}) => any;");
    }
    lines.push("");
  }
  lines.push("} // namespace functions");
  return lines.join("\n");
}

/** OpenAI's legacy `function_call` request option: "auto", "none", or a function the model must call. */
export type FunctionCallOption = "auto" | "none" | { name: string };

/**
 * The tokens a `function_call` option adds beyond the rest of the request, as strings to count and
 * fixed tokens: "none" 1, a named function its name and 4 (hmarr/openai-chat-tokens, checked
 * against the recorded requests), "auto" (the default) nothing.
 */
export function functionCallCost(option: unknown, at: string): { texts: string[]; fixed: number } {
  if (option === undefined || option === "auto") return { texts: [], fixed: 0 };
  if (option === "none") return { texts: [], fixed: 1 };
  if (isRecord(option) && !Array.isArray(option) && typeof option.name === "string") return { texts: [option.name], fixed: 4 };
  throw typeError(`${at} must be "auto", "none" or { name }, got ${describe(option)}`);
}
