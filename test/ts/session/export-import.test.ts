// The context export and import (the CLI's /export and /import) through the public API: the format, lossless round trips
// (also as a property over random histories and trims), and validation that names the first bad
// path and changes nothing.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ContextLimits, MessageContextManager, TruncationMode, extractiveSummarizer, type MessageLike } from "ctxwin";
import { parseExport, safeParseExport, type ContextExport } from "ctxwin/session";

/** The context's stats without the request accounting (getStats().cache), which the view's own getContextForRequest() calls change. */
const contextStats = (cm: MessageContextManager) => {
  const { cache: _cache, ...stats } = cm.getStats();
  return stats;
};

const quiet = { warn: () => {} };
const limits = (n: number) => new ContextLimits({ model: "gpt-4o", maxTokens: n, maxOutputTokens: 0, reservedTokens: 0 });

/** A history in the three shapes ctxwin reads: OpenAI chat with tools, AI SDK parts, plain text. */
function history(units: number): MessageLike[] {
  const out: MessageLike[] = [];
  for (let i = 0; i < units; i++) {
    out.push({ role: "user", content: `Please look at src/file${i}.ts and tell me what line ${i * 7} does. ${"context ".repeat(20)}` });
    out.push({
      role: "assistant",
      content: null,
      tool_calls: [
        { id: `call_${i}`, type: "function", function: { name: "read_file", arguments: JSON.stringify({ path: `src/file${i}.ts` }) } },
      ],
    });
    out.push({ role: "tool", tool_call_id: `call_${i}`, content: `export const value${i} = ${i};\n`.repeat(10) });
    out.push({ role: "assistant", content: [{ type: "text", text: `Line ${i * 7} sets value${i} to ${i}. 😀` }] });
  }
  return out;
}

/** A manager with a summary from a compaction and an omission marker from a trim. */
async function worked(): Promise<MessageContextManager> {
  const cm = new MessageContextManager({
    model: "gpt-4o",
    mode: TruncationMode.SUMMARIZE,
    limits: limits(3000),
    logger: quiet,
    compaction: { summarizer: extractiveSummarizer(), autoTruncate: false, preserveLast: 12 },
  });
  cm.setSystemPrompt("You are a careful coding agent.");
  cm.metadata = { agent: "coder", project: { name: "ctxwin", tags: ["a", "b"] } };
  cm.load(history(30));
  const report = await cm.compactIfNeeded({ threshold: 0.5 });
  if (!report.summary) throw new Error("the fixture needs a summary");
  for (const m of history(40).slice(120)) cm.addMessage(m);
  cm.truncate(Math.floor(cm.tokenUsage * 0.7));
  return cm;
}

describe("export", () => {
  it("writes the export format: metadata, then the turns in order with summaries and the omission marker marked", async () => {
    const cm = await worked();
    const out = cm.export();
    expect(out.format).toBe("ctxwin-context");
    expect(out.version).toBe(1);
    expect(out.metadata).toMatchObject({
      session_id: cm.sessionId,
      agent: "coder",
      model: "gpt-4o",
      mode: "summarize",
      message_count: cm.getStats().messageCount,
      token_usage: cm.tokenUsage,
      project: { name: "ctxwin", tags: ["a", "b"] },
    });
    expect(Date.parse(out.metadata.created_at)).toBeLessThanOrEqual(Date.parse(out.metadata.updated_at));
    expect(out.system_prompt).toBe("You are a careful coding agent.");
    const summaries = out.turns.filter((t) => t.ctxwin?.kind === "summary");
    const markers = out.turns.filter((t) => t.ctxwin?.kind === "omission");
    expect(summaries).toHaveLength(1);
    expect(markers).toHaveLength(1);
    // The marker names what it stands for (when it names anything, the names are in the annotation too).
    expect(markers[0]).toMatchObject({
      content: expect.stringMatching(/^\[\d+ messages omitted(\]$|; recall by id:\n)/),
      ctxwin: { omitted: expect.any(Number) },
    });
    const named = (markers[0]?.ctxwin as { named?: Array<{ id: string }> } | undefined)?.named ?? [];
    for (const { id } of named) expect(markers[0]?.content).toContain(`recall(${JSON.stringify(id)})`);
    // The turns are the request's conversation, in order.
    const request = cm.getContextForRequest().slice(1);
    expect(out.turns.map(({ ctxwin: _, ...m }) => m)).toEqual(request);
    // Plain JSON, detached from the manager's objects.
    expect(JSON.parse(JSON.stringify(out))).toEqual(out);
    (out.turns[0] as { content: unknown }).content = "edited";
    expect(cm.getMessages()[0]!.content).not.toBe("edited");
  });

  it("of a new manager has no turns and a null agent", () => {
    const out = new MessageContextManager({ model: "gpt-4o" }).export();
    expect(out.turns).toEqual([]);
    expect(out.metadata.agent).toBeNull();
    expect(out.system_prompt).toBeNull();
  });
});

describe("round trip", () => {
  it("fromExport(export) is lossless: messages deep-equal, counts, request and metadata equal", async () => {
    const cm = await worked();
    const text = JSON.stringify(cm.export());
    const back = MessageContextManager.fromExport(text, {
      limits: limits(3000),
      logger: quiet,
      compaction: { summarizer: extractiveSummarizer(), autoTruncate: false },
    });
    expect(back.getMessages()).toEqual(cm.getMessages());
    expect(back.getStats()).toEqual(cm.getStats());
    expect(back.getContextForRequest()).toEqual(cm.getContextForRequest());
    expect(back.metadata).toEqual(cm.metadata);
    expect(back.sessionId).toBe(cm.sessionId);
    expect(back.export()).toEqual(cm.export());
    // The summary is still a summary (a second export marks it) and still survives trims that
    // leave it room (to a target below the summary and the newest exchange together, the summary
    // gives way to the exchange: docs/compaction.md, the newest exchange).
    expect(back.truncate(Math.floor(back.tokenUsage * 0.8))?.removed.length).toBeGreaterThan(0);
    expect(back.export().turns.some((t) => t.ctxwin?.kind === "summary")).toBe(true);
  });

  it("import(json) loads the turns into the current session, keeping its id", async () => {
    const source = await worked();
    const target = new MessageContextManager({ model: "gpt-4o", limits: limits(3000), compaction: { autoTruncate: false } });
    target.metadata = { agent: "other", mine: 1 };
    target.addMessage({ role: "user", content: "to be replaced" });
    const id = target.sessionId;
    target.import(source.export());
    expect(target.getMessages()).toEqual(source.getMessages());
    expect(target.getContextForRequest()).toEqual(source.getContextForRequest());
    expect(target.tokenUsage).toBe(source.tokenUsage);
    expect(target.sessionId).toBe(id);
    expect(target.metadata).toEqual({ agent: "coder", mine: 1, project: { name: "ctxwin", tags: ["a", "b"] } });
  });

  it("holds for random histories and trims (property)", () => {
    const message = fc.oneof(
      fc.record({ role: fc.constantFrom("user", "assistant"), content: fc.string({ maxLength: 60 }) }),
      fc.record({
        role: fc.constant("user"),
        content: fc.array(fc.record({ type: fc.constant("text"), text: fc.string({ unit: "binary", maxLength: 30 }) }), {
          minLength: 1,
          maxLength: 3,
        }),
      }),
      fc.record({ role: fc.constant("system"), content: fc.string({ maxLength: 40 }), _preserve: fc.constant(true) }),
    );
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 40 }),
        fc.array(fc.integer({ min: 0, max: 600 }), { maxLength: 3 }),
        fc.option(fc.string({ maxLength: 30 }), { nil: undefined }),
        (messages, trims, prompt) => {
          const options = { model: "gpt-4o", limits: limits(100_000), compaction: { autoTruncate: false } };
          const cm = new MessageContextManager(options);
          if (prompt !== undefined) cm.setSystemPrompt(prompt);
          messages.forEach((m, i) => {
            cm.addMessage(m as MessageLike);
            if (trims.length > 0 && i % 10 === 9) cm.truncate(trims[(i / 10) % trims.length]);
          });
          const back = MessageContextManager.fromExport(JSON.parse(JSON.stringify(cm.export())) as unknown, options);
          expect(back.getMessages()).toEqual(cm.getMessages());
          expect(back.getContextForRequest()).toEqual(cm.getContextForRequest());
          expect(back.getStats()).toEqual(cm.getStats());
          expect(back.export()).toEqual(cm.export());
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("validation", () => {
  const valid = (): ContextExport => {
    const cm = new MessageContextManager({ model: "gpt-4o" });
    for (const m of history(2)) cm.addMessage(m);
    return cm.export();
  };

  it("names the first bad path, with a code", () => {
    const bad = valid() as unknown as { turns: Array<{ content: unknown }> };
    bad.turns[3]!.content = [{ type: "text", text: 42 }];
    expect(() => parseExport(bad)).toThrow(
      expect.objectContaining({ name: "TypeError", code: "ERR_CTXWIN_INVALID_EXPORT", path: "turns[3].content[0].text" }),
    );
    expect(() => parseExport(bad)).toThrow("invalid context export: turns[3].content[0].text must be a string, got number 42");
  });

  it.each([
    ["not JSON", "{ turns: [", ""],
    ["a foreign file (a bare array)", [{ role: "user", content: "hi" }], ""],
    ["another tool's object", { messages: [] }, "metadata"],
    ["a wrong format", { ...JSON.parse(JSON.stringify({ format: "langchain", metadata: { session_id: "s" }, turns: [] })) }, "format"],
    ["no session id", { metadata: {}, turns: [] }, "metadata.session_id"],
    ["a bad date", { metadata: { session_id: "s", created_at: "yesterday" }, turns: [] }, "metadata.created_at"],
    ["no turns", { metadata: { session_id: "s" } }, "turns"],
    ["an unknown role", { metadata: { session_id: "s" }, turns: [{ role: "wizard", content: "x" }] }, "turns[0].role"],
    ["a bad part", { metadata: { session_id: "s" }, turns: [{ role: "user", content: [{ text: "x" }] }] }, "turns[0].content[0].type"],
    [
      "bad tool calls",
      { metadata: { session_id: "s" }, turns: [{ role: "assistant", tool_calls: [{ function: {} }] }] },
      "turns[0].tool_calls[0].id",
    ],
    [
      "a bad annotation",
      { metadata: { session_id: "s" }, turns: [{ role: "system", content: "x", ctxwin: { kind: "note" } }] },
      "turns[0].ctxwin.kind",
    ],
    [
      "a bad omitted count",
      { metadata: { session_id: "s" }, turns: [{ role: "system", content: "x", ctxwin: { kind: "omission", omitted: 0 } }] },
      "turns[0].ctxwin.omitted",
    ],
    // Integers to JavaScript, not counts: a hostile file must not carry them into the marker and the stats.
    [
      "an omitted count of 1e300",
      { metadata: { session_id: "s" }, turns: [{ role: "system", content: "x", ctxwin: { kind: "omission", omitted: 1e300 } }] },
      "turns[0].ctxwin.omitted",
    ],
    [
      "an omitted count past 2^53",
      { metadata: { session_id: "s" }, turns: [{ role: "system", content: "x", ctxwin: { kind: "omission", omitted: 2 ** 53 } }] },
      "turns[0].ctxwin.omitted",
    ],
    [
      "an infinite omitted count",
      { metadata: { session_id: "s" }, turns: [{ role: "system", content: "x", ctxwin: { kind: "omission", omitted: Infinity } }] },
      "turns[0].ctxwin.omitted",
    ],
    [
      "two omission markers",
      {
        metadata: { session_id: "s" },
        turns: [
          { role: "system", content: "x", ctxwin: { kind: "omission", omitted: 2 } },
          { role: "system", content: "y", ctxwin: { kind: "omission", omitted: 3 } },
        ],
      },
      "turns[1].ctxwin.kind",
    ],
  ])("rejects %s", (_what, input, path) => {
    const result = safeParseExport(input);
    expect(result.success).toBe(false);
    if (!result.success) {
      expect(result.error.path).toBe(path);
      expect(result.error.code).toBe("ERR_CTXWIN_INVALID_EXPORT");
    }
  });

  it("safeParseExport returns the data of a valid export", () => {
    const data = valid();
    expect(safeParseExport(JSON.stringify(data))).toEqual({ success: true, data });
    expect(parseExport(data)).toBe(data);
  });

  it("a corrupt or foreign file changes nothing", async () => {
    const cm = await worked();
    const before = { messages: cm.getMessages(), request: cm.getContextForRequest(), stats: contextStats(cm), exported: cm.export() };
    const corrupt = cm.export() as unknown as { turns: Array<Record<string, unknown>> };
    corrupt.turns[5]!.role = 7;
    expect(() => cm.import(corrupt)).toThrow(expect.objectContaining({ code: "ERR_CTXWIN_INVALID_EXPORT", path: "turns[5].role" }));
    expect(() => cm.import("[1, 2, 3]")).toThrow(expect.objectContaining({ code: "ERR_CTXWIN_INVALID_EXPORT" }));
    // Valid as a file, but a tool result whose call is not there: the manager refuses it whole.
    const orphan = cm.export();
    orphan.turns.push({ role: "tool", tool_call_id: "nowhere", content: "x" });
    expect(() => cm.import(orphan)).toThrow(expect.objectContaining({ code: "ERR_CTXWIN_ORPHAN_TOOL_RESULT" }));
    expect({ messages: cm.getMessages(), request: cm.getContextForRequest(), stats: contextStats(cm), exported: cm.export() }).toEqual(
      before,
    );
    expect(() => MessageContextManager.fromExport({ metadata: { session_id: "s" }, turns: [] })).toThrow(/options.model is required/);
  });
});
