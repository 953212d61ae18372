// Invariant 14 in a MessageContextManager: whatever a trim, a compaction level or truncate() takes
// is recallable as the bytes the caller added, from the Recall that follows the manager and from
// the session's log; and the markers of every request name what they stand for. Each test adds an
// agent's session (tool calls whose results are logs, one-line JSON and mixed scripts; the agent's
// words, some with their own ids) and reads back every id the manager's events and requests name.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ContextLimits,
  MemorySessionStore,
  MessageContextManager,
  Recall,
  TruncationMode,
  extractiveSummarizer,
  getCounter,
  type MessageLike,
  type SummaryModel,
} from "ctxwin";
import { messageId } from "../../../ts/compaction/tool-events.js";

type Msg = MessageLike & {
  id?: string;
  tool_calls?: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
};
const quiet = { warn: () => {}, info: () => {}, error: () => {}, debug: () => {} };
const counter = getCounter("gpt-4o");
const BIG = 10_000_000;

/** Result `i`: about `lines` lines of a log, a one-line JSON document, or mixed scripts, by i. */
function result(i: number, lines = 60): string {
  if (i % 3 === 1)
    return JSON.stringify({ call: i, rows: Array.from({ length: lines }, (_, n) => ({ n, name: `résumé ${n} 数据`, ok: n % 9 !== 0 })) });
  if (i % 3 === 2) return Array.from({ length: lines }, (_, n) => `第${n}行 Ελληνικά עברית 🙂 value=${i * 1000 + n}`).join("\n");
  return Array.from({ length: lines }, (_, n) =>
    n === 7 ? `Error: checksum mismatch in part ${i}` : `${String(n).padStart(3)} INFO part ${i} row ${n} ok`,
  ).join("\n");
}

/** Turn `i` of an agent's session: a call and its result, then the agent's words (every third with its own id). */
function turn(i: number, lines = 60): Msg[] {
  const name = i % 2 === 0 ? "bash" : "read_file";
  const args = i % 2 === 0 ? { command: `pytest tests/test_part${i}.py -x` } : { path: `src/part${i}.ts` };
  return [
    {
      role: "assistant",
      content: "",
      tool_calls: [{ id: `call_${i}`, type: "function", function: { name, arguments: JSON.stringify(args) } }],
    },
    { role: "tool", tool_call_id: `call_${i}`, content: result(i, lines) },
    i % 3 === 0
      ? { role: "assistant", content: `Part ${i} looked at; 日本語 notes ${"ok ".repeat(i % 7)}`, id: `msg_${i}` }
      : { role: "assistant", content: `Part ${i} done, moving on ${i}.` },
  ];
}

/** What the caller added, by the id a recall reads it back by (a tool result by its call's id, a message by messageId). */
class Originals {
  readonly byId = new Map<string, string>();
  add(message: Msg): void {
    if (message.tool_call_id !== undefined) this.byId.set(message.tool_call_id, message.content as string);
    else if (message.tool_calls === undefined) this.byId.set(messageId(message), message.content as string);
  }
}

/** The strings in `value`, however deep. */
function* stringsIn(value: unknown): Generator<string> {
  if (typeof value === "string") yield value;
  else if (Array.isArray(value)) for (const v of value) yield* stringsIn(v);
  else if (value !== null && typeof value === "object") for (const v of Object.values(value)) yield* stringsIn(v);
}

/** Every id a request names: in `recall("id")` (placeholders, cuts, the omission marker; `recall(\"id\")` inside a JSON result) and in a summary's `recall by id: a, b`. */
function namedIds(request: readonly unknown[]): string[] {
  const ids = new Set<string>();
  for (const text of stringsIn(request)) {
    for (const m of text.matchAll(/recall\(\\?"([^"\\]*)\\?"\)/g)) ids.add(m[1] as string);
    for (const m of text.matchAll(/recall by id: ([^;)\n]*)/g)) for (const id of (m[1] as string).split(", ")) ids.add(id);
  }
  return [...ids];
}

async function expectRecalled(recalls: readonly Recall[], originals: Originals, ids: Iterable<string>): Promise<number> {
  let checked = 0;
  for (const id of ids) {
    expect(originals.byId.has(id), `${id} is an id the caller's messages have`).toBe(true);
    for (const recall of recalls) {
      const answer = await recall.read(id);
      expect(answer, `${id} from ${recall.cache.maxBytes === 0 ? "the session's log" : "the cache"}`).toMatchObject({
        ok: true,
        truncated: false,
      });
      expect(answer.ok && answer.text === originals.byId.get(id), `${id} reads back as added`).toBe(true);
      checked++;
    }
  }
  return checked;
}

/** The ids of the caller's messages an event says were taken: tool results by call id, other messages (not calls) by their own; an earlier summary a new one folds in is ctxwin's. */
function takenIds(messages: readonly MessageLike[]): string[] {
  return messages.flatMap((m) => {
    const msg = m as Msg;
    if (msg.tool_call_id !== undefined) return [msg.tool_call_id];
    if (typeof msg.content === "string" && msg.content.startsWith("Summary of the ")) return [];
    return msg.tool_calls === undefined ? [messageId(msg)] : [];
  });
}

function limits(tokens: number): ContextLimits {
  return new ContextLimits({ model: "gpt-4o", maxTokens: tokens, maxOutputTokens: 0, reservedTokens: 0 });
}

describe("what automatic trims take", () => {
  for (const mode of [TruncationMode.SMART, TruncationMode.TOKEN_BUDGET, TruncationMode.SLIDING_WINDOW, TruncationMode.SUMMARIZE]) {
    it(`is recalled byte for byte in ${mode} mode, from the cache and the session's log, and the requests' markers name only such ids`, async () => {
      const store = new MemorySessionStore();
      const context = new MessageContextManager<Msg>({
        model: "gpt-4o",
        mode,
        limits: limits(6_000),
        logger: quiet,
        session: { store, id: `auto-${mode}` },
        compaction: {
          summarizer: mode === TruncationMode.SUMMARIZE ? extractiveSummarizer() : undefined,
          // Results stay whole: what goes, goes by a trim.
          maxToolResultTokens: 100_000,
          keepToolResults: 100,
        },
      });
      await context.ready;
      const cached = new Recall({ context, maxTokens: BIG });
      const logged = new Recall({ counter, session: { store, id: `auto-${mode}` }, maxBytes: 0, maxTokens: BIG });
      const originals = new Originals();
      const taken = new Set<string>();
      context.on("trimmed", (event) => takenIds(event.removed).forEach((id) => taken.add(id)));
      context.on("compactionEdit", (edit) =>
        takenIds([...edit.removed, ...edit.replaced.map((r) => r.before)]).forEach((id) => taken.add(id)),
      );
      const named = new Set<string>();
      const task: Msg = { role: "user", content: "Audit every part and fix what fails." };
      originals.add(task);
      context.addMessage(task);
      for (let i = 0; i < 30; i++) {
        for (const m of turn(i)) {
          originals.add(m);
          context.addMessage(m);
        }
        if (mode === TruncationMode.SUMMARIZE) await context.compactIfNeeded({ threshold: context.trimAt });
        for (const id of namedIds(context.getContextForRequest())) named.add(id);
      }
      await context.flush();
      expect(taken.size).toBeGreaterThan(10);
      // Only a smart trim leaves a marker, and only a summary a head: the other modes name nothing.
      if (mode === TruncationMode.SMART || mode === TruncationMode.SUMMARIZE) expect(named.size).toBeGreaterThan(0);
      expect(await expectRecalled([cached, logged], originals, taken)).toBe(2 * taken.size);
      await expectRecalled([cached, logged], originals, named);
    });
  }
});

describe("what each compaction level takes", () => {
  it("level 1's cut, level 2's placeholder, level 3's summary and level 4's trim: each original recalled as added", async () => {
    const levels = new Map<string, Set<string>>();
    const context = new MessageContextManager<Msg>({
      model: "gpt-4o",
      mode: TruncationMode.SUMMARIZE,
      limits: limits(200_000),
      logger: quiet,
      compaction: {
        summarizer: extractiveSummarizer(),
        autoTruncate: false,
        maxToolResultTokens: 300,
        keepToolResults: 2,
        clearAtLeast: 0,
        preserveLast: 4,
      },
    });
    const recall = new Recall({ context, maxTokens: BIG });
    const originals = new Originals();
    context.on("compactionEdit", (edit) => {
      const ids = levels.get(edit.level) ?? new Set<string>();
      takenIds([...edit.removed, ...edit.replaced.map((r) => r.before)]).forEach((id) => ids.add(id));
      levels.set(edit.level, ids);
    });
    context.on("trimmed", (event) => {
      const ids = levels.get("truncate") ?? new Set<string>();
      takenIds(event.removed).forEach((id) => ids.add(id));
      levels.set("truncate", ids);
    });
    // The user's later words, which a summary keeps beside itself (keepUserTokens) and a trim may take.
    const asked = (i: number) => (i % 6 === 5 ? [{ role: "user", content: `Also check part ${i} against the spec.` } as Msg] : []);
    const messages = [
      { role: "user", content: "Audit every part." } as Msg,
      ...Array.from({ length: 24 }, (_, i) => [...turn(i, 120), ...asked(i)]).flat(),
    ];
    messages.forEach((m) => originals.add(m));
    context.load(messages);
    // A target so low that every level runs, the last one on what the first ones cut (level 3
    // summarizes all it may, the user's words stay beside the summary, and level 4 trims those).
    const report = await context.compactIfNeeded({ threshold: 0.002 });
    expect(report.levels.filter((l) => l.messagesChanged > 0).map((l) => l.name)).toEqual([
      "compact_tool_results",
      "clear_old_tool_results",
      "summarize",
      "truncate",
    ]);
    for (const [level, ids] of levels) {
      expect(ids.size, level).toBeGreaterThan(0);
      await expectRecalled([recall], originals, ids);
    }
    await expectRecalled([recall], originals, namedIds(context.getContextForRequest()));
  });

  it("a result level 1 cut and level 4 then trimmed in the same run is recalled whole, not as the cut", async () => {
    const context = new MessageContextManager<Msg>({
      model: "gpt-4o",
      mode: TruncationMode.TOKEN_BUDGET,
      limits: limits(200_000),
      logger: quiet,
      compaction: { autoTruncate: false, maxToolResultTokens: 200, keepToolResults: 100 },
    });
    const recall = new Recall({ context, maxTokens: BIG });
    const originals = new Originals();
    const cut = new Set<string>();
    const trimmed = new Set<string>();
    context.on(
      "compactionEdit",
      (edit) => edit.level === "compact_tool_results" && takenIds(edit.replaced.map((r) => r.before)).forEach((id) => cut.add(id)),
    );
    context.on("trimmed", (event) => takenIds(event.removed).forEach((id) => trimmed.add(id)));
    const messages = [{ role: "user", content: "Audit every part." } as Msg, ...Array.from({ length: 12 }, (_, i) => turn(i, 200)).flat()];
    messages.forEach((m) => originals.add(m));
    context.load(messages);
    await context.compactIfNeeded({ threshold: 0.005 });
    const both = [...cut].filter((id) => trimmed.has(id));
    expect(both.length).toBeGreaterThan(0);
    await expectRecalled([recall], originals, both);
  });

  it("a placeholder in a request made while the summary is being written is already recallable", async () => {
    let release!: () => void;
    const written = new Promise<void>((resolve) => (release = resolve));
    const offline = extractiveSummarizer();
    // A model that answers only when the test lets it: the compaction waits at level 3.
    const llm: SummaryModel = async (prompt: string) => {
      await written;
      return offline.summarize(prompt);
    };
    // clearAtLeast 0: level 2 clears whatever it can (its placeholders keep error and outcome
    // lines), and the summary is still needed after it, so the request below is made mid-compaction.
    const context = new MessageContextManager<Msg>({
      model: "gpt-4o",
      mode: TruncationMode.SUMMARIZE,
      limits: limits(200_000),
      logger: quiet,
      compaction: { summarizer: llm, autoTruncate: false, maxToolResultTokens: 100_000, keepToolResults: 1, clearAtLeast: 0 },
    });
    const recall = new Recall({ context, maxTokens: BIG });
    const originals = new Originals();
    const cleared = new Promise<void>((resolve) =>
      context.on("compactionEdit", (edit) => edit.level === "clear_old_tool_results" && resolve()),
    );
    const messages = [{ role: "user", content: "Audit every part." } as Msg, ...Array.from({ length: 10 }, (_, i) => turn(i, 120)).flat()];
    messages.forEach((m) => originals.add(m));
    context.load(messages);
    const running = context.compactIfNeeded({ threshold: 0.01 });
    await cleared;
    const ids = namedIds(context.getContextForRequest());
    expect(ids.length).toBeGreaterThan(0);
    await expectRecalled([recall], originals, ids);
    release();
    await running;
  });
});

describe("what truncate() takes", () => {
  it("is recalled byte for byte, and its marker names the newest of them with one line each", async () => {
    const context = new MessageContextManager<Msg>({ model: "gpt-4o", mode: TruncationMode.SMART, limits: limits(200_000), logger: quiet });
    const recall = new Recall({ context, maxTokens: BIG });
    const originals = new Originals();
    const messages = [{ role: "user", content: "Audit every part." } as Msg, ...Array.from({ length: 20 }, (_, i) => turn(i)).flat()];
    messages.forEach((m) => originals.add(m));
    context.load(messages);
    const event = context.truncate(12_000);
    expect(event?.removed.length).toBeGreaterThan(0);
    await expectRecalled([recall], originals, takenIds(event?.removed ?? []));
    const marker = context
      .getContextForRequest()
      .find((m) => typeof m.content === "string" && m.content.startsWith("[") && m.content.includes("messages omitted")) as {
      content: string;
    };
    expect(marker.content).toMatch(new RegExp(`^\\[${event?.removed.length} messages omitted; recall by id:\\n`));
    // Each named line: the call that reads it back, the tool and its subject or the message's first words (a failure still open marked so).
    for (const line of marker.content.split("\n").slice(1))
      expect(line).toMatch(
        /^recall\("[^"]+"\): (bash pytest tests\/test_part\d+\.py -x|read_file src\/part\d+\.ts|assistant: .+)( \(failed\))?\]?$|^\d+ earlier not named\]$/,
      );
    const ids = namedIds([marker]);
    expect(ids.length).toBeGreaterThan(3);
    expect(counter.countMessages([marker as MessageLike]) - counter.countMessages([])).toBeLessThanOrEqual(200);
    await expectRecalled([recall], originals, ids);
  });
});

describe("the marker's names", () => {
  it("survive an export and its import, and a session's log read again by another manager", async () => {
    const store = new MemorySessionStore();
    const options = {
      model: "gpt-4o",
      mode: TruncationMode.SMART,
      limits: limits(200_000),
      logger: quiet,
      session: { store, id: "names" },
    };
    const context = await MessageContextManager.open<Msg>(options);
    context.load([{ role: "user", content: "Audit every part." } as Msg, ...Array.from({ length: 20 }, (_, i) => turn(i)).flat()]);
    context.truncate(12_000);
    await context.flush();
    const marker = (request: readonly MessageLike[]) =>
      request.find((m) => typeof m.content === "string" && m.content.includes(" messages omitted; recall by id:"))?.content;
    const before = marker(context.getContextForRequest());
    expect(before).toMatch(/^\[\d+ messages omitted; recall by id:\n/);
    const exported = context.export();
    expect(exported.turns.find((t) => t.ctxwin?.kind === "omission")).toMatchObject({
      content: before,
      ctxwin: { kind: "omission", named: expect.any(Array) },
    });
    const imported = new MessageContextManager<Msg>({
      model: "gpt-4o",
      mode: TruncationMode.SMART,
      limits: limits(200_000),
      logger: quiet,
    });
    imported.import(JSON.parse(JSON.stringify(exported)));
    expect(marker(imported.getContextForRequest())).toBe(before);
    const reopened = await MessageContextManager.open<Msg>(options);
    expect(marker(reopened.getContextForRequest())).toBe(before);
    // A name that is not `{ id, line }` strings is refused with the path, as any bad export is.
    const bad = JSON.parse(JSON.stringify(exported)) as { turns: Array<{ ctxwin?: { kind: string; named?: unknown } }> };
    (bad.turns.find((t) => t.ctxwin?.kind === "omission")?.ctxwin as { named: unknown }).named = [{ id: 7, line: "x" }];
    expect(() => imported.import(bad)).toThrow(
      expect.objectContaining({ code: "ERR_CTXWIN_INVALID_EXPORT", message: expect.stringContaining(".ctxwin.named") }),
    );
  });
});

describe("every id a request names", () => {
  it("is recallable and returns the bytes the caller added, whatever the history, window and mode", async () => {
    const text = fc
      .array(fc.constantFrom("read", "error", "tests", "pass", "Traceback", "日本語", "🙂", "résumé", "数据", "ok", "{", "}", '"'), {
        minLength: 1,
        maxLength: 30,
      })
      .map((w) => w.join(" "));
    const step = fc.oneof(
      fc.record({ kind: fc.constant("user" as const), text, own: fc.boolean() }),
      fc.record({ kind: fc.constant("assistant" as const), text, own: fc.boolean() }),
      fc.record({ kind: fc.constant("tool" as const), lines: fc.integer({ min: 1, max: 400 }), json: fc.boolean(), text }),
    );
    const runs = fc.record({
      steps: fc.array(step, { minLength: 4, maxLength: 40 }),
      window: fc.integer({ min: 2_000, max: 16_000 }),
      mode: fc.constantFrom(TruncationMode.SMART, TruncationMode.TOKEN_BUDGET, TruncationMode.SLIDING_WINDOW, TruncationMode.SUMMARIZE),
      maxToolResultTokens: fc.constantFrom(100, 400, 1_000),
      keepToolResults: fc.integer({ min: 0, max: 3 }),
      compactEvery: fc.integer({ min: 1, max: 6 }),
    });
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(runs, async ({ steps, window, mode, maxToolResultTokens, keepToolResults, compactEvery }) => {
        const context = new MessageContextManager<Msg>({
          model: "gpt-4o",
          mode,
          limits: limits(window),
          logger: quiet,
          compaction: {
            summarizer: mode === TruncationMode.SUMMARIZE ? extractiveSummarizer() : undefined,
            maxToolResultTokens,
            keepToolResults,
          },
          warnings: { onOverflow: "send" },
        });
        const recall = new Recall({ context, maxTokens: BIG });
        const originals = new Originals();
        const add = (m: Msg) => {
          originals.add(m);
          context.addMessage(m);
        };
        add({ role: "user", content: "The task." });
        let n = 0;
        for (const s of steps) {
          n++;
          if (s.kind === "tool") {
            const id = `call_${n}`;
            const body = s.json
              ? JSON.stringify({ n, rows: Array.from({ length: s.lines }, (_, k) => ({ k, note: s.text })) })
              : Array.from({ length: s.lines }, (_, k) => `${k}: ${s.text}`).join("\n");
            add({
              role: "assistant",
              content: "",
              tool_calls: [
                {
                  id,
                  type: "function",
                  function: { name: n % 2 ? "bash" : "grep", arguments: JSON.stringify({ command: `${s.text.slice(0, 20)} ${n}` }) },
                },
              ],
            });
            add({ role: "tool", tool_call_id: id, content: body });
          } else {
            add(s.own ? { role: s.kind, content: `${s.text} (${n})`, id: `own_${n}` } : { role: s.kind, content: `${s.text} (${n})` });
          }
          if (n % compactEvery === 0) await context.compactIfNeeded({ threshold: 0.5 });
          const ids = namedIds(context.getContextForRequest());
          checked += await expectRecalled([recall], originals, ids);
        }
      }),
      { numRuns: 40 },
    );
    expect(checked).toBeGreaterThan(20);
  }, 600_000);
});
