// What a manager with a session accepts is what its log can hold and give back (issue 39): a
// message JSON cannot carry, or would give back as another value, is refused at the door with a
// coded error naming its path, before anything changes; nothing it refuses wedges a later flush or
// makes the session unopenable; a message the history leaves out is logged all the same; a flush
// that cannot write an entry names it and writes the rest.
import { describe, expect, it } from "vitest";
import { HumanMessage } from "@langchain/core/messages";
import {
  ContextLimits,
  MemorySessionStore,
  MessageContextManager,
  Recall,
  isCtxwinError,
  type CtxwinErrorCode,
  type MessageContextManagerOptions,
  type MessageLike,
  type SessionStore,
} from "ctxwin";
import type { SessionRecord } from "ctxwin/session";
import { ApproximateCounter } from "ctxwin/tokens";

const quiet = { warn: () => {} };
const limits = (n: number) => new ContextLimits({ model: "gpt-4o", maxTokens: n, maxOutputTokens: 0, reservedTokens: 0 });
const options = (
  store: SessionStore,
  id: string,
  extra: Partial<MessageContextManagerOptions<MessageLike>> = {},
): MessageContextManagerOptions<MessageLike> => ({
  model: "gpt-4o",
  logger: quiet,
  session: { store, id },
  ...extra,
  compaction: { autoTruncate: false, ...extra.compaction },
});
const messagesOf = (records: SessionRecord[]) =>
  records.filter((r) => r.entry.type === "message" && r.entry.summary !== true).map((r) => r.entry.message as MessageLike);

function deep(levels: number, leaf: unknown = "x"): unknown {
  let value: unknown = leaf;
  for (let i = 0; i < levels; i++) value = { next: value };
  return value;
}

function sparse<T>(first: T, third: T): T[] {
  const parts = [first];
  parts[2] = third;
  return parts;
}

const call = (id: string, args: unknown = "{}") => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id, type: "function", function: { name: "run", arguments: args } }],
});

/** Messages a session's log cannot hold and give back equal, each with the path and code its refusal names. */
function hostileMessages(): Array<[string, () => unknown, string, string]> {
  return [
    [
      "a cycle",
      () => {
        const raw: Record<string, unknown> = { id: 1 };
        raw.self = raw;
        return { role: "assistant", content: "x", raw };
      },
      "messages[1].raw.self",
      "ERR_CTXWIN_INVALID_ARGUMENT",
    ],
    [
      "a BigInt",
      () => ({ role: "assistant", content: "x", usage: { tokens: 10n } }),
      "messages[1].usage.tokens",
      "ERR_CTXWIN_INVALID_ARGUMENT",
    ],
    [
      "providerOptions nested 100,000 deep",
      () => ({ role: "user", content: "x", providerOptions: deep(100_000) }),
      "messages[1].providerOptions",
      "ERR_CTXWIN_OUT_OF_RANGE",
    ],
    [
      "a hole among content parts",
      () => ({ role: "user", content: sparse({ type: "text", text: "a" }, { type: "text", text: "c" }) }),
      "messages[1].content[1]",
      "ERR_CTXWIN_INVALID_ARGUMENT",
    ],
    [
      "a hole among tool_calls",
      () => ({ role: "assistant", content: null, tool_calls: sparse(call("a").tool_calls[0], call("b").tool_calls[0]) }),
      "messages[1].tool_calls[1]",
      "ERR_CTXWIN_INVALID_ARGUMENT",
    ],
    [
      "a hole in an Anthropic tool_result's content",
      () => ({
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "t", content: sparse({ type: "text", text: "a" }, { type: "text", text: "b" }) }],
      }),
      "messages[1].content[0].content[1]",
      "ERR_CTXWIN_INVALID_ARGUMENT",
    ],
    [
      "a part whose toJSON returns 5",
      () => ({ role: "user", content: [{ type: "text", text: "a", toJSON: () => 5 }] }),
      "messages[1].content[0]",
      "ERR_CTXWIN_INVALID_ARGUMENT",
    ],
    [
      "a toJSON that rewrites the role",
      () => ({ role: "user", content: "x", toJSON: () => ({ role: "system", content: "x" }) }),
      "messages[1]",
      "ERR_CTXWIN_INVALID_ARGUMENT",
    ],
    [
      "NaN in tool arguments",
      () => call("n", { retries: Number.NaN }),
      "messages[1].tool_calls[0].function.arguments.retries",
      "ERR_CTXWIN_INVALID_ARGUMENT",
    ],
    [
      "Infinity in tool arguments",
      () => call("i", { limit: Number.POSITIVE_INFINITY }),
      "messages[1].tool_calls[0].function.arguments.limit",
      "ERR_CTXWIN_INVALID_ARGUMENT",
    ],
    [
      "a Map",
      () => ({ role: "user", content: "x", providerOptions: new Map([["a", 1]]) }),
      "messages[1].providerOptions",
      "ERR_CTXWIN_INVALID_ARGUMENT",
    ],
    ["a Date", () => ({ role: "user", content: "x", sentAt: new Date(0) }), "messages[1].sentAt", "ERR_CTXWIN_INVALID_ARGUMENT"],
    [
      "binary data",
      () => ({ role: "user", content: [{ type: "image", image: new Uint8Array([1, 2, 3]) }] }),
      "messages[1].content[0].image",
      "ERR_CTXWIN_INVALID_ARGUMENT",
    ],
    ["a LangChain message instance", () => new HumanMessage("hello"), "messages[1]", "ERR_CTXWIN_INVALID_ARGUMENT"],
    [
      "undefined in an array",
      () => call("u", { list: [1, undefined] }),
      "messages[1].tool_calls[0].function.arguments.list[1]",
      "ERR_CTXWIN_INVALID_ARGUMENT",
    ],
    ["a function", () => ({ role: "user", content: "x", onSend: () => 1 }), "messages[1].onSend", "ERR_CTXWIN_INVALID_ARGUMENT"],
    [
      "a getter that throws",
      () => ({
        role: "user",
        get content(): string {
          throw new Error("no");
        },
      }),
      "messages[1]",
      "ERR_CTXWIN_INVALID_ARGUMENT",
    ],
    [
      "a revoked Proxy",
      () => {
        const { proxy, revoke } = Proxy.revocable({ role: "user", content: "x" }, {});
        revoke();
        return { role: "user", content: "x", extra: proxy };
      },
      "messages[1]",
      "ERR_CTXWIN_INVALID_ARGUMENT",
    ],
  ];
}

describe("the door: what the log cannot hold and give back is refused before anything changes", () => {
  it.each(hostileMessages())(
    "%s: a coded error naming its path; the session flushes and reopens equal afterwards",
    async (_name, make, path, code) => {
      const store = new MemorySessionStore();
      const cm = await MessageContextManager.open(options(store, "door"));
      cm.addMessage({ role: "user", content: "before" });
      let thrown: unknown;
      try {
        cm.addMessage(make() as MessageLike);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toMatchObject({ code });
      expect(isCtxwinError(thrown, code as CtxwinErrorCode)).toBe(true);
      expect((thrown as Error).message).toContain(path);
      expect((thrown as Error).message.length).toBeLessThan(600);
      expect(cm.getMessages()).toEqual([{ role: "user", content: "before" }]);
      // Nothing is wedged: later messages, a clear, more messages, all flushed, and the session reopens equal.
      cm.addMessage({ role: "assistant", content: "after" });
      cm.clear();
      cm.addMessage({ role: "user", content: "again" });
      await cm.flush();
      const again = await MessageContextManager.open(options(store, "door"));
      expect(again.getMessages()).toEqual(cm.getMessages());
      expect(messagesOf(await store.read("door")).map((m) => m.content)).toEqual(["before", "after", "again"]);
    },
  );

  it("load refuses a list with a hole, or a bad message in it, naming its index, and changes nothing", async () => {
    const store = new MemorySessionStore();
    const cm = await MessageContextManager.open(options(store, "load"));
    cm.addMessage({ role: "user", content: "kept" });
    const holes: MessageLike[] = [{ role: "user", content: "a" }];
    holes[2] = { role: "assistant", content: "c" };
    expect(() => cm.load(holes)).toThrow(
      expect.objectContaining({ code: "ERR_CTXWIN_INVALID_ARGUMENT", message: expect.stringContaining("messages[1]") }),
    );
    expect(() => cm.load([{ role: "user", content: "a" }, { role: "user", content: "b", n: Number.NaN } as MessageLike])).toThrow(
      expect.objectContaining({ message: expect.stringContaining("messages[1].n") }),
    );
    expect(cm.getMessages()).toEqual([{ role: "user", content: "kept" }]);
    await cm.flush();
    expect((await MessageContextManager.open(options(store, "load"))).getMessages()).toEqual([{ role: "user", content: "kept" }]);
  });

  it("without a session the door keeps what breaks any history (cycles, holes, depth) and lets other prototypes through", () => {
    const cm = new MessageContextManager({ model: "gpt-4o", logger: quiet, compaction: { autoTruncate: false } });
    const raw: Record<string, unknown> = {};
    raw.self = raw;
    expect(() => cm.addMessage({ role: "user", content: "x", raw } as MessageLike)).toThrow(
      expect.objectContaining({ code: "ERR_CTXWIN_INVALID_ARGUMENT", message: expect.stringContaining("messages[0].raw.self") }),
    );
    expect(() => cm.addMessage({ role: "user", content: sparse({ type: "text", text: "a" }, { type: "text", text: "b" }) })).toThrow(
      expect.objectContaining({ message: expect.stringContaining("messages[0].content[1]") }),
    );
    // No log: an image as bytes and a LangChain message stay the caller's objects.
    cm.addMessage({ role: "user", content: [{ type: "image", image: new Uint8Array([1, 2, 3]) }] });
    cm.addMessage(new HumanMessage("hello") as unknown as MessageLike);
    expect(cm.getMessages()).toHaveLength(2);
  });

  it("an error quotes at most a bounded prefix of a hostile key", async () => {
    const cm = await MessageContextManager.open(options(new MemorySessionStore(), "quote"));
    const key = "k".repeat(1_000_000);
    expect(() => cm.addMessage({ role: "user", content: "x", [key]: 1n })).toThrow(
      expect.objectContaining({ code: "ERR_CTXWIN_INVALID_ARGUMENT" }),
    );
    try {
      cm.addMessage({ role: "user", content: "x", [key]: { deeper: [1n] } });
    } catch (error) {
      expect((error as Error).message.length).toBeLessThan(600);
    }
  });
});

describe("every message added reaches the log exactly once", () => {
  it("a tool result whose call a forced trim removed: left out of the view, logged as left out, recallable", async () => {
    const store = new MemorySessionStore();
    const cm = await MessageContextManager.open(options(store, "left-out", { limits: limits(400), compaction: { autoTruncate: true } }));
    const added: MessageLike[] = [
      { role: "user", content: "run both" },
      // A call past the window that no cut of a result can make room for: the trim takes the exchange.
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "c1", type: "function", function: { name: "a", arguments: JSON.stringify({ text: "word ".repeat(600) }) } },
          { id: "c2", type: "function", function: { name: "b", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: "the first result" },
      { role: "tool", tool_call_id: "c2", content: "the second result, left out" },
      { role: "user", content: "next" },
    ];
    for (const m of added) cm.addMessage(m);
    expect(cm.getMessages()).not.toContainEqual(added[3]);
    await cm.flush();
    const records = await store.read("left-out");
    expect(messagesOf(records)).toEqual(added);
    expect(records.some((r) => r.entry.type === "boundary" && (r.entry.boundary as { leftOut?: boolean }).leftOut === true)).toBe(true);
    const reopened = await MessageContextManager.open(
      options(store, "left-out", { limits: limits(400), compaction: { autoTruncate: true } }),
    );
    expect(reopened.getContextForRequest()).toEqual(cm.getContextForRequest());
    const recall = new Recall({ counter: cm.counter, session: { store, id: "left-out" } });
    expect(await recall.read("c2")).toMatchObject({ ok: true, text: "the second result, left out" });
  });

  it("orphan results a load drops (orphanToolResults: 'drop') are logged in their places", async () => {
    const store = new MemorySessionStore();
    const cm = await MessageContextManager.open(options(store, "dropped", { warnings: { orphanToolResults: "drop" } }));
    const given: MessageLike[] = [
      { role: "user", content: "a" },
      { role: "tool", tool_call_id: "nobody", content: "orphan" },
      { role: "assistant", content: "b" },
    ];
    cm.load(given);
    expect(cm.getMessages()).toEqual([given[0], given[2]]);
    await cm.flush();
    expect(messagesOf(await store.read("dropped"))).toEqual(given);
    expect((await MessageContextManager.open(options(store, "dropped"))).getMessages()).toEqual([given[0], given[2]]);
  });
});

describe("a flush that cannot write an entry names it and writes the rest", () => {
  it("metadata JSON cannot hold: the flush names it; the messages before and after it are logged; fixed, it is logged", async () => {
    const store = new MemorySessionStore();
    const cm = await MessageContextManager.open(options(store, "metadata"));
    cm.addMessage({ role: "user", content: "one" });
    const metadata: Record<string, unknown> = { agent: "a" };
    metadata.self = metadata;
    cm.metadata = metadata;
    await expect(cm.flush()).rejects.toMatchObject({
      code: "ERR_CTXWIN_INVALID_ARGUMENT",
      message: expect.stringContaining("metadata.self"),
    });
    cm.addMessage({ role: "assistant", content: "two" });
    await cm.flush();
    expect(messagesOf(await store.read("metadata")).map((m) => m.content)).toEqual(["one", "two"]);
    delete metadata.self;
    await cm.flush();
    expect((await store.info("metadata"))?.metadata).toEqual({ agent: "a" });
  });

  it("a batch larger than one append is split, and a snapshot larger than one append is left for a later one", async () => {
    const store = new MemorySessionStore();
    const counter = new ApproximateCounter();
    const cm = await MessageContextManager.open(options(store, "large", { counter }));
    const big = (i: number): MessageLike => ({ role: i % 2 ? "assistant" : "user", content: String(i).repeat(15_000_000) });
    for (let i = 0; i < 5; i++) cm.addMessage(big(i)); // 75 MB: more than one append holds
    for (let i = 0; i < 1_000; i++) cm.addMessage({ role: i % 2 ? "user" : "assistant", content: `m${i}` }); // a snapshot would be due
    await cm.flush();
    const reopened = await MessageContextManager.open(options(store, "large", { counter }));
    expect(reopened.getMessages()).toEqual(cm.getMessages());
  });
});
