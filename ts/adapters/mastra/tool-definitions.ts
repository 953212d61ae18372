// The definitions of a Mastra agent's tools, as the counters count them: name, description and
// the JSON Schema of the input. Mastra's tools (createTool) and AI SDK tools carry a Standard
// Schema (zod 4, valibot, arktype: `~standard.jsonSchema`) or an AI SDK schema (`jsonSchema`).
import type { FunctionDefinition, ToolDefinition } from "../../messages/types.js";

type Parameters = FunctionDefinition["parameters"];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/** The JSON Schema of a tool's input, or undefined when its schema exposes none. */
function inputSchemaOf(tool: Record<string, unknown>): Parameters | undefined {
  const schema = tool.inputSchema ?? tool.parameters;
  if (!isObject(schema)) return undefined;
  const standard = schema["~standard"];
  if (isObject(standard) && isObject(standard.jsonSchema) && typeof standard.jsonSchema.input === "function") {
    try {
      return (standard.jsonSchema.input as (options: { target: string }) => Parameters)({ target: "draft-07" });
    } catch {
      return undefined; // a schema that has no JSON Schema form (a transform, a custom type)
    }
  }
  if (isObject(schema.jsonSchema)) return schema.jsonSchema as Parameters;
  return undefined;
}

/** The step's tools as definitions (an entry that is not a tool object counts by its name). */
export function toolDefinitions(tools: Record<string, unknown> | undefined): ToolDefinition[] {
  if (!isObject(tools)) return [];
  return Object.entries(tools).map(([name, tool]) => {
    if (!isObject(tool)) return { type: "function", function: { name } };
    const description = typeof tool.description === "string" ? tool.description : undefined;
    return { type: "function", function: { name, description, parameters: inputSchemaOf(tool) } };
  });
}
