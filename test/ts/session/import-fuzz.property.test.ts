// Fuzzing the loaders of outside session data in JavaScript (issue 17 item 2: "every loader of
// outside data ... session import"; the C++ loaders have libFuzzer targets in test/fuzz/, these
// are TypeScript): random JSON values, random text, and valid exports and session logs with one
// random edit. Every outcome is a result or a coded ctxwin error, never a TypeError from inside
// ctxwin's own code, a stack overflow, or a half-restored manager.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FileSessionStore, MessageContextManager, TiktokenCounter, type MessageLike } from "ctxwin";
import { parseExport, safeParseExport } from "ctxwin/session";

const quiet = { warn: () => {} };
const counter = new TiktokenCounter({ encoding: "o200k_base" });

function coded(error: unknown): string {
  expect(error).toBeInstanceOf(Error);
  const code = (error as { code?: unknown }).code;
  expect(typeof code === "string" && code.startsWith("ERR_CTXWIN_"), `uncoded error: ${String(error)}`).toBe(true);
  return code as string;
}

function sampleExport(): Record<string, unknown> {
  const cm = new MessageContextManager({ model: "gpt-4o", counter, logger: quiet });
  cm.setSystemPrompt("You are terse.");
  cm.metadata = { project: "x" };
  cm.load([
    { role: "user", content: "read a.ts" },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c1", type: "function", function: { name: "read", arguments: '{"path":"a.ts"}' } }],
    },
    { role: "tool", tool_call_id: "c1", content: "export const a = 1;" },
    { role: "assistant", content: [{ type: "text", text: "Done." }] },
  ] as MessageLike[]);
  return JSON.parse(JSON.stringify(cm.export())) as Record<string, unknown>;
}

/** Every path to a value inside `value`, as key lists. */
function paths(value: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> {
  const out: Array<Array<string | number>> = [prefix];
  if (value !== null && typeof value === "object") {
    for (const [key, child] of Object.entries(value)) out.push(...paths(child, [...prefix, Array.isArray(value) ? Number(key) : key]));
  }
  return out;
}

function edited(base: Record<string, unknown>, path: Array<string | number>, replacement: unknown): unknown {
  const copy = structuredClone(base) as Record<string | number, unknown>;
  if (path.length === 0) return replacement;
  let at: Record<string | number, unknown> = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  at[path.at(-1) as string | number] = replacement;
  return copy;
}

describe("session import, fuzzed", () => {
  it("safeParseExport never throws; parseExport throws only ERR_CTXWIN_INVALID_EXPORT", () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.string(), fc.string({ unit: "binary" }), fc.json()), (input) => {
        const result = safeParseExport(input);
        if (result.success) return;
        expect(coded(result.error)).toBe("ERR_CTXWIN_INVALID_EXPORT");
        expect(() => parseExport(input)).toThrow(result.error.message);
      }),
      { numRuns: 500 },
    );
  });

  it("an export with one value replaced loads or is refused with a code, and a refused import changes nothing", () => {
    const base = sampleExport();
    const every = paths(base);
    const fresh = () => {
      const manager = new MessageContextManager({ model: "gpt-4o", counter, logger: quiet });
      manager.addMessage({ role: "user", content: "before" });
      return manager;
    };
    const state = (manager: MessageContextManager) =>
      JSON.stringify({
        messages: manager.getMessages(),
        usage: manager.tokenUsage,
        metadata: manager.metadata,
        request: manager.getContextForRequest(),
      });
    const before = state(fresh());
    fc.assert(
      fc.property(
        fc.nat({ max: every.length - 1 }),
        fc.oneof(fc.jsonValue(), fc.constantFrom(null, -1, Number.NaN, 1e309, "", "\ud800", [], {})),
        (which, replacement) => {
          const input = edited(base, every[which] as Array<string | number>, replacement);
          for (const form of [input, JSON.stringify(input) ?? "null"]) {
            try {
              const loaded = MessageContextManager.fromExport(form, { counter, logger: quiet });
              expect(loaded.tokenUsage).toBeGreaterThanOrEqual(0);
            } catch (error) {
              coded(error);
            }
            const target = fresh();
            try {
              target.import(form);
            } catch (error) {
              coded(error);
              expect(state(target)).toBe(before); // refused: nothing changed
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("a session log file with random bytes appended or a line edited reads back or is ERR_CTXWIN_SESSION_CORRUPT", async () => {
    const directory = mkdtempSync(join(tmpdir(), "ctxwin-import-fuzz-"));
    const store = new FileSessionStore({ directory, fsync: false });
    const source = await MessageContextManager.open({ model: "gpt-4o", counter, logger: quiet, session: { store, id: "base" } });
    source.addMessage({ role: "user", content: "hello" });
    source.addMessage({ role: "assistant", content: "hi" });
    await source.flush();
    const { readFileSync } = await import("node:fs");
    const good = readFileSync(store.pathOf("base"), "utf8");
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "binary", maxLength: 200 }), fc.nat({ max: good.length }), async (noise, cut) => {
        const id = `s${n++}`;
        writeFileSync(store.pathOf(id), good.slice(0, cut) + noise + good.slice(cut));
        try {
          await store.read(id);
        } catch (error) {
          coded(error);
        }
        try {
          await MessageContextManager.open({ model: "gpt-4o", counter, logger: quiet, session: { store, id } });
        } catch (error) {
          coded(error);
        }
      }),
      { numRuns: 150 },
    );
  });
});
