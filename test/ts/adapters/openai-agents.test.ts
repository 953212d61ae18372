// ctxwin/openai-agents in the OpenAI Agents SDK's real run loop: Runner.run with a function tool
// and an Agents SDK `Model` implementation that calls it for 60 steps, the input filter fitting
// every call; the model checks every request it receives, on an 8,000-token window with tool
// results of 1,000 to 3,000 tokens. Then ContextSession across runs.
import {
  Agent,
  MemorySession,
  Runner,
  Usage,
  setTracingDisabled,
  tool,
  type AgentInputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
} from "@openai/agents";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { FileSessionStore, MessageContextManager, getCounter, type SessionStore, type ToolDefinition } from "ctxwin";
import { RedisSessionStore } from "ctxwin/session";
import { ContextSession, StoreItems, contextInputFilter, toItems, toMessageLikes } from "ctxwin/openai-agents";
import { startRedisServer, type RedisServer } from "../support/redis-server.js";
import { FINAL, LIMITS, MODEL, RESERVED_OUTPUT, STEPS, SYSTEM, TASK, WINDOW, toolOutput, toolOutputTokens } from "../support/tool-loop.js";

const counter = getCounter(MODEL);

beforeAll(() => setTracingDisabled(true));

// The store-backed sessions' places: temporary directories and one real redis-server for the file.
let redis: RedisServer | undefined;
const directories: string[] = [];
const opened: SessionStore[] = [];
let prefixes = 0;
afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
  await redis?.stop();
  for (const d of directories) rmSync(d, { recursive: true, force: true });
});
function track<S extends SessionStore>(store: S): S {
  opened.push(store);
  return store;
}

const readFile = tool({
  name: "read_file",
  description: "Read a file of the repository",
  parameters: z.object({ path: z.string().describe("Path of the file"), step: z.number() }),
  execute: async ({ step }) => toolOutput(step),
});

type Item = Record<string, unknown>;

/** Checks one request as the model receives it; returns its exact count (instructions and tools included). */
function checkRequest(request: ModelRequest, task: string): number {
  expect(request.systemInstructions).toBe(SYSTEM);
  const input = (typeof request.input === "string" ? [{ role: "user", content: request.input }] : request.input) as AgentInputItem[];
  const tools: ToolDefinition[] = request.tools.map((t) =>
    t.type === "function"
      ? {
          type: "function",
          function: { name: t.name, description: t.description, parameters: t.parameters as ToolDefinition["parameters"] },
        }
      : { name: t.name },
  );
  const tokens = counter.countMessages([{ role: "system", content: SYSTEM }, ...toMessageLikes(input)], { tools });
  expect(tokens + RESERVED_OUTPUT).toBeLessThanOrEqual(WINDOW);
  const calls = new Set<string>();
  (input as unknown as Item[]).forEach((item, i) => {
    if (item.type === "function_call") calls.add(item.callId as string);
    if (item.type === "function_call_result")
      expect(calls.has(item.callId as string), `result ${String(item.callId)} without its call`).toBe(true);
    // A reasoning item is followed by the call of its response, and every call by its result.
    if (item.type === "reasoning") expect((input[i + 1] as unknown as Item | undefined)?.type).toBe("function_call");
    if (item.type === "function_call") expect((input[i + 1] as unknown as Item | undefined)?.callId).toBe(item.callId);
  });
  expect((input as unknown as Item[]).some((m) => m.role === "user" && m.content === task)).toBe(true);
  return tokens;
}

/** An Agents SDK Model: read_file for `steps` calls per run, then the answer; reports `inflate` times the exact count. */
class ScriptedModel implements Model {
  readonly seen: number[] = [];
  private inRun = 0;
  constructor(
    private readonly steps: number,
    private readonly inflate = 1,
    private readonly task = TASK,
    private step = 0,
  ) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const tokens = checkRequest(request, this.task);
    this.seen.push(tokens);
    const input = Math.ceil(tokens * this.inflate);
    const usage = new Usage({ requests: 1, inputTokens: input, outputTokens: 20, totalTokens: input + 20 });
    if (this.inRun >= this.steps) {
      this.inRun = 0;
      return {
        usage,
        output: [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: FINAL }] }],
      };
    }
    this.inRun++;
    const step = ++this.step;
    return {
      usage,
      output: [
        { type: "reasoning", content: [{ type: "input_text", text: `Step ${step}: the next file to read is src/module${step}.ts.` }] },
        {
          type: "function_call",
          callId: `call_${step}`,
          name: "read_file",
          arguments: JSON.stringify({ path: `src/module${step}.ts`, step }),
          status: "completed",
        },
      ],
    };
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("not used");
  }
}

describe("ctxwin/openai-agents contextInputFilter", () => {
  it("keeps every model call of a 60-step run within an 8,000-token window", async () => {
    const model = new ScriptedModel(STEPS);
    const agent = new Agent({
      name: "coder",
      instructions: SYSTEM,
      tools: [readFile],
      model,
      modelSettings: { maxTokens: RESERVED_OUTPUT },
    });
    const compactions: number[] = [];
    const filter = contextInputFilter({ model: MODEL, limits: LIMITS, onCompact: (e) => compactions.push(e.tokensBefore) });
    const runner = new Runner({ callModelInputFilter: filter, tracingDisabled: true });
    const detach = filter.attach(runner);
    const result = await runner.run(agent, TASK, { maxTurns: STEPS + 5 });
    detach();
    expect(result.finalOutput).toBe(FINAL);
    expect(model.seen).toHaveLength(STEPS + 1);
    let raw = 0;
    for (let s = 1; s <= STEPS; s++) raw += toolOutputTokens(s);
    expect(raw).toBeGreaterThan(10 * WINDOW);
    expect(compactions.length).toBeGreaterThan(STEPS / 2);
    expect(filter.fitter.calibration.get(MODEL)).toMatchObject({ ratio: 1, observations: STEPS + 1 });
  });

  it("learns from the reported usage: a model that counts 20% more never overflows after its first response", async () => {
    const model = new ScriptedModel(STEPS, 1.2);
    const agent = new Agent({
      name: "coder",
      instructions: SYSTEM,
      tools: [readFile],
      model,
      modelSettings: { maxTokens: RESERVED_OUTPUT },
    });
    const filter = contextInputFilter({ model: MODEL, limits: LIMITS });
    const runner = new Runner({ callModelInputFilter: filter, tracingDisabled: true });
    filter.attach(runner);
    expect((await runner.run(agent, TASK, { maxTurns: STEPS + 5 })).finalOutput).toBe(FINAL);
    for (const tokens of model.seen.slice(1)) expect(Math.ceil(tokens * 1.2) + RESERVED_OUTPUT).toBeLessThanOrEqual(WINDOW);
  });

  it("summarizes with a summarizer, keeping the task and reusing the summary", async () => {
    const model = new ScriptedModel(STEPS);
    const agent = new Agent({
      name: "coder",
      instructions: SYSTEM,
      tools: [readFile],
      model,
      modelSettings: { maxTokens: RESERVED_OUTPUT },
    });
    const summarize = vi.fn(async () => "Read many files; none had the bug yet.");
    const filter = contextInputFilter({
      model: MODEL,
      limits: LIMITS,
      compaction: { summarizer: summarize, keepToolResults: 2, trimTo: 0.4 },
    });
    const runner = new Runner({ callModelInputFilter: filter, tracingDisabled: true });
    expect((await runner.run(agent, TASK, { maxTurns: STEPS + 5 })).finalOutput).toBe(FINAL);
    expect(summarize).toHaveBeenCalled();
    expect(summarize.mock.calls.length).toBeLessThan(STEPS / 2);
  });

  it("rejects bad input with coded errors", async () => {
    expect(() => contextInputFilter({ model: "", compaction: { trimTo: 2 } })).toThrow(
      expect.objectContaining({ code: "ERR_CTXWIN_OUT_OF_RANGE" }),
    );
    const filter = contextInputFilter({ model: MODEL });
    await expect(filter({ modelData: { input: "x" } as never, agent: undefined as never, context: undefined })).rejects.toMatchObject({
      code: "ERR_CTXWIN_INVALID_ARGUMENT",
    });
    expect(() => filter.attach({} as never)).toThrow(/runner must be/);
    expect(() => toMessageLikes([null as never])).toThrow(/items\[0\] must be an Agents SDK item/);
  });
});

describe("ctxwin/openai-agents items", () => {
  it("map to ctxwin's units and back to the very same items", () => {
    const items = [
      { role: "system", content: "rules" },
      {
        role: "user",
        content: [
          { type: "input_text", text: "look at this" },
          { type: "input_image", image: "data:image/png;base64,AAAA" },
        ],
      },
      { type: "reasoning", id: "rs_1", content: [{ type: "input_text", text: "I should read two files." }] },
      { type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Reading." }] },
      { type: "function_call", callId: "a", name: "read_file", arguments: '{"path":"x"}', status: "completed" },
      { type: "function_call", callId: "b", name: "read_file", arguments: '{"path":"y"}', status: "completed" },
      { type: "function_call_result", callId: "a", name: "read_file", status: "completed", output: "x contents" },
      { type: "function_call_result", callId: "b", name: "read_file", status: "completed", output: { type: "text", text: "y contents" } },
      { type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Done." }] },
    ] as unknown as AgentInputItem[];
    const messages = toMessageLikes(items);
    // One response (reasoning, message, both calls) is one assistant message: a unit with its results.
    expect(messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "tool", "assistant"]);
    expect(messages[2]?.tool_calls).toHaveLength(2);
    expect(messages[1]?.content).toEqual([{ type: "text", text: "look at this" }, { type: "image" }]);
    const back = toItems(messages);
    expect(back).toEqual(items);
    back.forEach((item, i) => expect(item).toBe(items[i]));
  });
});

describe("ctxwin/openai-agents ContextSession", () => {
  it("keeps every item and hands five runs of 11 steps a history within the window", async () => {
    const tasks = [0, 1, 2, 3, 4].map((i) => `${TASK} (part ${i + 1})`);
    const inner = new MemorySession();
    const session = new ContextSession({ model: MODEL, limits: LIMITS, session: inner, instructions: SYSTEM });
    const filter = contextInputFilter({ model: MODEL, limits: LIMITS });
    const runner = new Runner({ callModelInputFilter: filter, tracingDisabled: true });
    filter.attach(runner);
    let calls = 0;
    for (const [run, task] of tasks.entries()) {
      const model = new ScriptedModel(10, 1, task, run * 10);
      const agent = new Agent({
        name: "coder",
        instructions: SYSTEM,
        tools: [readFile],
        model,
        modelSettings: { maxTokens: RESERVED_OUTPUT },
      });
      const result = await runner.run(agent, task, { session, maxTurns: 20 });
      expect(result.finalOutput).toBe(FINAL);
      calls += model.seen.length;
    }
    expect(calls).toBe(55);
    const all = (await inner.getItems()) as unknown as Item[];
    expect(all.filter((i) => i.type === "function_call_result")).toHaveLength(50); // nothing destroyed
    const view = await session.getItems();
    const tokens = counter.countMessages([{ role: "system", content: SYSTEM }, ...toMessageLikes(view)]);
    expect(tokens).toBeLessThanOrEqual(WINDOW - RESERVED_OUTPUT);
    expect(view.length).toBeLessThan(all.length);
    expect(await session.getSessionId()).toBe(await inner.getSessionId());
  });

  it("getItems(limit) never opens on a tool result; popItem and clearSession act on the kept items", async () => {
    const session = new ContextSession({ model: MODEL, limits: LIMITS, sessionId: "s1" });
    const items: AgentInputItem[] = [
      { role: "user", content: "hi" },
      { type: "function_call", callId: "c1", name: "read_file", arguments: "{}", status: "completed" },
      { type: "function_call_result", callId: "c1", name: "read_file", status: "completed", output: "short" },
      { type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "done" }] },
    ];
    await session.addItems(items);
    expect(await session.getSessionId()).toBe("s1");
    expect(await session.getItems()).toEqual(items);
    expect(await session.getItems(2)).toEqual([items[3]]);
    expect(await session.getItems(3)).toEqual(items.slice(1));
    expect(await session.popItem()).toEqual(items[3]);
    await session.clearSession();
    expect(await session.getItems()).toEqual([]);
    await expect(session.addItems([42 as never])).rejects.toThrow(/items\[0\]/);
    await expect(session.getItems(-1)).rejects.toMatchObject({ code: "ERR_CTXWIN_OUT_OF_RANGE" });
    expect(() => new ContextSession({ model: MODEL, session: {} as never })).toThrow(/options.session must be/);
  });
});

describe.each([
  [
    "FileSessionStore",
    () => {
      const directory = mkdtempSync(join(tmpdir(), "ctxwin-agents-"));
      directories.push(directory);
      return () => track(new FileSessionStore({ directory }));
    },
  ],
  [
    "RedisSessionStore",
    () => {
      const prefix = `agents${prefixes++}:`;
      return () => track(new RedisSessionStore({ clientOptions: { socket: { path: (redis as RedisServer).socket } }, prefix }));
    },
  ],
] as Array<[string, () => () => SessionStore]>)("ctxwin/openai-agents ContextSession over a %s", (_name, place) => {
  beforeAll(async () => {
    redis ??= await startRedisServer();
  });
  it("continues one session across two processes: Runner.run five times, every item kept and read back equal", async () => {
    // Each "process" opens its own store (its own file handle or Redis connection) on the same place.
    const open = place();
    const id = "agents-run";
    const added: AgentInputItem[] = [];
    const filter = contextInputFilter({ model: MODEL, limits: LIMITS });
    const runner = new Runner({ callModelInputFilter: filter, tracingDisabled: true });
    filter.attach(runner);
    let calls = 0;
    let store = open();
    for (const run of [0, 1, 2, 3, 4]) {
      // Runs 0-2 in the first process, 3-4 in a second one started afresh.
      if (run === 3) store = open();
      const session = new ContextSession({ model: MODEL, limits: LIMITS, store, sessionId: id, instructions: SYSTEM });
      const addItems = session.addItems.bind(session);
      vi.spyOn(session, "addItems").mockImplementation(async (items) => {
        added.push(...(JSON.parse(JSON.stringify(items)) as AgentInputItem[]));
        return addItems(items);
      });
      const task = `${TASK} (part ${run + 1})`;
      const model = new ScriptedModel(10, 1, task, run * 10);
      const agent = new Agent({
        name: "coder",
        instructions: SYSTEM,
        tools: [readFile],
        model,
        modelSettings: { maxTokens: RESERVED_OUTPUT },
      });
      const result = await runner.run(agent, task, { session, maxTurns: 20 });
      expect(result.finalOutput).toBe(FINAL);
      if (run > 0) expect(model.seen[0]).toBeGreaterThan(2000); // the earlier runs' history came along
      calls += model.seen.length;
    }
    expect(calls).toBe(55);
    // A third process reads every item back, equal to what the runner added, in order.
    const third = open();
    const all = await new StoreItems(third, id).getItems();
    expect(all).toEqual(added);
    expect((all as unknown as Item[]).filter((i) => i.type === "function_call_result")).toHaveLength(50);
    const view = await new ContextSession({ model: MODEL, limits: LIMITS, store: third, sessionId: id, instructions: SYSTEM }).getItems();
    expect(counter.countMessages([{ role: "system", content: SYSTEM }, ...toMessageLikes(view)])).toBeLessThanOrEqual(
      WINDOW - RESERVED_OUTPUT,
    );
    expect(view.length).toBeLessThan(all.length);
    // The log is the manager's format: each item with its chat-message form.
    const records = await third.read(id);
    expect(
      records.every(
        (r) =>
          r.entry.type === "message" && typeof r.entry.id === "string" && typeof (r.entry.message as { role?: unknown }).role === "string",
      ),
    ).toBe(true);
  });

  it("keeps the ContextSession contract: getItems(limit), popItem and clearSession, recorded as boundaries", async () => {
    const open = place();
    const session = new ContextSession({ model: MODEL, limits: LIMITS, store: open(), sessionId: "s1" });
    const items: AgentInputItem[] = [
      { role: "user", content: "hi" },
      { type: "function_call", callId: "c1", name: "read_file", arguments: "{}", status: "completed" },
      { type: "function_call_result", callId: "c1", name: "read_file", status: "completed", output: "short" },
      { type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "done" }] },
    ];
    await session.addItems(items);
    expect(await session.getSessionId()).toBe("s1");
    expect(await session.getItems()).toEqual(items);
    expect(await session.getItems(2)).toEqual([items[3]]);
    expect(await session.getItems(3)).toEqual(items.slice(1));
    const other = new ContextSession({ model: MODEL, limits: LIMITS, store: open(), sessionId: "s1" });
    expect(await other.getItems()).toEqual(items);
    // The log is the manager's format: a MessageContextManager on the same session reads the conversation.
    const manager = await MessageContextManager.open({ model: MODEL, session: { store: open(), id: "s1" } });
    expect(manager.getMessages()).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: [], tool_calls: [{ id: "c1", type: "function", function: { name: "read_file", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "c1", content: "short" },
      { role: "assistant", content: [{ type: "text", text: "done" }] },
    ]);
    expect(await session.popItem()).toEqual(items[3]);
    expect(await other.getItems()).toEqual(items.slice(0, 3)); // another instance sees the pop
    expect(await other.popItem()).toEqual(items[2]);
    await session.clearSession();
    expect(await session.getItems()).toEqual([]);
    expect(await other.getItems()).toEqual([]);
    expect(await other.popItem()).toBeUndefined();
    await other.addItems([items[0] as AgentInputItem]);
    expect(await session.getItems()).toEqual([items[0]]);
    // Nothing was destroyed: every item is still in the log, the pops and the clear are boundaries.
    const log = (await open().read("s1")).map((r) => r.entry);
    expect(log.filter((e) => e.type === "message").map((e) => e.item)).toEqual([...items, items[0]]);
    expect(log.filter((e) => e.type === "boundary").map((e) => (e.boundary as { kind: string }).kind)).toEqual(["trim", "trim", "clear"]);
    await expect(session.addItems([42 as never])).rejects.toThrow(/items\[0\]/);
    await expect(new StoreItems(open(), "s1").addItems([items[0] as AgentInputItem, null as never])).rejects.toThrow(/items\[1\]/);
    await expect(session.getItems(-1)).rejects.toMatchObject({ code: "ERR_CTXWIN_OUT_OF_RANGE" });
    expect(await session.getItems()).toEqual([items[0]]); // the failed calls changed nothing
    expect(() => new ContextSession({ model: MODEL, store: {} as never })).toThrow(
      expect.objectContaining({ code: "ERR_CTXWIN_INVALID_ARGUMENT", message: expect.stringMatching(/options.store/) }),
    );
    expect(() => new ContextSession({ model: MODEL, store: open(), sessionId: "" })).toThrow(
      expect.objectContaining({ code: "ERR_CTXWIN_OUT_OF_RANGE" }),
    );
    expect(() => new ContextSession({ model: MODEL, store: open(), session: new MemorySession() })).toThrow(/exclude each other/);
  });

  it("two writers on one id: concurrent adds all land in each writer's order, concurrent pops never take the same item", async () => {
    const open = place();
    const a = new ContextSession({ model: MODEL, limits: LIMITS, store: open(), sessionId: "shared" });
    const b = new ContextSession({ model: MODEL, limits: LIMITS, store: open(), sessionId: "shared" });
    const say = (who: string, n: number): AgentInputItem => ({ role: "user", content: `${who} ${n}` });
    await Promise.all([
      ...Array.from({ length: 20 }, (_, n) => a.addItems([say("a", n)])),
      ...Array.from({ length: 20 }, (_, n) => b.addItems([say("b", n)])),
    ]);
    const all = (await a.getItems()).map((i) => (i as { content: string }).content);
    expect(all).toHaveLength(40);
    expect(await b.getItems()).toEqual(await a.getItems());
    for (const who of ["a", "b"]) expect(all.filter((c) => c.startsWith(who))).toEqual(Array.from({ length: 20 }, (_, n) => `${who} ${n}`));
    const popped = await Promise.all(Array.from({ length: 10 }, (_, n) => (n % 2 ? a : b).popItem()));
    const taken = popped.map((i) => (i as { content: string }).content);
    expect(new Set(taken).size).toBe(10);
    expect(taken.sort()).toEqual(all.slice(30).sort());
    expect((await b.getItems()).map((i) => (i as { content: string }).content)).toEqual(all.slice(0, 30));
  });
});
