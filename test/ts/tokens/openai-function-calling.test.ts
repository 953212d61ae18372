// OpenAI chat requests with function definitions, counted against the API's own prompt_tokens:
// gpt-tokenizer's function-calling cases (32 requests recorded from the API, read from the
// package's shipped fixtures, MIT: legacy `functions` and `function_call`, nested schemas,
// `role: "function"` messages, system messages beside functions) and the OpenAI Cookbook's tools
// example ("How to count tokens with tiktoken", MIT: 101 prompt tokens on gpt-4o, 105 on gpt-4 and
// gpt-3.5-turbo). Then gpt-tokenizer's countChatCompletionTokens as an oracle on generated
// requests within the schemas those figures cover, and what ctxwin adds beyond them.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import gpt4o from "gpt-tokenizer/model/gpt-4o";
import { functionCallingTestCases } from "gpt-tokenizer/fixtures/functionCallingTestCases";
import { TiktokenCounter, getCounter, type MessageLike, type TokenCounter } from "ctxwin";
import { ApproximateCounter, CachingCounter, type FunctionDefinition, type JsonSchema } from "ctxwin/tokens";

const o200k = new TiktokenCounter({ model: "gpt-4o" });
const cl100k = new TiktokenCounter({ model: "gpt-4" });

/** A recorded request as ctxwin takes it: the messages, and the request's other fields as options. */
function countRequest(counter: TokenCounter, request: (typeof functionCallingTestCases)[number]): number {
  const { messages, functions, function_call: functionCall } = request;
  return counter.countMessages(messages as MessageLike[], {
    ...(functions !== undefined ? { functions: functions as FunctionDefinition[] } : {}),
    ...(functionCall !== undefined ? { functionCall } : {}),
  });
}

describe("gpt-tokenizer's function-calling cases (prompt_tokens recorded from the API)", () => {
  it("holds the recorded requests (32 in gpt-tokenizer 4.0.0), functions and function messages among them", () => {
    expect(functionCallingTestCases.length).toBeGreaterThanOrEqual(28);
    expect(functionCallingTestCases.some((c) => c.functions !== undefined && c.function_call !== undefined)).toBe(true);
    expect(functionCallingTestCases.some((c) => c.messages.some((m) => m.role === "function"))).toBe(true);
  });

  it.each(functionCallingTestCases.map((c, i) => [i, c] as const))("request %i counts what the API counted", (_i, request) => {
    expect(countRequest(o200k, request)).toBe(request.tokens);
    // getCounter's CachingCounter frames the request the same way.
    expect(countRequest(getCounter("gpt-4o"), request)).toBe(request.tokens);
  });
});

describe("the OpenAI Cookbook's tools example (prompt_tokens from the API)", () => {
  const tools = [
    {
      type: "function",
      function: {
        name: "get_current_weather",
        description: "Get the current weather in a given location",
        parameters: {
          type: "object",
          properties: {
            location: { type: "string", description: "The city and state, e.g. San Francisco, CA" },
            unit: { type: "string", description: "The unit of temperature to return", enum: ["celsius", "fahrenheit"] },
          },
          required: ["location"],
        },
      },
    },
  ];
  const messages = [
    { role: "system", content: "You are a helpful assistant that can answer to questions about the weather." },
    { role: "user", content: "What's the weather like in San Francisco?" },
  ];

  it("is 101 tokens on gpt-4o and gpt-4o-mini (o200k_base)", () => {
    expect(o200k.countMessages(messages, { tools })).toBe(101);
    expect(new TiktokenCounter({ model: "gpt-4o-mini" }).countMessages(messages, { tools })).toBe(101);
  });

  it("is 105 tokens on gpt-4 and gpt-3.5-turbo (cl100k_base)", () => {
    expect(cl100k.countMessages(messages, { tools })).toBe(105);
    expect(new TiktokenCounter({ model: "gpt-3.5-turbo" }).countMessages(messages, { tools })).toBe(105);
  });

  it("counts the same tools given as legacy functions, bare definitions or Anthropic's input_schema", () => {
    const fn = tools[0]!.function;
    const expected = o200k.countMessages(messages, { tools });
    expect(o200k.countMessages(messages, { functions: [fn] })).toBe(expected);
    expect(o200k.countMessages(messages, { tools: [fn] })).toBe(expected);
    expect(o200k.countMessages(messages, { tools: [{ name: fn.name, description: fn.description, input_schema: fn.parameters }] })).toBe(
      expected,
    );
  });
});

// Requests within what the recorded figures cover: object schemas of strings (with enums), numbers,
// booleans, arrays and nested objects, descriptions and required lists; messages of every role
// with names and legacy function calls; function_call options.
const word = fc.stringMatching(/^[a-z][a-z_]{0,11}$/);
const prose = fc
  .array(fc.constantFrom("the", "file", "path", "Read", "a", "number", "of", "lines", "ok.", "e.g.", "42", "naïve", "東京", "\n", ":"), {
    minLength: 1,
    maxLength: 12,
  })
  .map((w) => w.join(" "));
const schema: fc.Memo<JsonSchema> = fc.memo((depth) =>
  fc.oneof(
    { depthSize: "small" },
    fc.record(
      {
        type: fc.constant("string"),
        description: fc.option(prose, { nil: undefined }),
        enum: fc.option(fc.array(word, { minLength: 1, maxLength: 4 }), { nil: undefined }),
      },
      { requiredKeys: ["type"] },
    ),
    fc.record(
      { type: fc.constantFrom("number", "integer"), description: fc.option(prose, { nil: undefined }) },
      { requiredKeys: ["type"] },
    ),
    fc.record({ type: fc.constantFrom("boolean", "null") }),
    depth > 0
      ? fc.record(
          { type: fc.constant("array"), items: schema(depth - 1), description: fc.option(prose, { nil: undefined }) },
          { requiredKeys: ["type", "items"] },
        )
      : fc.constant({ type: "array" }),
    depth > 0 ? objectSchema(schema(depth - 1)) : fc.constant({ type: "object" }),
  ),
);
function objectSchema(property: fc.Arbitrary<JsonSchema>): fc.Arbitrary<JsonSchema> {
  return fc.dictionary(word, property, { maxKeys: 4 }).chain((properties) =>
    fc.record(
      {
        type: fc.constant("object"),
        properties: fc.constant(properties),
        required: fc.subarray(Object.keys(properties)),
        description: fc.option(prose, { nil: undefined }),
      },
      { requiredKeys: ["type", "properties", "required"] },
    ),
  );
}
const fn: fc.Arbitrary<FunctionDefinition> = fc.record(
  { name: word, description: fc.option(prose, { nil: undefined }), parameters: objectSchema(schema(2)) },
  { requiredKeys: ["name", "parameters"] },
);
const message = fc.oneof(
  fc.record(
    { role: fc.constantFrom("system", "user", "assistant"), content: prose, name: fc.option(word, { nil: undefined }) },
    { requiredKeys: ["role", "content"] },
  ),
  fc.record({ role: fc.constant("function"), name: word, content: prose }),
  fc.record({ role: fc.constant("assistant"), content: fc.constant(""), function_call: fc.record({ name: word, arguments: prose }) }),
);
const functionCall = fc.option(
  fc.oneof(
    fc.constantFrom("auto" as const, "none" as const),
    word.map((name) => ({ name })),
  ),
  { nil: undefined },
);

describe("against gpt-tokenizer's countChatCompletionTokens on generated requests", () => {
  it("counts every request as it does", () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 6 }), fc.array(fn, { maxLength: 3 }), functionCall, (messages, functions, call) => {
        const expected = gpt4o.countChatCompletionTokens!({
          messages,
          functions: functions as never,
          ...(call !== undefined ? { function_call: call } : {}),
        });
        expect(o200k.countMessages(messages, { functions, ...(call !== undefined ? { functionCall: call } : {}) })).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });
});

describe("what no recorded figure covers", () => {
  const ask = [{ role: "user", content: "hello" }];
  const withProperty = (property: JsonSchema) =>
    o200k.countMessages(ask, { functions: [{ name: "f", parameters: { type: "object", properties: { x: property } } }] });

  it("renders a type list and anyOf / oneOf as unions, never as a bare `any`", () => {
    expect(withProperty({ type: ["string", "null"] })).toBeGreaterThan(withProperty({ type: "string" }));
    expect(withProperty({ anyOf: [{ type: "string" }, { type: "number" }] })).toBeGreaterThan(withProperty({}));
    expect(withProperty({ oneOf: [{ type: "object", properties: { a: { type: "string" } } }, { type: "null" }] })).toBeGreaterThan(
      withProperty({ type: "object", properties: { a: { type: "string" } } }),
    );
    expect(withProperty({ enum: ["a", "b"] })).toBeGreaterThan(withProperty({}));
  });

  it("counts a nested schema's properties (the Cookbook's per-property formula left them out)", () => {
    const deep = (n: number): JsonSchema =>
      n === 0 ? { type: "string" } : { type: "object", properties: { [`level${n}`]: deep(n - 1), [`sibling${n}`]: { type: "number" } } };
    expect(withProperty(deep(4)) - withProperty(deep(1))).toBeGreaterThan(20);
  });

  it("is the same request counted through countEachMessage: each message, plus the definitions' share", () => {
    const messages = [
      { role: "system", content: "Be brief" },
      { role: "user", content: "hi" },
    ];
    const functions = [
      {
        name: "read",
        description: "Read a file",
        parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
      },
    ];
    const each = o200k.countEachMessage(messages, { functions });
    // The first system message ends with a newline once the definitions follow it.
    expect(each[0]).toBe(o200k.countEachMessage([{ role: "system", content: "Be brief\n" }])[0]);
    expect(each[1]).toBe(o200k.countEachMessage([messages[1]!])[0]);
  });

  it("frames requests the same way in the approximate and caching counters", () => {
    for (const counter of [new ApproximateCounter(), new CachingCounter(new ApproximateCounter())]) {
      const functions = [{ name: "read", parameters: { type: "object", properties: { path: { type: "string" } } } }];
      expect(counter.countMessages(ask, { functions })).toBeGreaterThan(counter.countMessages(ask));
      expect(counter.countMessages(ask, { functions, functionCall: { name: "read" } })).toBeGreaterThan(
        counter.countMessages(ask, { functions }),
      );
    }
  });
});

describe("bad function definitions and options", () => {
  const ask = [{ role: "user", content: "hello" }];
  const rejects = (options: object, pattern: RegExp, type: ErrorConstructor = TypeError) => {
    try {
      o200k.countMessages(ask, options as never);
      throw new Error("expected an error");
    } catch (error) {
      expect(error).toBeInstanceOf(type);
      expect((error as Error).message).toMatch(pattern);
      expect((error as { code?: string }).code).toMatch(/^ERR_CTXWIN_/);
    }
  };

  it("names the field at fault, however deep", () => {
    rejects({ functions: "read" }, /options\.functions must be an array/);
    rejects({ functions: [{ description: "no name" }] }, /options\.functions\[0\] must be a function tool definition with a name/);
    rejects(
      {
        functions: [
          { name: "f", parameters: { type: "object", properties: { a: { type: "object", properties: { b: { description: 7 } } } } } },
        ],
      },
      /options\.functions\[0\]\.parameters\.properties\.a\.properties\.b\.description must be a string/,
    );
    rejects(
      {
        tools: [
          {
            type: "function",
            function: { name: "f", parameters: { type: "object", properties: { a: { type: "array", items: "string" } } } },
          },
        ],
      },
      /options\.tools\[0\]\.function\.parameters\.properties\.a\.items must be a JSON schema object/,
    );
    rejects(
      { functions: [{ name: "f", parameters: { type: "object", properties: { a: { type: 3 } } } }] },
      /properties\.a\.type must be a string or an array of strings/,
    );
    rejects(
      { functions: [{ name: "f", parameters: { type: "object", required: "a" } }] },
      /parameters\.required must be an array of strings/,
    );
    rejects(
      { functions: [{ name: "f", parameters: { type: "object", properties: { a: { anyOf: {} } } } }] },
      /properties\.a\.anyOf must be an array of schemas/,
    );
  });

  it("rejects a function_call option that is none of the API's", () => {
    rejects({ functionCall: "always" }, /options\.functionCall must be "auto", "none" or \{ name \}/);
    rejects({ functionCall: { function: "f" } }, /options\.functionCall must be/);
  });

  it("rejects a cyclic or too deep schema with a coded error, not a stack overflow", () => {
    const cyclic: Record<string, unknown> = { type: "object" };
    cyclic.properties = { self: cyclic };
    rejects({ functions: [{ name: "f", parameters: cyclic }] }, /refers back to itself/);
    let deep: JsonSchema = { type: "string" };
    for (let i = 0; i < 600; i++) deep = { type: "object", properties: { a: deep } };
    rejects({ functions: [{ name: "f", parameters: deep }] }, /nested more than 512 levels deep/, RangeError);
  });

  it("rejects a legacy function_call on a message that is not { name, arguments }", () => {
    expect(() => o200k.countMessages([{ role: "assistant", content: "", function_call: "f" } as never])).toThrow(
      /messages\[0\]\.function_call must be an object/,
    );
    expect(() => o200k.countMessages([{ role: "assistant", content: "", function_call: { arguments: "{}" } } as never])).toThrow(
      /messages\[0\]\.function_call\.name must be a string/,
    );
  });
});
