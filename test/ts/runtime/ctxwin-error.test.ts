// One error class (issue 37): every error ctxwin throws or rejects with passes `instanceof
// CtxwinError` and `isCtxwinError`, from each layer: the TypeScript API's checks, the native core
// through the binding (on the native addon and on the WebAssembly build), async rejections, an
// adapter's missing framework; bad arguments stay TypeError / RangeError; the caller's own errors
// pass through as they are. The sweep over the hostile-input suites is in their own helpers
// (bad-input-table.test.ts here, and the suites under agent-threads/, session/, tokens/).
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  ContextManager,
  CtxwinError,
  CtxwinRangeError,
  CtxwinTypeError,
  ERROR_CODES,
  MemorySessionStore,
  Recall,
  TiktokenCounter,
  backend,
  getCounter,
  isCtxwinError,
  type CtxwinErrorCode,
  type MessageLike,
} from "ctxwin";
import { ContextCompactor } from "ctxwin/compaction";
import { registerCatalog } from "ctxwin/models";
import { recallTool } from "ctxwin/mastra";

const ROOT = join(import.meta.dirname, "..", "..", "..");

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

const rejection = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error,
  );

describe("the classes", () => {
  it("carry their code and cause; the subclasses stay TypeError / RangeError, with those names", () => {
    const cause = new Error("beneath");
    const plain = new CtxwinError("a file", "ERR_CTXWIN_SESSION_CORRUPT", { cause });
    const type = new CtxwinTypeError("x must be a string");
    const range = new CtxwinRangeError("n must be >= 0");
    expect(plain).toMatchObject({ name: "CtxwinError", code: "ERR_CTXWIN_SESSION_CORRUPT", message: "a file", cause });
    expect(String(plain.stack)).toMatch(/^CtxwinError: a file/);
    expect(type).toMatchObject({ name: "TypeError", code: "ERR_CTXWIN_INVALID_ARGUMENT" });
    expect(range).toMatchObject({ name: "RangeError", code: "ERR_CTXWIN_OUT_OF_RANGE" });
    for (const error of [plain, type, range]) {
      expect(error).toBeInstanceOf(Error);
      expect(error).toBeInstanceOf(CtxwinError);
      expect(isCtxwinError(error)).toBe(true);
    }
    expect(type).toBeInstanceOf(TypeError);
    expect(type).toBeInstanceOf(CtxwinTypeError);
    expect(type).not.toBeInstanceOf(CtxwinRangeError);
    expect(range).toBeInstanceOf(RangeError);
    expect(range).toBeInstanceOf(CtxwinRangeError);
    expect(plain).not.toBeInstanceOf(TypeError);
    expect(plain).not.toBeInstanceOf(CtxwinTypeError);
    // The code is what a logger or toEqual sees; the brand is not enumerable.
    expect(Object.keys(type)).toEqual(["code"]);
  });

  it("isCtxwinError checks the code, one or a list", () => {
    const error = new CtxwinRangeError("too big", "ERR_CTXWIN_SESSION_TOO_LARGE");
    expect(isCtxwinError(error, "ERR_CTXWIN_SESSION_TOO_LARGE")).toBe(true);
    expect(isCtxwinError(error, "ERR_CTXWIN_OUT_OF_RANGE")).toBe(false);
    expect(isCtxwinError(error, ["ERR_CTXWIN_OUT_OF_RANGE", "ERR_CTXWIN_SESSION_TOO_LARGE"])).toBe(true);
    expect(isCtxwinError(error, [])).toBe(false);
  });

  it("refuse what is not ctxwin's: other codes, no code, non-errors, a look-alike object", () => {
    const nodeError = Object.assign(new Error("no such file"), { code: "ENOENT" });
    for (const value of [
      nodeError,
      new Error("x"),
      new TypeError("x"),
      undefined,
      null,
      "ERR_CTXWIN_INTERNAL",
      42,
      { code: "ERR_CTXWIN_INTERNAL", message: "x" },
    ]) {
      expect(isCtxwinError(value)).toBe(false);
      expect(value instanceof CtxwinError).toBe(false);
    }
    expect(new TypeError("x") instanceof CtxwinTypeError).toBe(false);
  });

  it("accept a coded error made elsewhere: an Error whose code is one of ERROR_CODES (the core's)", () => {
    for (const code of ERROR_CODES) {
      const error = Object.assign(new Error("from C++"), { code });
      expect(error instanceof CtxwinError).toBe(true);
      expect(isCtxwinError(error, code)).toBe(true);
    }
    const range = Object.assign(new RangeError("from C++"), { code: "ERR_CTXWIN_OUT_OF_RANGE" });
    expect(range instanceof CtxwinRangeError).toBe(true);
    expect(range instanceof CtxwinTypeError).toBe(false);
  });

  it("a user's subclass of CtxwinError is checked by its prototype, not by the code", () => {
    class StoreError extends CtxwinError {}
    const mine = new StoreError("mine", "ERR_CTXWIN_SESSION_LOST");
    expect(mine).toBeInstanceOf(StoreError);
    expect(mine).toBeInstanceOf(CtxwinError);
    expect(new CtxwinError("not mine", "ERR_CTXWIN_SESSION_LOST")).not.toBeInstanceOf(StoreError);
  });

  it("are one family across two copies of the package in a process (its ESM and CommonJS builds)", () => {
    const cjs = createRequire(import.meta.url)("ctxwin") as typeof import("ctxwin");
    expect(cjs.CtxwinError).not.toBe(CtxwinError);
    const fromCjs = thrown(() => getCounterOf(cjs)(42));
    expect(Object.getPrototypeOf(fromCjs)).toBe(cjs.CtxwinTypeError.prototype);
    expect(fromCjs).toBeInstanceOf(CtxwinError);
    expect(fromCjs).toBeInstanceOf(CtxwinTypeError);
    expect(isCtxwinError(fromCjs, "ERR_CTXWIN_INVALID_ARGUMENT")).toBe(true);
    expect(cjs.isCtxwinError(new CtxwinError("esm", "ERR_CTXWIN_INTERNAL"))).toBe(true);
  });
});

/** getCounter of a build, called with what is not a model id. */
const getCounterOf = (build: { getCounter: typeof getCounter }) => (model: unknown) => build.getCounter(model as string);

describe("errors of each layer pass isCtxwinError", () => {
  it("the TypeScript API's checks: our own classes", () => {
    const type = thrown(() => getCounterOf({ getCounter })(42));
    expect(Object.getPrototypeOf(type)).toBe(CtxwinTypeError.prototype);
    expect(isCtxwinError(type, "ERR_CTXWIN_INVALID_ARGUMENT")).toBe(true);
    const range = thrown(() => new TiktokenCounter({ encoding: "o300k" as "o200k_base" }));
    expect(Object.getPrototypeOf(range)).toBe(CtxwinRangeError.prototype);
    expect(isCtxwinError(range, "ERR_CTXWIN_UNKNOWN_ENCODING")).toBe(true);
  });

  it(`the core's, through the binding, on this run's backend (${backend})`, () => {
    // Made in C++ (node-addon-api's TypeError / RangeError with `code` set): not our prototypes.
    const type = thrown(() => registerCatalog("{not json"));
    expect(Object.getPrototypeOf(type)).toBe(TypeError.prototype);
    expect(type).toBeInstanceOf(CtxwinError);
    expect(type).toBeInstanceOf(CtxwinTypeError);
    expect(isCtxwinError(type, "ERR_CTXWIN_INVALID_ARGUMENT")).toBe(true);
    const range = thrown(() => new ContextManager({ maxContextTokens: -1 }));
    expect(Object.getPrototypeOf(range)).toBe(RangeError.prototype);
    expect(range).toBeInstanceOf(CtxwinRangeError);
    expect(isCtxwinError(range, "ERR_CTXWIN_OUT_OF_RANGE")).toBe(true);
  });

  it("the core's on both backends, each in its own process (the backend is chosen at import)", () => {
    const probe = `
      import { ContextManager, CtxwinError, CtxwinRangeError, CtxwinTypeError, backend, isCtxwinError } from "ctxwin";
      import { registerCatalog } from "ctxwin/models";
      const seen = [];
      for (const call of [() => registerCatalog("{not json"), () => new ContextManager({ maxContextTokens: -1 })]) {
        try { call(); } catch (e) {
          seen.push({ proto: Object.getPrototypeOf(e).constructor.name, code: e.code, ctxwin: e instanceof CtxwinError,
            type: e instanceof CtxwinTypeError, range: e instanceof CtxwinRangeError, guard: isCtxwinError(e, e.code) });
        }
      }
      console.log(JSON.stringify({ backend, seen }));
    `;
    for (const name of ["native", "wasm"]) {
      const run = spawnSync(process.execPath, ["--input-type=module", "-e", probe], {
        cwd: ROOT,
        encoding: "utf8",
        env: { ...process.env, CTXWIN_BACKEND: name },
      });
      expect(run.status, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout.trim())).toEqual({
        backend: name,
        seen: [
          { proto: "TypeError", code: "ERR_CTXWIN_INVALID_ARGUMENT", ctxwin: true, type: true, range: false, guard: true },
          { proto: "RangeError", code: "ERR_CTXWIN_OUT_OF_RANGE", ctxwin: true, type: false, range: true, guard: true },
        ],
      });
    }
  });

  it("async rejections: an aborted count, a bad countManyAsync, a store's conflict", async () => {
    const counter = new TiktokenCounter({ encoding: "o200k_base" });
    const reason = new Error("the user left");
    const aborted = await rejection(counter.countAsync("hello", { signal: AbortSignal.abort(reason) }));
    expect(isCtxwinError(aborted, "ERR_CTXWIN_ABORTED")).toBe(true);
    expect(aborted).toMatchObject({ name: "AbortError", cause: reason });
    const bad = await rejection(counter.countManyAsync("not texts" as unknown as string[]));
    expect(bad).toBeInstanceOf(CtxwinTypeError);
    expect(isCtxwinError(bad, "ERR_CTXWIN_INVALID_ARGUMENT")).toBe(true);
    const store = new MemorySessionStore();
    await store.append("s", [{ type: "message", id: "a", message: { role: "user", content: "hi" } }], { expectedVersion: 0 });
    const conflict = await rejection(
      store.append("s", [{ type: "message", id: "b", message: { role: "user", content: "again" } }], { expectedVersion: 0 }),
    );
    expect(isCtxwinError(conflict, "ERR_CTXWIN_SESSION_CONFLICT")).toBe(true);
    expect(conflict).toMatchObject({ sessionId: "s", expectedVersion: 0, actualVersion: 1 });
  });

  it("an adapter's missing framework (ctxwin/mastra without @mastra/core), its cause the loader's error", async () => {
    const error = await rejection(recallTool(new Recall({ counter: getCounter("gpt-4o") })));
    expect(error).toBeInstanceOf(CtxwinError);
    expect(isCtxwinError(error, "ERR_CTXWIN_MASTRA_MISSING")).toBe(true);
    const cause = (error as Error).cause;
    expect(cause).toBeInstanceOf(Error);
    expect(isCtxwinError(cause)).toBe(false);
  });
});

describe("the caller's own errors", () => {
  const messages: MessageLike[] = Array.from({ length: 12 }, (_, i) => ({
    role: i % 2 ? "assistant" : "user",
    content: `turn ${i} `.repeat(40),
  }));
  const counter = getCounter("gpt-4o");

  it("pass through unchanged: a summary model that throws is the result's error, as thrown", async () => {
    class ProviderDown extends Error {}
    const down = new ProviderDown("503 from the provider");
    const compactor = new ContextCompactor({ model: async () => Promise.reject(down), logger: { warn() {} } });
    const result = await compactor.compactWithDetails(messages, 200, counter, { preserveLast: 2 });
    expect(result.error).toBe(down);
    expect(isCtxwinError(result.error)).toBe(false);
  });

  it("a model that answers with no text is ctxwin's finding: ERR_CTXWIN_INVALID_MODEL", async () => {
    for (const answer of [42, "   "]) {
      const compactor = new ContextCompactor({ model: async () => answer as string, logger: { warn() {} } });
      const result = await compactor.compactWithDetails(messages, 200, counter, { preserveLast: 2 });
      expect(isCtxwinError(result.error, "ERR_CTXWIN_INVALID_MODEL")).toBe(true);
    }
  });
});

describe("types", () => {
  it("isCtxwinError narrows the code to the one, or the ones, asked for", () => {
    const error: unknown = new CtxwinRangeError("x", "ERR_CTXWIN_CONTEXT_OVERFLOW");
    if (isCtxwinError(error)) expectTypeOf(error.code).toEqualTypeOf<CtxwinErrorCode>();
    if (isCtxwinError(error, "ERR_CTXWIN_CONTEXT_OVERFLOW")) {
      expectTypeOf(error).toMatchTypeOf<CtxwinError>();
      expectTypeOf(error.code).toEqualTypeOf<"ERR_CTXWIN_CONTEXT_OVERFLOW">();
    }
    if (isCtxwinError(error, ["ERR_CTXWIN_SESSION_LOST", "ERR_CTXWIN_SESSION_CONFLICT"])) {
      expectTypeOf(error.code).toEqualTypeOf<"ERR_CTXWIN_SESSION_LOST" | "ERR_CTXWIN_SESSION_CONFLICT">();
    }
    expectTypeOf<(typeof ERROR_CODES)[number]>().toEqualTypeOf<CtxwinErrorCode>();
    expectTypeOf<CtxwinTypeError>().toMatchTypeOf<TypeError>();
    expectTypeOf<CtxwinRangeError["code"]>().toEqualTypeOf<CtxwinErrorCode>();
    // @ts-expect-error: a Node code, not one of ctxwin's (a made-up ERR_CTXWIN_ one would trip error-codes.test.ts)
    isCtxwinError(error, "ENOENT");
    expect(isCtxwinError(error, "ERR_CTXWIN_CONTEXT_OVERFLOW")).toBe(true);
  });
});

describe("the sources", () => {
  // Every Error, TypeError or RangeError the TypeScript API makes is one of the classes (through
  // the factories in ts/runtime/errors.ts); a plain one is left only where it never reaches a
  // caller as it is (caught and wrapped with its cause) or keeps a file system's code, and its
  // line says which ("plain Error:" in a comment just above). The CLI prints its own.
  it("make no uncoded error without saying why", () => {
    const sources = (dir: string): string[] =>
      readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : [],
      );
    const unexplained: string[] = [];
    for (const path of sources("ts")) {
      if (path.startsWith(join("ts", "cli"))) continue;
      const lines = readFileSync(join(ROOT, path), "utf8").split("\n");
      lines.forEach((line, i) => {
        if (!/new (Type|Range)?Error\(/.test(line)) return;
        const before = lines.slice(Math.max(0, i - 3), i + 1).join("\n");
        if (!before.includes("plain Error:")) unexplained.push(`${path}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(unexplained).toEqual([]);
  });
});
