// The metadata reader takes a message of text alone ({ role, content: string }) by a path that
// skips its checks (plainTextRole in metadata-reader.ts). Such a message must read exactly as the
// same message with its text as one text part, which takes the checked path; a message just off
// that shape must still be checked.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MetadataReader, type MessageFacts } from "../../../ts/messages/metadata-reader.js";

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
const step: fc.Arbitrary<Step[]> = fc.oneof(
  plain.map((m): Step[] => [m]),
  // A reasoning item, which the next assistant message joins.
  fc.constant(null).map((): Step[] => [{ type: "reasoning", id: "rs", summary: [{ type: "summary_text", text: "think" }] }]),
  fc.constant(null).map((): Step[] => {
    const id = `c${callNumber++}`;
    return [
      { role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name: "ls", arguments: "{}" } }] },
      { role: "tool", tool_call_id: id, content: "a.ts" },
    ];
  }),
);

/** The same message with its text as one text part (no text: no parts), read by the checked path. */
const asParts = (message: Step): Step =>
  "tool_calls" in message || "tool_call_id" in message || "type" in message
    ? message
    : { ...message, content: typeof message.content === "string" ? [{ type: "text", text: message.content }] : [] };

/** What a reader makes of each message, the fields both paths give. */
function read(messages: Step[], options: { pinFirstUserMessage: boolean; pinned: boolean }): MessageFacts[] {
  const pinned = new Set<object>(options.pinned ? messages.filter((_, i) => i % 3 === 1) : []);
  const reader = new MetadataReader({ pinFirstUserMessage: options.pinFirstUserMessage, pinned });
  return messages.map((m, i) => {
    const { role, flags, unit, orphan } = reader.read(m, i);
    return { role, flags, unit, orphan };
  });
}

describe("messages of text alone, read without the checks", () => {
  it("read as the same messages with their text in parts", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 12 }), fc.boolean(), fc.boolean(), (steps, pinFirstUserMessage, pinned) => {
        const messages = steps.flat();
        const twins = messages.map(asParts);
        // The pinned set holds the same positions' objects in each list.
        const options = { pinFirstUserMessage, pinned };
        expect(read(messages, options)).toEqual(read(twins, options));
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
    ];
    for (const [message, error] of cases) {
      const reader = new MetadataReader();
      expect(() => reader.read(message, 0)).toThrow(error);
      // Nothing was remembered: a valid message after it reads as the first one.
      expect(reader.read({ role: "user", content: "ok" }, 0)).toEqual({ role: 1, flags: 0, unit: -1, orphan: false });
    }
  });
});
