// A message added to a history is checked once: the metadata reader checks it, and the count that
// follows, of a batch marked CHECKED, does not check it again. Any other batch is checked.
import { describe, expect, it } from "vitest";
import { CHECKED, isCheckedBatch } from "../../../ts/messages/message-shape.js";
import { MetadataReader } from "../../../ts/messages/metadata-reader.js";
import type { MessageLike } from "../../../ts/messages/types.js";
import { messageTokens } from "../../../ts/tokens/message-tokens.js";
import { TiktokenCounter } from "../../../ts/tokens/tiktoken-counter.js";

const counter = new TiktokenCounter({ model: "gpt-4o" });

describe("a batch checked once", () => {
  it("is counted without a second check when marked, and checked when not", () => {
    const bad = { role: "user", content: 42 } as unknown as MessageLike;
    expect(() => counter.countEachMessage([bad])).toThrow(/messages\[0\]\.content must be a string/);
    const marked = Object.assign([bad], { [CHECKED]: true as const });
    expect(isCheckedBatch(marked)).toBe(true);
    expect(() => counter.countEachMessage(marked)).not.toThrow();
  });

  it("is a batch messageTokens makes for the count, never the caller's array", () => {
    const messages: MessageLike[] = [{ role: "user", content: "hello" }];
    messageTokens(counter, messages, { checked: true });
    expect(isCheckedBatch(messages)).toBe(false);
    // So the caller's array, changed afterwards, is checked again when counted.
    (messages[0] as { content: unknown }).content = 42;
    expect(() => messageTokens(counter, messages)).toThrow(/messages\[0\]\.content must be a string/);
  });

  it("counts as an unchecked batch does", () => {
    const messages: MessageLike[] = [
      { role: "system", content: "Be brief." },
      { role: "user", content: "List the files." },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "ls", arguments: '{"path":"."}' } }],
      },
      { role: "tool", tool_call_id: "c1", content: "a.ts\nb.ts" },
      { role: "assistant", content: [{ type: "text", text: "Two files." }] },
    ];
    const reader = new MetadataReader();
    messages.forEach((m, i) => reader.read(m, i));
    expect(Array.from(messageTokens(counter, messages, { checked: true }))).toEqual(Array.from(messageTokens(counter, messages)));
  });
});
