// Exports and other inputs read from outside, as a hostile caller would shape them (issue 39):
// holes, Proxies that claim a billion elements or throw from their traps, nesting deep enough to
// overflow a recursive reader. Every failure is coded and names its path, safeParseExport never
// throws, the work is bounded by what the input really holds, and a refused import changes nothing.
import { describe, expect, it } from "vitest";
import {
  ContextLimits,
  CtxwinTypeError,
  MessageContextManager,
  isCtxwinError,
  TiktokenCounter,
  TokenizerJsonCounter,
  type MessageLike,
} from "ctxwin";
import { parseExport, safeParseExport, type ContextExport } from "ctxwin/session";

const quiet = { warn: () => {} };
const limits = new ContextLimits({ model: "gpt-4o", maxTokens: 100_000, maxOutputTokens: 0, reservedTokens: 0 });
const manager = () => {
  const cm = new MessageContextManager({ model: "gpt-4o", logger: quiet, limits });
  cm.addMessage({ role: "user", content: "kept" });
  return cm;
};
const anExport = (turns: unknown): ContextExport => ({ ...manager().export(), turns }) as ContextExport;

/** Refused by every way in, coded, naming `path`, the manager left as it was. */
function expectRefusedEverywhere(input: unknown, path: unknown): void {
  const parsed = safeParseExport(input);
  expect(parsed.success).toBe(false);
  if (!parsed.success) {
    expect(parsed.error).toMatchObject({ code: "ERR_CTXWIN_INVALID_EXPORT", path });
    expect(isCtxwinError(parsed.error, "ERR_CTXWIN_INVALID_EXPORT")).toBe(true);
    expect(parsed.error.message.length).toBeLessThan(600);
  }
  expect(() => parseExport(input)).toThrow(expect.objectContaining({ code: "ERR_CTXWIN_INVALID_EXPORT" }));
  expect(() => parseExport(input)).toThrow(CtxwinTypeError);
  expect(() => MessageContextManager.fromExport(input, { logger: quiet })).toThrow(
    expect.objectContaining({ code: "ERR_CTXWIN_INVALID_EXPORT" }),
  );
  const cm = manager();
  const before = cm.export();
  expect(() => cm.import(input)).toThrow(expect.objectContaining({ code: "ERR_CTXWIN_INVALID_EXPORT" }));
  expect(cm.export()).toEqual(before);
}

/** A Proxy over `target` that counts the reads of its elements. */
function counted<T extends object>(target: T, overrides: ProxyHandler<T> = {}): { proxy: T; reads: () => number } {
  let reads = 0;
  const proxy = new Proxy(target, {
    get(t, key, receiver) {
      if (typeof key === "string" && /^\d+$/.test(key)) reads++;
      return Reflect.get(t, key, receiver);
    },
    has(t, key) {
      if (typeof key === "string" && /^\d+$/.test(key)) reads++;
      return Reflect.has(t, key);
    },
    ...overrides,
  });
  return { proxy, reads: () => reads };
}

describe("exports from a hostile caller", () => {
  it("turns with a hole: coded, naming the hole, everywhere (safeParseExport returns the failure)", () => {
    const turns: unknown[] = [{ role: "user", content: "a" }];
    turns[2] = { role: "assistant", content: "c" };
    expectRefusedEverywhere(anExport(turns), "turns[1]");
  });

  it("turns of length 10^8 with nothing in them: refused at the first hole, without reading 10^8 elements", () => {
    const { proxy, reads } = counted(new Array(100_000_000));
    expectRefusedEverywhere(anExport(proxy), "turns[0]");
    expect(reads()).toBeLessThan(100);
  });

  it("a Proxy claiming 10^9 turns: refused without reading them", () => {
    const { proxy, reads } = counted([] as unknown[], { get: (t, key, r) => (key === "length" ? 1_000_000_000 : Reflect.get(t, key, r)) });
    expect(Array.isArray(proxy) && proxy.length).toBe(1_000_000_000);
    expectRefusedEverywhere(anExport(proxy), "turns[0]");
    expect(reads()).toBeLessThan(100);
  });

  it("a Proxy whose traps throw, a getter that throws: coded failures, safeParseExport does not throw", () => {
    const throwing = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error("trap");
        },
      },
    );
    expectRefusedEverywhere(throwing, "");
    const getter = {
      ...anExport([]),
      get turns(): unknown[] {
        throw new Error("getter");
      },
    };
    expect(safeParseExport(getter)).toMatchObject({ success: false, error: { code: "ERR_CTXWIN_INVALID_EXPORT" } });
    const { proxy: revoked, revoke } = Proxy.revocable(anExport([]), {});
    revoke();
    expect(safeParseExport(revoked)).toMatchObject({ success: false, error: { code: "ERR_CTXWIN_INVALID_EXPORT" } });
  });

  it("Anthropic tool_result blocks nested 100,000 deep: coded in an export and when counted, no stack overflow", () => {
    let content: unknown = "deepest";
    for (let i = 0; i < 100_000; i++) content = [{ type: "tool_result", tool_use_id: `t${i}`, content }];
    const message = { role: "user", content } as MessageLike;
    expectRefusedEverywhere(anExport([message]), expect.stringMatching(/^turns\[0\]\.content\[0\]\.content/));
    expect(() => new TiktokenCounter({ encoding: "o200k_base" }).countMessages([message])).toThrow(
      expect.objectContaining({ code: "ERR_CTXWIN_OUT_OF_RANGE" }),
    );
    expect(() => manager().addMessage(message)).toThrow(expect.objectContaining({ code: "ERR_CTXWIN_OUT_OF_RANGE" }));
  });

  it("a tokenizer object nested 100,000 deep, or with a cycle: coded, no stack overflow", () => {
    const nested: Record<string, unknown> = { model: { type: "BPE", vocab: {}, merges: [] } };
    let at = nested;
    for (let i = 0; i < 100_000; i++) at = (at.next = {}) as Record<string, unknown>;
    expect(() => new TokenizerJsonCounter({ tokenizer: nested })).toThrow(
      expect.objectContaining({ code: "ERR_CTXWIN_OUT_OF_RANGE", message: expect.stringContaining("options.tokenizer.next.next") }),
    );
    const cyclic: Record<string, unknown> = { model: { type: "BPE", vocab: {}, merges: [] } };
    cyclic.self = cyclic;
    expect(() => new TokenizerJsonCounter({ tokenizer: cyclic })).toThrow(
      expect.objectContaining({ code: "ERR_CTXWIN_INVALID_ARGUMENT", message: expect.stringContaining("options.tokenizer.self") }),
    );
  });

  it("a tool turn without tool_call_id is refused unchanged like any other corrupt export", () => {
    const exported = manager().export();
    const corrupt = {
      ...exported,
      turns: [
        ...exported.turns,
        { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] },
        { role: "tool", content: "result" },
      ],
    };
    expectRefusedEverywhere(corrupt, "turns[2].tool_call_id");
    expectRefusedEverywhere(JSON.stringify(corrupt), "turns[2].tool_call_id");
    // AI SDK tool messages name their call in their parts, and import as before.
    const aiSdk = {
      ...exported,
      turns: [
        ...exported.turns,
        { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "f", input: {} }] },
        { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "f", output: { type: "text", value: "ok" } }] },
      ],
    };
    expect(MessageContextManager.fromExport(aiSdk, { logger: quiet }).getMessages()).toHaveLength(3);
  });

  it("what parseExport refuses that JSON would change: a Map, a Date, NaN, toJSON, in a turn or in the metadata", () => {
    const exported = manager().export();
    expectRefusedEverywhere({ ...exported, metadata: { ...exported.metadata, when: new Date(0) } }, "metadata.when");
    expectRefusedEverywhere({ ...exported, turns: [{ role: "user", content: "x", extra: new Map() }] }, "turns[0].extra");
    expectRefusedEverywhere({ ...exported, turns: [{ role: "user", content: "x", score: Number.NaN }] }, "turns[0].score");
    expectRefusedEverywhere(
      { ...exported, turns: [{ role: "user", content: "x", toJSON: () => ({ role: "system", content: "x" }) }] },
      "turns[0]",
    );
  });
});

describe("errors quote at most a bounded prefix of what they name", () => {
  const huge = "m".repeat(1 << 20);
  const short = (run: () => unknown) => {
    let caught: unknown;
    try {
      run();
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: expect.stringMatching(/^ERR_CTXWIN_/) });
    expect((caught as Error).message.length).toBeLessThan(1000);
  };

  it("a 1 MB model id, a 1 MB tokenizer path, a 1 MB key in an export", () => {
    short(() => new MessageContextManager({ model: huge }));
    short(() => new TokenizerJsonCounter({ tokenizer: huge }));
    short(() => parseExport({ metadata: { session_id: "s" }, turns: [{ role: "user", content: "x", [huge]: new Map() }] }));
  });

  it("a recall of a 1 MB id answers with a bounded message", async () => {
    const { Recall } = await import("ctxwin");
    const answer = await new Recall({ counter: new TiktokenCounter() }).read(huge);
    expect(answer).toMatchObject({ ok: false, code: "ERR_CTXWIN_RECALL_UNKNOWN_ID" });
    expect((answer as { message: string }).message.length).toBeLessThan(1000);
  });
});
