// The web entry's init() as built in dist/web/, run here on Node (its loader uses nothing Node
// lacks): what it refuses, what counting before it or without a table says, that a failed init()
// leaves the next one free to succeed, and that the web core counts what the Node entry counts,
// on adversarial text. The real runtimes (Chromium, workerd, edge-runtime) are test/web/run.mjs.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
// The Node side from ts/ (the native core the test setup installs), beside the web build's
// dist/web/index.js, which holds its own copy of the core's holder (scripts/bundle-esm.mjs: the
// Node and web builds share no file) and gets the WebAssembly core from its init().
import * as node from "../../../ts/index.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const web = (await import(join(ROOT, "dist", "web", "index.js"))) as typeof node & {
  init(options?: { data?: readonly unknown[]; wasm?: unknown }): Promise<void>;
};
const dataModule = async (name: string) =>
  ((await import(join(ROOT, "prebuilds", "wasm-web", "data", `${name}.js`))) as { default: unknown }).default;
const wasmBytes = () => new Uint8Array(readFileSync(join(ROOT, "prebuilds", "wasm-web", "ctxwin.wasm")));

// Mixed scripts, lone surrogates, text that spells special tokens, long single pieces.
const hostileText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.string({ unit: fc.constantFrom("a", " ", "\n", "é", "日", "🙂", "\uD800", "\uDFFF", "<|endoftext|>", "1", "'s"), maxLength: 300 }),
  fc.tuple(fc.constantFrom("a", "!", " ", "🙂", "7"), fc.integer({ min: 1, max: 5000 })).map(([unit, n]) => unit.repeat(n)),
);

describe("the web entry's init()", () => {
  it("is needed before counting, and says so with a code", () => {
    expect(() => web.getCounter("gpt-4o").count("hi")).toThrow(expect.objectContaining({ code: "ERR_CTXWIN_NOT_INITIALIZED" }));
  });

  it("refuses data that is not a data module, naming the argument", async () => {
    await expect(web.init({ data: "o200k" as unknown as readonly unknown[] })).rejects.toThrow(
      expect.objectContaining({ name: "TypeError", code: "ERR_CTXWIN_INVALID_ARGUMENT", message: expect.stringContaining("options.data") }),
    );
    await expect(web.init({ data: [{ nope: 1 }] })).rejects.toThrow(
      expect.objectContaining({ name: "TypeError", message: expect.stringContaining("options.data[0]") }),
    );
  });

  it("says where it looked for a .wasm a server does not have, or answers with a page, and how to pass it", async () => {
    // A static server with no ctxwin.wasm, and a development server's fallback page (HTML, 200) for any path.
    const server = createServer((request, response) => {
      if (request.url?.startsWith("/spa/")) response.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><p>app</p>");
      else response.writeHead(404).end();
    });
    await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      await expect(web.init({ wasm: `${base}/assets/ctxwin.wasm` })).rejects.toThrow(
        expect.objectContaining({
          code: "ERR_CTXWIN_ADDON_MISSING",
          message: expect.stringMatching(
            new RegExp(
              `ctxwin.wasm\\) was not found at ${base}/assets/ctxwin.wasm \\(HTTP 404\\), the URL given to init\\(\\{ wasm \\}\\): serve node_modules/ctxwin/prebuilds/wasm-web/ctxwin.wasm`,
            ),
          ),
        }),
      );
      await expect(web.init({ wasm: new URL(`${base}/spa/ctxwin.wasm`) })).rejects.toThrow(
        expect.objectContaining({
          code: "ERR_CTXWIN_ADDON_MISSING",
          message: expect.stringContaining(`not found at ${base}/spa/ctxwin.wasm (HTTP 200 but not a .wasm file (text/html))`),
        }),
      );
    } finally {
      await new Promise((done) => server.close(done));
    }
  });

  it("rejects a .wasm that does not compile with ERR_CTXWIN_ADDON_MISSING, and a later init() still loads", async () => {
    await expect(web.init({ wasm: new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 9]) })).rejects.toThrow(
      expect.objectContaining({ code: "ERR_CTXWIN_ADDON_MISSING", message: expect.stringContaining("cannot load the WebAssembly core") }),
    );
    await web.init({ wasm: wasmBytes(), data: [await dataModule("o200k_base"), await dataModule("claude-v4.7")] });
    expect(web.backend).toBe("wasm");
    expect(web.getCounter("gpt-4o").count("hello world")).toBe(2);
  });

  it("refuses a data module whose table does not inflate, and loads none of the tables given with it", async () => {
    const p50k = (await dataModule("p50k_base")) as { path: string; base: { size: number; deflated: string } };
    const corrupt = { path: "openai/r50k_base.bin", size: p50k.base.size, deflated: p50k.base.deflated.slice(0, 4000) };
    await expect(web.init({ data: [p50k, corrupt] })).rejects.toThrow(
      expect.objectContaining({
        name: "TypeError",
        code: "ERR_CTXWIN_INVALID_ARGUMENT",
        message: expect.stringContaining("options.data[1].deflated (openai/r50k_base.bin)"),
      }),
    );
    expect(() => new web.TiktokenCounter({ encoding: "p50k_base" })).toThrow(
      expect.objectContaining({ code: "ERR_CTXWIN_NOT_INITIALIZED" }),
    );
  });

  it("refuses a p50k_base module whose ranks do not join r50k_base's into OpenAI's table, and one without its base", async () => {
    // p50k_base's module holds only the ranks after r50k_base's (scripts/build-wasm.mjs).
    const p50k = (await dataModule("p50k_base")) as { path: string; size: number; base: object; appended: string[] };
    await expect(web.init({ data: [{ ...p50k, appended: p50k.appended.slice(1) }] })).rejects.toThrow(
      expect.objectContaining({
        name: "TypeError",
        code: "ERR_CTXWIN_INVALID_ARGUMENT",
        message: expect.stringContaining("options.data[0] (openai/p50k_base.bin) does not extend its base table"),
      }),
    );
    await expect(web.init({ data: [{ path: p50k.path, size: p50k.size, appended: p50k.appended }] })).rejects.toThrow(
      expect.objectContaining({
        code: "ERR_CTXWIN_INVALID_ARGUMENT",
        message: expect.stringContaining("options.data[0] must hold its bytes"),
      }),
    );
    expect(() => new web.TiktokenCounter({ encoding: "p50k_base" })).toThrow(
      expect.objectContaining({ code: "ERR_CTXWIN_NOT_INITIALIZED" }),
    );
  });

  it("inflates the tables in JavaScript where the runtime has no DecompressionStream (Vercel's edge runtime), and refuses a corrupt one there too", async () => {
    const saved = Object.getOwnPropertyDescriptor(globalThis, "DecompressionStream");
    // @ts-expect-error: removed to stand for a runtime without it
    delete globalThis.DecompressionStream;
    try {
      const r50k = (await dataModule("r50k_base")) as { path: string; size: number; deflated: string };
      await expect(web.init({ data: [{ ...r50k, deflated: r50k.deflated.slice(0, 4000) }] })).rejects.toThrow(
        expect.objectContaining({ name: "TypeError", message: expect.stringContaining("options.data[0].deflated (openai/r50k_base.bin)") }),
      );
      await web.init({ data: [await dataModule("p50k_base")] });
    } finally {
      if (saved) Object.defineProperty(globalThis, "DecompressionStream", saved);
    }
    const [fromNode, fromWeb] = [new node.TiktokenCounter({ encoding: "p50k_base" }), new web.TiktokenCounter({ encoding: "p50k_base" })];
    fc.assert(
      fc.property(hostileText, (text) => fromWeb.count(text) === fromNode.count(text)),
      { numRuns: 100 },
    );
  });

  it("inflates in JavaScript within 12x DecompressionStream's time (a bounds check on every read made it 20-55x)", {
    timeout: 120_000,
  }, async () => {
    await web.init({ wasm: wasmBytes() });
    const o200k = (await dataModule("o200k_base")) as { path: string; size: number; deflated: string };
    const saved = Object.getOwnPropertyDescriptor(globalThis, "DecompressionStream") as PropertyDescriptor;
    let n = 0;
    // Each under a path of its own: init() inflates a table only the first time it is given.
    const time = async (stream: boolean) => {
      // @ts-expect-error: removed to stand for a runtime without it
      if (!stream) delete globalThis.DecompressionStream;
      const began = performance.now();
      try {
        await web.init({ data: [{ ...o200k, path: `openai/timing_${n++}.bin` }] });
      } finally {
        Object.defineProperty(globalThis, "DecompressionStream", saved);
      }
      return performance.now() - began;
    };
    const best = async (stream: boolean) => Math.min(await time(stream), await time(stream), await time(stream));
    const [native, script] = [await best(true), await best(false)];
    expect(script / native, `JavaScript ${script.toFixed(0)} ms, DecompressionStream ${native.toFixed(0)} ms`).toBeLessThan(12);
  });

  it("names the data module to import for a table it was not given", () => {
    expect(() => web.getCounter("gpt-4").count("hi")).toThrow(
      expect.objectContaining({ code: "ERR_CTXWIN_NOT_INITIALIZED", message: expect.stringContaining('"ctxwin/data/cl100k_base"') }),
    );
  });

  it("counts every text as the Node entry's native core does (o200k_base, cl100k_base after a second init(), Claude v4.7)", {
    timeout: 120_000,
  }, async () => {
    await web.init({ data: [await dataModule("cl100k_base")] });
    expect(node.backend).toBe(process.env.CTXWIN_BACKEND ?? "native");
    const pairs = (["gpt-4o", "gpt-4", "claude-opus-4-7"] as const).map(
      (model) => [node.getCounter(model), web.getCounter(model)] as const,
    );
    fc.assert(
      fc.property(hostileText, (text) => {
        for (const [expected, actual] of pairs) expect(actual.count(text)).toBe(expected.count(text));
      }),
      { numRuns: 150 },
    );
  });
});

describe("the capability subpaths' web variants", () => {
  it("run on the core the root's init() loaded, and answer what the Node side answers", async () => {
    await web.init({ wasm: wasmBytes(), data: [await dataModule("o200k_base")] });
    // What the browser, worker, workerd and edge-light conditions give for ctxwin/tokens and
    // ctxwin/truncation (package.json "exports"): the folders' lists, without the Node loader.
    const tokens = (await import(join(ROOT, "dist", "tokens", "index.js"))) as typeof import("../../../ts/tokens/index.js");
    const truncation = (await import(join(ROOT, "dist", "truncation", "index.js"))) as typeof import("../../../ts/truncation/index.js");
    const nodeTruncation = await import("../../../ts/truncation/index.js");
    const messages = [
      { role: "system", content: "You are terse." },
      ...Array.from({ length: 30 }, (_, i) => ({
        role: i % 2 ? "assistant" : "user",
        content: `message ${i}: ${"lorem ipsum ".repeat(5)}`,
      })),
    ];
    const counter = new tokens.TiktokenCounter({ encoding: "o200k_base" });
    expect(counter.count("hello world")).toBe(2);
    const kept = new truncation.TokenBudgetStrategy().truncate(messages, 300, counter);
    const nodeKept = new nodeTruncation.TokenBudgetStrategy().truncate(messages, 300, node.getCounter("gpt-4o"));
    expect(kept.length).toBeGreaterThan(1);
    expect(kept).toEqual(nodeKept);
  });
});
