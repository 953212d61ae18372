// A message added to a history is checked once: the metadata reader checks it, and the count that
// follows (countingChecked) does not check it again. Outside that call, every check runs.
import { describe, expect, it } from "vitest";
import { checkMessage, countingChecked } from "../../../ts/messages/message-shape.js";
import { MetadataReader } from "../../../ts/messages/metadata-reader.js";
import { messageTokens } from "../../../ts/tokens/message-tokens.js";
import { TiktokenCounter } from "../../../ts/tokens/tiktoken-counter.js";
import type { MessageLike } from "../../../ts/messages/types.js";

describe("countingChecked", () => {
  it("passes the messages it names while the call runs, and only those, and only then", () => {
    const bad = { role: "user", content: 42 };
    const other = { role: "user", content: 43 };
    expect(() => checkMessage(bad, "m")).toThrow(/m\.content must be a string/);
    countingChecked([bad], () => {
      expect(() => checkMessage(bad, "m")).not.toThrow();
      expect(() => checkMessage(other, "m")).toThrow(/m\.content must be a string/);
      // Nested: the inner list only, then the outer again.
      countingChecked([other], () => expect(() => checkMessage(bad, "m")).toThrow());
      expect(() => checkMessage(bad, "m")).not.toThrow();
    });
    expect(() => checkMessage(bad, "m")).toThrow(/m\.content must be a string/);
  });

  it("looks a long list up as well as a short one, and ends the scope when the count throws", () => {
    const many = Array.from({ length: 50 }, (_, i) => ({ role: "user", content: i }));
    countingChecked(many, () => {
      for (const m of many) expect(() => checkMessage(m, "m")).not.toThrow();
    });
    expect(() =>
      countingChecked(many, () => {
        throw new Error("count failed");
      }),
    ).toThrow("count failed");
    expect(() => checkMessage(many[0], "m")).toThrow(/m\.content must be a string/);
  });

  it("counts checked messages exactly as unchecked ones", () => {
    const counter = new TiktokenCounter({ model: "gpt-4o" });
    const messages: MessageLike[] = [
      { role: "system", content: "Be brief." },
      { role: "user", content: "List the files." },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "ls", arguments: '{"path":"."}' } }] },
      { role: "tool", tool_call_id: "c1", content: "a.ts\nb.ts" },
      { role: "assistant", content: [{ type: "text", text: "Two files." }] },
    ];
    const reader = new MetadataReader();
    messages.forEach((m, i) => reader.read(m, i));
    expect(Array.from(messageTokens(counter, messages, { checked: true }))).toEqual(Array.from(messageTokens(counter, messages)));
  });
});
