// The log's replay: a snapshot entry stands for everything before it (a reader that starts at the
// last one derives the same view as one that reads the whole log), and an entry of the manager's
// types that is malformed, the messages inside it included, is ERR_CTXWIN_SESSION_CORRUPT.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ContextLimits, MemorySessionStore, MessageContextManager, TruncationMode, extractiveSummarizer } from "ctxwin";
import type { SessionEntry } from "ctxwin/session";
import { ContextReplay, replay } from "../../../ts/session/context-log.js";

const quiet = { warn: () => {} };

/** A real log: what a manager writes while it adds, trims, compacts, clears, sets prompts and metadata. */
async function managerLog(ops: number[]): Promise<SessionEntry[]> {
  const store = new MemorySessionStore();
  const cm = await MessageContextManager.open({
    model: "gpt-4o",
    mode: TruncationMode.SUMMARIZE,
    limits: new ContextLimits({ model: "gpt-4o", maxTokens: 700, maxOutputTokens: 0, reservedTokens: 0 }),
    logger: quiet,
    session: { store, id: "s" },
    compaction: { summarizer: extractiveSummarizer(), preserveLast: 3 },
  });
  let n = 0;
  for (const op of ops) {
    if (op < 6) cm.addMessage({ role: op % 2 ? "assistant" : "user", content: `message ${n++} ${"word ".repeat(op * 7 + 1)}` });
    else if (op === 6) cm.truncate(200);
    else if (op === 7) await cm.compactIfNeeded({ threshold: 0.3 });
    else if (op === 8) cm.setSystemPrompt(`prompt ${n++}`);
    else if (op === 9) cm.metadata = { n: n++ };
    else if (op === 10) cm.clear();
    else {
      const id = `call-${n++}`;
      cm.addMessage({
        role: "assistant",
        content: null,
        tool_calls: [{ id, type: "function", function: { name: "grep", arguments: "{}" } }],
      });
      cm.addMessage({ role: "tool", tool_call_id: id, content: "found ".repeat(op) });
    }
  }
  await cm.flush();
  return (await store.read("s")).map((r) => r.entry);
}

describe("snapshots", () => {
  it("replaying from a snapshot of the view at any point gives the view the whole log gives", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 40 }), async (ops) => {
        const entries = await managerLog(ops);
        const whole = replay(entries);
        const upTo = new ContextReplay();
        // Every cut point: the snapshot of the first k entries, then the rest.
        for (let k = 0; k <= entries.length; k++) {
          const snapshot = upTo.snapshot();
          expect(replay([snapshot, ...entries.slice(k)], k), `cut at ${k}`).toEqual(whole);
          // A snapshot is an entry like any other: in the middle of a log it changes nothing.
          expect(replay([...entries.slice(0, k), snapshot, ...entries.slice(k)]), `inserted at ${k}`).toEqual(whole);
          if (k < entries.length) upTo.apply(entries[k] as SessionEntry, k);
        }
      }),
      { numRuns: 40 },
    );
  }, 60_000);

  it("a manager opens a log that holds snapshots", async () => {
    const entries = await managerLog([0, 1, 2, 11, 3, 6, 8, 9, 4, 5]);
    const store = new MemorySessionStore();
    await store.append("s", entries.slice(0, 6));
    const upTo = new ContextReplay();
    entries.slice(0, 6).forEach((e, i) => upTo.apply(e, i));
    await store.append("s", [upTo.snapshot(), ...entries.slice(6)]);
    const cm = await MessageContextManager.open({
      model: "gpt-4o",
      logger: quiet,
      session: { store, id: "s" },
      compaction: { autoTruncate: false },
    });
    const view = replay(entries);
    expect(cm.getMessages()).toEqual(view.entries.map((e) => e.message));
    expect(cm.metadata).toEqual(view.metadata);
    expect((await store.info("s"))?.snapshot).toBe(6);
  });
});

describe("malformed entries of the manager's types", () => {
  const good = { type: "message", id: "m0", message: { role: "user", content: "hi" } };
  const cases: Array<[string, SessionEntry]> = [
    ["a message whose content is a number", { type: "message", id: "m1", message: { role: "user", content: 42 } }],
    ["a message with an unknown role", { type: "message", id: "m1", message: { role: "wizard", content: "x" } }],
    ["a message whose part has no type", { type: "message", id: "m1", message: { role: "user", content: [{ text: "x" }] } }],
    [
      "a message whose tool call has no name",
      {
        type: "message",
        id: "m1",
        message: { role: "assistant", content: null, tool_calls: [{ id: "c", function: { arguments: "{}" } }] },
      },
    ],
    [
      "a replace with a malformed message",
      { type: "boundary", boundary: { kind: "replace", messages: [{ id: "m0", message: { role: "user", content: { no: 1 } } }] } },
    ],
    [
      "a summary with a malformed message",
      { type: "boundary", boundary: { kind: "summary", removed: ["m0"], id: "s1", message: { role: "system", content: 5 } } },
    ],
    [
      "a snapshot with a malformed message",
      { type: "snapshot", messages: [{ id: "m9", message: { role: "user", content: [null] } }], marker: null },
    ],
    ["a snapshot without ids", { type: "snapshot", messages: [{ message: { role: "user", content: "x" } }], marker: null }],
    ["a snapshot with a bad marker", { type: "snapshot", messages: [], marker: { after: null, omitted: -1, role: "user" } }],
    ["a snapshot with a bad prompt", { type: "snapshot", messages: [], marker: null, prompt: 7 }],
  ];

  it.each(cases)("%s is ERR_CTXWIN_SESSION_CORRUPT naming the entry, from replay and from opening the session", async (_name, bad) => {
    expect(() => replay([good, bad])).toThrow(
      expect.objectContaining({ code: "ERR_CTXWIN_SESSION_CORRUPT", message: expect.stringContaining("entry 1") }),
    );
    const store = new MemorySessionStore();
    await store.append("s", [good, bad]);
    await expect(MessageContextManager.open({ model: "gpt-4o", logger: quiet, session: { store, id: "s" } })).rejects.toMatchObject({
      code: "ERR_CTXWIN_SESSION_CORRUPT",
    });
  });

  it("a replay that failed can be asked again: the entries before the bad one stay applied, nothing after", () => {
    const r = new ContextReplay();
    r.apply(good, 0);
    expect(() => r.apply(cases[0]![1], 1)).toThrow(expect.objectContaining({ code: "ERR_CTXWIN_SESSION_CORRUPT" }));
    expect(r.result().entries.map((e) => e.id)).toEqual(["m0"]);
  });
});

describe("entries from a store of one's own", () => {
  it("holes, and what throws when read, are ERR_CTXWIN_SESSION_CORRUPT naming the entry, never an uncoded error", () => {
    const holes: unknown[] = ["m1"];
    holes[2] = "m3";
    const throwing = new Proxy(
      { type: "message" },
      {
        get: (_target, key) =>
          key === "type"
            ? "message"
            : (() => {
                throw new Error("trap");
              })(),
      },
    );
    const replace: unknown[] = [{ id: "m1", message: { role: "user", content: "x" } }];
    replace[2] = { id: "m2", message: { role: "user", content: "y" } };
    const cases: unknown[] = [
      { type: "boundary", boundary: { kind: "trim", removed: holes, marker: null } },
      { type: "boundary", boundary: { kind: "replace", messages: replace } },
      throwing,
    ];
    for (const entry of cases) {
      expect(() => replay([{ type: "message", id: "m1", message: { role: "user", content: "hi" } }, entry as SessionEntry])).toThrow(
        expect.objectContaining({ code: "ERR_CTXWIN_SESSION_CORRUPT", message: expect.stringContaining("entry 1") }),
      );
    }
  });
});
