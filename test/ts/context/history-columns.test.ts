// HistoryColumns keeps its five columns in step: after any sequence of its operations every column
// has one entry per message, the total is the sum of the tokens, and each message keeps the
// metadata and tokens it came with (checked against a plain list of records doing the same).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HistoryColumns } from "../../../ts/context/history-columns.js";
import { FLAG_MARKED } from "../../../ts/messages/metadata-reader.js";
import type { MessageLike } from "../../../ts/messages/types.js";

type Row = { message: MessageLike; role: number; flags: number; unit: number; tokens: number };

type Op =
  | { kind: "append"; tokens: number; role: number; unit: number }
  | { kind: "insert"; at: number; tokens: number }
  | { kind: "summary"; at: number; tokens: number }
  | { kind: "select"; keep: boolean[] }
  | { kind: "replace"; at: number[]; tokens: number[] }
  | { kind: "load"; rows: number; summaryEvery: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant("append" as const),
    tokens: fc.nat(500),
    role: fc.integer({ min: 0, max: 3 }),
    unit: fc.integer({ min: -1, max: 5 }),
  }),
  fc.record({ kind: fc.constant("insert" as const), at: fc.nat(40), tokens: fc.nat(500) }),
  fc.record({ kind: fc.constant("summary" as const), at: fc.nat(40), tokens: fc.nat(500) }),
  fc.record({ kind: fc.constant("select" as const), keep: fc.array(fc.boolean(), { maxLength: 40 }) }),
  fc.record({
    kind: fc.constant("replace" as const),
    at: fc.array(fc.nat(40), { maxLength: 4 }),
    tokens: fc.array(fc.nat(500), { minLength: 4, maxLength: 4 }),
  }),
  fc.record({ kind: fc.constant("load" as const), rows: fc.nat(10), summaryEvery: fc.integer({ min: 1, max: 4 }) }),
);

describe("HistoryColumns", () => {
  it("keeps every column in step with the messages, and the total with the tokens, through any operations", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), (ops) => {
        const columns = new HistoryColumns<MessageLike>();
        let model: Row[] = [];
        let n = 0;
        const message = (): MessageLike => ({ role: "user", content: `m${n++}` });
        for (const o of ops) {
          switch (o.kind) {
            case "append": {
              const row = { message: message(), role: o.role, flags: 0, unit: o.unit, tokens: o.tokens };
              columns.append(row.message, row, row.tokens);
              model.push(row);
              break;
            }
            case "insert": {
              const at = Math.min(o.at, model.length);
              const row = { message: message(), role: 1, flags: 0, unit: -1, tokens: o.tokens };
              columns.insert(at, row.message, row, row.tokens);
              model.splice(at, 0, row);
              break;
            }
            case "summary": {
              const at = Math.min(o.at, model.length);
              const row = { message: message(), role: 0, flags: FLAG_MARKED, unit: -1, tokens: o.tokens };
              columns.insertSummary(at, row.message, row.role, row.tokens);
              model.splice(at, 0, row);
              expect(columns.isSummary(row.message)).toBe(true);
              break;
            }
            case "select": {
              const indices = model.map((_, i) => i).filter((i) => o.keep[i] !== false);
              const left = model.filter((_, i) => o.keep[i] === false);
              expect(columns.without(indices)).toEqual({
                messages: left.map((r) => r.message),
                units: Int32Array.from(left, (r) => r.unit),
              });
              columns.select(indices);
              model = indices.map((i) => model[i] as Row);
              break;
            }
            case "replace": {
              const at = [...new Set(o.at.filter((i) => i < model.length))];
              const edits = at.map((i) => [i, message()] as const);
              columns.replace(edits, o.tokens);
              edits.forEach(([i, after], k) => Object.assign(model[i] as Row, { message: after, tokens: o.tokens[k] as number }));
              break;
            }
            case "load": {
              const rows = Array.from({ length: o.rows }, (_, i) => ({
                message: message(),
                role: i % 4,
                flags: 0,
                unit: -1,
                tokens: i * 7,
              }));
              const summaries = rows.map((_, i) => i).filter((i) => i % o.summaryEvery === 0);
              columns.load(
                rows.map((r) => r.message),
                rows,
                rows.map((r) => r.tokens),
                summaries,
              );
              for (const i of summaries) Object.assign(rows[i] as Row, { flags: FLAG_MARKED, unit: -1 });
              model = rows;
              expect(columns.summaryIndices()).toEqual(summaries);
              break;
            }
          }
          expect(columns.checkInvariant()).toBe(true);
          expect(columns.messages).toEqual(model.map((r) => r.message));
          expect(Array.from(columns.roles)).toEqual(model.map((r) => r.role));
          expect(Array.from(columns.flags)).toEqual(model.map((r) => r.flags));
          expect(Array.from(columns.units)).toEqual(model.map((r) => r.unit));
          expect(Array.from(columns.tokens)).toEqual(model.map((r) => r.tokens));
          expect(columns.conversationTokens).toBe(model.reduce((sum, r) => sum + r.tokens, 0));
        }
      }),
      { numRuns: 200 },
    );
  });

  it("selects and leaves out alike whether the kept messages make a few runs or many", () => {
    // A trim keeps a few runs of consecutive messages (copied a run at a time) or many (a
    // selective trim: copied one by one); both give the messages and metadata of a plain filter.
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 400 }), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 6 }), (length, on, off) => {
        const columns = new HistoryColumns<MessageLike>();
        const rows = Array.from({ length }, (_, i) => ({
          message: { role: "user", content: `m${i}` },
          role: i % 4,
          flags: i % 2,
          unit: i % 5,
          tokens: i,
        }));
        for (const r of rows) columns.append(r.message, r, r.tokens);
        const keep = rows.map((_, i) => i % (on + off) < on);
        const indices = rows.map((_, i) => i).filter((i) => keep[i]);
        const left = rows.filter((_, i) => !keep[i]);
        expect(columns.without(indices)).toEqual({ messages: left.map((r) => r.message), units: Int32Array.from(left, (r) => r.unit) });
        columns.select(indices);
        const kept = rows.filter((_, i) => keep[i]);
        expect(columns.messages).toEqual(kept.map((r) => r.message));
        expect([columns.roles, columns.flags, columns.units, columns.tokens].map((c) => Array.from(c))).toEqual([
          kept.map((r) => r.role),
          kept.map((r) => r.flags),
          kept.map((r) => r.unit),
          kept.map((r) => r.tokens),
        ]);
        expect(columns.conversationTokens).toBe(kept.reduce((sum, r) => sum + r.tokens, 0));
        expect(columns.checkInvariant()).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it("sums the tokens before a position from either end, the marker counted when it stands there", () => {
    const columns = new HistoryColumns<MessageLike>();
    [5, 7, 11, 13].forEach((t, i) => columns.append({ role: "user", content: `${i}` }, { role: 1, flags: 0, unit: -1 }, t));
    expect([0, 1, 2, 3, 4].map((p) => columns.tokensBefore(p, true))).toEqual([0, 5, 12, 23, 36]);
    columns.setMarker({ index: 2, omitted: 3, tokens: 4, role: "system" });
    expect([1, 2, 3].map((p) => columns.tokensBefore(p, true))).toEqual([5, 16, 27]);
    // The change replaces the marker: at its own position it no longer counts.
    expect([2, 3].map((p) => columns.tokensBefore(p, false))).toEqual([12, 27]);
    expect(columns.checkInvariant()).toBe(true);
  });
});
