// The metadata reader takes a message of text alone ({ role, content: string }) and an OpenAI chat
// message of tool calls or a tool result by a path that skips its checks (shortcutOf in
// metadata-reader.ts). Such a message must read exactly as the same message with
// its text as one text part, which takes the checked path; a message just off those shapes must
// still be checked.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MetadataReader } from "../../../ts/messages/metadata-reader.js";

type Step = Record<string, unknown>;

const plain = fc.record(
  {
    role: fc.constantFrom("system", "developer", "user", "assistant"),
    content: fc.string({ maxLength: 8 }),
    name: fc.string({ maxLength: 4 }),
    _preserve: fc.boolean(),
  },
  { requiredKeys: ["role"] },
);
let callNumber = 0;
/** Calls with their results, in any order, some results missing, some for calls never made. */
const toolExchange = fc
  .record({
    calls: fc.integer({ min: 0, max: 3 }),
    content: fc.constantFrom<string | null | undefined>(null, undefined, "", "Let me look."),
    name: fc.option(fc.constant("agent"), { nil: undefined }),
    answered: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
    stray: fc.boolean(),
    reversed: fc.boolean(),
  })
  .map(({ calls, content, name, answered, stray, reversed }): Step[] => {
    const ids = Array.from({ length: calls }, () => `c${callNumber++}`);
    const call: Step = {
      role: "assistant",
      content,
      tool_calls: ids.map((id) => ({ id, type: "function", function: { name: "ls", arguments: '{"path":"."}' } })),
    };
    if (name !== undefined) call.name = name;
    const results: Step[] = ids.filter((_, i) => answered[i]).map((id) => ({ role: "tool", tool_call_id: id, content: `${id} done` }));
    if (stray) results.push({ role: "tool", tool_call_id: `missing${callNumber++}`, content: "?" });
    if (reversed) results.reverse();
    return [call, ...results];
  });
const step: fc.Arbitrary<Step[]> = fc.oneof(
  plain.map((m): Step[] => [m]),
  // A reasoning item, which the next assistant message joins.
  fc.constant(null).map((): Step[] => [{ type: "reasoning", id: "rs", summary: [{ type: "summary_text", text: "think" }] }]),
  toolExchange,
);

/** The same message with its text as one text part (no text: no parts), read by the checked path. */
const asParts = (message: Step): Step =>
  "type" in message
    ? message
    : { ...message, content: typeof message.content === "string" ? [{ type: "text", text: message.content }] : [] };

interface Options {
  pinFirstUserMessage: boolean;
  pinned: boolean;
  orphanToolResults: "error" | "drop";
}

/** What a reader makes of each message (the fields both paths give), or the error that stops it. */
function read(messages: Step[], options: Options): unknown[] {
  const pinned = new Set<object>(options.pinned ? messages.filter((_, i) => i % 3 === 1) : []);
  const reader = new MetadataReader({ ...options, pinned });
  const out: unknown[] = [];
  for (const [i, m] of messages.entries()) {
    try {
      const { role, flags, unit, orphan, callIds, resultIds } = reader.read(m, i);
      out.push({ role, flags, unit, orphan, callIds: callIds ?? [], resultIds: resultIds ?? [] });
    } catch (error) {
      out.push(String(error));
      break;
    }
  }
  return out;
}

describe("messages of the common shapes, read without the checks", () => {
  it("read as the same messages with their text in parts", () => {
    const options = fc.record({
      pinFirstUserMessage: fc.boolean(),
      pinned: fc.boolean(),
      orphanToolResults: fc.constantFrom<"error" | "drop">("error", "drop"),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 12 }), options, (steps, options) => {
        const messages = steps.flat();
        // The pinned set holds the same positions' objects in each list.
        expect(read(messages, options)).toEqual(read(messages.map(asParts), options));
      }),
    );
  });

  it("still checks a message just off that shape", () => {
    const cases: Array<[Step, RegExp]> = [
      [{ role: "user", content: "hi", name: 7 }, /messages\[0\]\.name must be a string/],
      [{ role: "user", content: 42 }, /messages\[0\]\.content must be a string/],
      [{ role: "tool", content: "a.ts" }, /messages\[0\]\.tool_call_id must be a string/],
      [{ role: "critic", content: "hi" }, /messages\[0\]\.role must be one of/],
      [{ role: "user", content: "hi", tool_call_id: 7 }, /messages\[0\]\.tool_call_id must be a string/],
      [
        { role: "assistant", content: "hi", tool_calls: [{ type: "function", function: { name: "ls", arguments: "{}" } }] },
        /messages\[0\]\.tool_calls\[0\]\.id must be a string/,
      ],
      [
        { role: "assistant", content: "hi", function_call: { name: 7, arguments: "{}" } },
        /messages\[0\]\.function_call\.name must be a string/,
      ],
      [
        { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: 7, arguments: "{}" } }] },
        /messages\[0\]\.tool_calls\[0\]\.function\.name must be a string/,
      ],
      [
        { role: "assistant", content: null, tool_calls: [{ id: "c1", function: "ls" }] },
        /messages\[0\]\.tool_calls\[0\]\.name must be a string/,
      ],
      [{ role: "assistant", content: null, tool_calls: ["c1"] }, /messages\[0\]\.tool_calls\[0\] must be a tool call object/],
      [{ role: "tool", tool_call_id: "c1", content: 42 }, /messages\[0\]\.content must be a string/],
      [{ role: "tool", tool_call_id: "c1", content: "ok" }, /whose call is not in the messages/],
    ];
    for (const [message, error] of cases) {
      const reader = new MetadataReader();
      expect(() => reader.read(message, 0)).toThrow(error);
      // Nothing was remembered: a valid message after it reads as the first one.
      expect(reader.read({ role: "user", content: "ok" }, 0)).toEqual({ role: 1, flags: 0, unit: -1, orphan: false });
    }
  });
});
