// Llama 3.1 / 3.2 / 3.3's prompt, tools included: what Meta's published chat template (the
// tokenizer_config.json of meta-llama/Llama-3.1-8B-Instruct, the same for 3.2 and 3.3 but for 3.2's
// date) renders, written out here because the @lenml packages ship Llama 3.0's template, which
// ignores tools and lacks the date lines. Meta's template text is under the Llama Community
// License, so ctxwin carries this rendering of the documented format rather than the text; the
// tests hold it to the published template rendered by a Jinja engine.
//
//   <|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n
//   Environment: ipython\n                                   (with tools)
//   Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n{system}<|eot_id|>
//   <|start_header_id|>user<|end_header_id|>\n\nGiven the following functions, ...   (with tools:
//   {each tool as JSON, indented 4}\n\n{first user message}<|eot_id|>                 the first turn)
//   <|start_header_id|>{role}<|end_header_id|>\n\n{content}<|eot_id|>
//   <|start_header_id|>assistant<|end_header_id|>\n\n{"name": "f", "parameters": {...}}<|eot_id|>
//   <|start_header_id|>ipython<|end_header_id|>\n\n{tool result}<|eot_id|>
//   <|start_header_id|>assistant<|end_header_id|>\n\n                                   the generation prompt
import type { ToolDefinition } from "../messages/types.js";
import type { ChatTemplateMessage } from "./chat-template.js";
import { pythonJson, pythonStrip } from "./python-json.js";

/**
 * The template's default date (Llama 3.1 and 3.3 always print it; 3.2 prints the day's date in
 * the same "DD Mon YYYY" form when the renderer provides strftime_now).
 */
export const LLAMA_TEMPLATE_DATE = "26 Jul 2024";

const header = (role: string) => `<|start_header_id|>${role}<|end_header_id|>\n\n`;

/**
 * The Llama 3.1-3.3 prompt of a conversation with the generation prompt. Tools go in the first
 * turn (the template's default, tools_in_user_message); reasoning is not rendered (the template
 * has no place for it). Where the template refuses a conversation (more than one tool call in a
 * message, tools without a first message), this renders what the request still carries: each
 * call as a turn of its own, the tools with an empty first message.
 */
export function renderLlama31(messages: readonly ChatTemplateMessage[], tools: readonly ToolDefinition[] | undefined, bos: string): string {
  let rest = messages;
  let system = "";
  if (rest[0]?.role === "system") {
    system = pythonStrip(rest[0].content);
    rest = rest.slice(1);
  }
  let out = `${bos}${header("system")}`;
  if (tools !== undefined) out += "Environment: ipython\n";
  out += `Cutting Knowledge Date: December 2023\nToday Date: ${LLAMA_TEMPLATE_DATE}\n\n${system}<|eot_id|>`;
  if (tools !== undefined) {
    const first = rest[0] !== undefined ? pythonStrip(rest[0].content) : "";
    rest = rest.slice(1);
    out +=
      header("user") +
      "Given the following functions, please respond with a JSON for a function call with its proper arguments that best answers the given prompt.\n\n" +
      'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.Do not use variables.\n\n' +
      tools.map((tool) => `${pythonJson(tool, 4)}\n\n`).join("") +
      `${first}<|eot_id|>`;
  }
  for (const message of rest) {
    if (message.tool_calls !== undefined) {
      for (const call of message.tool_calls) {
        out += `${header("assistant")}{"name": "${call.function.name}", "parameters": ${pythonJson(call.function.arguments)}}<|eot_id|>`;
      }
    } else if (message.role === "tool" || message.role === "ipython") {
      // A string is iterable to Jinja2, so the template writes a tool result as a JSON string.
      out += `${header("ipython")}${pythonJson(message.content)}<|eot_id|>`;
    } else {
      out += `${header(message.role)}${pythonStrip(message.content)}<|eot_id|>`;
    }
  }
  return `${out}${header("assistant")}`;
}
