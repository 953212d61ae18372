// Loads the compiled core on the web (browsers, Web Workers, Cloudflare Workers, Vercel Edge, Deno
// Deploy): the WebAssembly build for the web (prebuilds/wasm-web), instantiated asynchronously by
// `init()`, with the data tables the application gives it written to the core's in-memory file
// system. Nothing here imports a Node module; each web entry (ts/web/) passes its default way to
// get the .wasm file: a URL beside the module for browsers and bundlers, an imported
// WebAssembly.Module where the runtime compiles no bytes at run time (workerd, edge runtimes).
import { getDefaultContext } from "@emnapi/runtime";
import inflateRaw from "tiny-inflate";
import createCtxwinCore from "../../prebuilds/wasm-web/ctxwin.mjs";
import { appendRanks } from "./appended-ranks.js";
import { describe, plainError, typeError } from "./errors.js";
import { installCore, type JinjaTemplateClass, type NativeCore } from "./native.js";

/**
 * One data file of the core, by its path in the package's data/ folder: an OpenAI rank table
 * (`openai/o200k_base.bin`) or a Claude vocabulary (`claude/v3.bin`, `claude/v4_7.bin`). The
 * modules `ctxwin/data/<name>` export these with the bytes inside (`deflated`: zlib-deflated, in
 * base64); an application that fetches the file itself gives its bytes (`bytes`, or `base64`).
 */
export interface CoreData {
  readonly path: string;
  /** The file's bytes deflated in the zlib format (RFC 1950), in base64. */
  readonly deflated?: string;
  /** The file's size in bytes: how much `deflated` inflates to. */
  readonly size?: number;
  readonly base64?: string;
  readonly bytes?: Uint8Array;
  /**
   * A table made of another's ranks and more (`ctxwin/data/p50k_base` is r50k_base's and 25
   * more): the table whose ranks come first, then `appended`, each next rank's bytes in base64.
   */
  readonly base?: CoreData;
  readonly appended?: readonly string[];
}

/**
 * Where the .wasm file comes from: its URL, its bytes, a fetch response, or the compiled
 * `WebAssembly.Module` (any other object is taken for one).
 */
export type WasmSource = string | URL | Response | ArrayBuffer | Uint8Array | object;

// The part of the WebAssembly JavaScript API used here, which every web runtime has (typed here
// so that the package's types need no DOM library).
type WasmImports = Record<string, Record<string, unknown>>;
type WasmInstance = object;
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  instantiate(bytes: ArrayBuffer | Uint8Array, imports: WasmImports): Promise<{ instance: WasmInstance }>;
  instantiate(module: object, imports: WasmImports): Promise<WasmInstance>;
  instantiateStreaming?(response: Response, imports: WasmImports): Promise<{ instance: WasmInstance }>;
}
const wasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

export interface InitOptions {
  /**
   * The data tables to load: `import o200kBase from "ctxwin/data/o200k_base"`, then
   * `init({ data: [o200kBase] })`. Only what is given is in the bundle and in memory; a later
   * `init()` may add more.
   */
  data?: readonly CoreData[];
  /** The core's .wasm, when the entry's own default does not fit the bundler (or a promise of it). */
  wasm?: WasmSource | Promise<WasmSource>;
  /** `@huggingface/jinja` (its module), for counting with a tokenizer.json model's chat template. */
  jinja?: { Template: JinjaTemplateClass };
}

/** The folder of the core's in-memory file system that init() writes the data to. */
const DATA_DIR = "/ctxwin/data";

/** What a Claude family counts with: v5 uses v4.7's vocabulary. */
const CLAUDE_FILES: Record<string, string> = { v3: "claude/v3.bin", "v4.7": "claude/v4_7.bin", v5: "claude/v4_7.bin" };
const DATA_MODULES: Record<string, string> = { "claude/v3.bin": "claude-v3", "claude/v4_7.bin": "claude-v4.7" };

interface EmscriptenModule {
  FS: {
    mkdirTree(path: string): void;
    writeFile(path: string, data: Uint8Array): void;
  };
  emnapiInit(options: { context: unknown }): NativeCore;
}

interface Loaded {
  module: EmscriptenModule;
  given: Set<string>;
  jinja: { Template: JinjaTemplateClass } | undefined;
}

let loading: Promise<Loaded> | undefined;

/** The .wasm's URL answered with something else than the file: its address and what it answered. */
class WasmNotFound extends Error {
  constructor(
    readonly url: string,
    readonly answer: string,
  ) {
    super(`${answer} from ${url}`);
  }
}

// The four bytes every .wasm file starts with ("\0asm").
const WASM_MAGIC = [0, 97, 115, 109];

async function instantiate(source: WasmSource, imports: WasmImports): Promise<WasmInstance> {
  if (source instanceof ArrayBuffer || source instanceof Uint8Array) return (await wasmApi.instantiate(source, imports)).instance;
  if (typeof source !== "string" && !(source instanceof URL) && !(source instanceof Response)) return wasmApi.instantiate(source, imports);
  let response: Response;
  try {
    response = source instanceof Response ? source : await fetch(source);
  } catch (error) {
    throw new WasmNotFound(String(source), `no answer (${error instanceof Error ? error.message : String(error)})`);
  }
  const url = response.url || String(source);
  if (!response.ok) throw new WasmNotFound(url, `HTTP ${response.status}`);
  // Streaming compiles while it downloads, but needs the application/wasm type some servers omit.
  const type = response.headers.get("content-type") ?? "";
  if (wasmApi.instantiateStreaming && type.startsWith("application/wasm")) {
    return (await wasmApi.instantiateStreaming(response, imports)).instance;
  }
  const bytes = new Uint8Array(await response.arrayBuffer());
  // A development server's fallback page (Vite's, a single-page app's) answers 200 with HTML.
  if (!WASM_MAGIC.every((byte, i) => bytes[i] === byte))
    throw new WasmNotFound(url, `HTTP ${response.status} but not a .wasm file (${type || "no type"})`);
  return (await wasmApi.instantiate(bytes, imports)).instance;
}

/** Where an installed package has the .wasm. */
const WASM_FILE = "node_modules/ctxwin/prebuilds/wasm-web/ctxwin.wasm";

/**
 * What to do when the .wasm was not where init() looked: the entry's default URL (`new URL` beside
 * the module, which esbuild does not copy) or the URL given to `init({ wasm })`.
 */
function notFound(error: WasmNotFound, given: boolean): string {
  const serve = `serve ${WASM_FILE}`;
  const where = `ctxwin: the WebAssembly core (ctxwin.wasm) was not found at ${error.url} (${error.answer})`;
  if (given) return `${where}, the URL given to init({ wasm }): ${serve} at that URL, or pass another`;
  return (
    `${where}, beside the bundle, where the web entry looks for it by default: this bundler did not copy it ` +
    "(esbuild copies no file found through new URL(..., import.meta.url); Vite, webpack 5, Parcel and Rollup do). " +
    `Pass it to init(): ${serve} (copy it where your files are served) and \`await init({ wasm: "/ctxwin.wasm", data })\`, ` +
    `or, with esbuild's file loader (--loader:.wasm=file), \`import wasm from ${JSON.stringify(`./${WASM_FILE}`)}\` ` +
    "and `await init({ wasm, data })`"
  );
}

// The smallest module using SIMD128 (a function returning i8x16.popcnt of a splat): the core is
// built with -msimd128, so where this does not validate the core cannot compile either.
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);

function loadFailure(error: unknown): string {
  const reason = error instanceof Error ? error.message : String(error);
  if (wasmApi.validate(SIMD_PROBE)) return reason;
  return `${reason} (this runtime has no WebAssembly SIMD128, which the core needs: Chrome 91, Firefox 89, Safari 16.4, Node 16.4 or newer)`;
}

async function loadCore(wasm: WasmSource | Promise<WasmSource>, given: boolean): Promise<EmscriptenModule> {
  const source = await wasm;
  let fail: (error: unknown) => void = () => {};
  const failed = new Promise<never>((_, reject) => {
    fail = (error) => {
      const message =
        error instanceof WasmNotFound ? notFound(error, given) : `ctxwin: cannot load the WebAssembly core: ${loadFailure(error)}`;
      reject(plainError(message, "ERR_CTXWIN_ADDON_MISSING", { cause: error }));
    };
  });
  const ready = createCtxwinCore({
    // Without locateFile the glue resolves its file against import.meta.url, which workerd and
    // edge runtimes leave undefined ("Invalid URL"); it never fetches it: instantiateWasm does.
    locateFile: (file: string) => file,
    // The glue's own fetch would look for the file beside the glue; the entry knows better.
    instantiateWasm(imports: WasmImports, done: (instance: WasmInstance) => void) {
      instantiate(source, imports).then(done, fail);
      return {};
    },
  }) as Promise<EmscriptenModule>;
  return Promise.race([ready, failed]);
}

function fromBase64(base64: string): Uint8Array {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

// The streams API every web runtime has (typed here so that the package's types need no DOM
// library): DecompressionStream's "deflate" is the zlib format the data modules are written in.
type DecompressionStreamClass = new (format: "deflate") => { readable: unknown; writable: unknown };
interface BlobLike {
  stream(): { pipeThrough(transform: object): unknown };
}

// tiny-inflate reads past the end of a truncated stream as zero bits and may never stop, so a read
// there must throw. A Proxy around the bytes did that at the cost of a trap on every read (o200k_base
// took 1.5-4 s on edge-runtime instead of 0.1-0.3 s); an array's reads past its end go to its
// prototype instead, so the bytes are an array whose prototype throws there and reads inside stay
// plain element loads (about 2x tiny-inflate on the bare bytes). fflate, safe on its own and as
// fast as tiny-inflate here, would add 844 KiB to node_modules, which has 104 KiB to spare.
const PAST_THE_END: object = new Proxy(Array.prototype, {
  get(target, key, receiver) {
    // plain Error: bytesOf makes it the cause of a coded TypeError naming the data module.
    if (typeof key === "string" && /^\d+$/.test(key)) throw new Error("the stream ends early");
    return Reflect.get(target, key, receiver) as unknown;
  },
});

function boundedSource(bytes: Uint8Array): number[] {
  const source: number[] = [];
  for (let i = 0; i < bytes.length; i++) source.push(bytes[i] as number);
  Object.setPrototypeOf(source, PAST_THE_END);
  return source;
}

async function inflate(deflated: Uint8Array, size: number): Promise<Uint8Array> {
  const { DecompressionStream, Blob, Response } = globalThis as unknown as {
    DecompressionStream: DecompressionStreamClass | undefined;
    Blob: new (parts: Uint8Array[]) => BlobLike;
    Response: new (body: unknown) => { arrayBuffer(): Promise<ArrayBuffer> };
  };
  let bytes: Uint8Array;
  if (typeof DecompressionStream === "function") {
    const stream = new Blob([deflated]).stream().pipeThrough(new DecompressionStream("deflate"));
    bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  } else {
    // Vercel's edge runtime has no DecompressionStream: tiny-inflate, in JavaScript. It reads raw
    // DEFLATE, so the zlib format's two-byte header is skipped; the size check below stands in
    // for the Adler-32 trailer it does not read.
    bytes = inflateRaw(boundedSource(deflated.subarray(2)), new Uint8Array(size));
  }
  // plain Error: bytesOf makes it the cause of a coded TypeError naming the data module.
  if (bytes.length !== size) throw new Error(`it inflates to ${bytes.length} bytes, not ${size}`);
  return bytes;
}

async function bytesOf(data: CoreData, index: number): Promise<Uint8Array> {
  if (data.bytes instanceof Uint8Array) return data.bytes;
  if (data.base !== undefined && Array.isArray(data.appended)) {
    const base = await bytesOf(data.base, index);
    try {
      const bytes = appendRanks(base, data.appended.map(fromBase64));
      // plain Error: the catch below makes it the cause of a coded TypeError naming the data module.
      if (bytes.length !== data.size) throw new Error(`the joined table is ${bytes.length} bytes, not ${data.size}`);
      return bytes;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw typeError(`options.data[${index}] (${data.path}) does not extend its base table: ${reason}`, undefined, { cause: error });
    }
  }
  if (typeof data.deflated === "string") {
    try {
      return await inflate(fromBase64(data.deflated), data.size as number);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw typeError(`options.data[${index}].deflated (${data.path}) is not a deflated table in base64: ${reason}`, undefined, {
        cause: error,
      });
    }
  }
  if (typeof data.base64 === "string") return fromBase64(data.base64);
  throw typeError(
    `options.data[${index}] must hold its bytes (bytes: Uint8Array, base64, or deflated with its size), got ${describe(data)}`,
  );
}

function holdsBytes(data: CoreData): boolean {
  if (data.base !== undefined || data.appended !== undefined) {
    const { base, appended } = data;
    return (
      base !== null &&
      typeof base === "object" &&
      holdsBytes(base) &&
      Array.isArray(appended) &&
      appended.every((token) => typeof token === "string") &&
      Number.isSafeInteger(data.size)
    );
  }
  if (typeof data.deflated === "string" && !(Number.isSafeInteger(data.size) && (data.size as number) >= 0)) return false;
  return data.bytes instanceof Uint8Array || typeof data.deflated === "string" || typeof data.base64 === "string";
}

function checkData(data: readonly CoreData[] | undefined): readonly CoreData[] {
  if (data === undefined) return [];
  if (!Array.isArray(data))
    throw typeError(
      `options.data must be an array of data modules (import o200kBase from "ctxwin/data/o200k_base"), got ${describe(data)}`,
    );
  data.forEach((item: CoreData, i) => {
    if (item === null || typeof item !== "object" || typeof item.path !== "string" || !/^(openai|claude)\/[\w.]+\.bin$/.test(item.path)) {
      throw typeError(
        `options.data[${i}] must be a data module of ctxwin (import o200kBase from "ctxwin/data/o200k_base"), got ${describe(item)}`,
      );
    }
    if (!holdsBytes(item)) {
      throw typeError(
        `options.data[${i}] must hold its bytes (bytes: Uint8Array, base64, deflated with its size, or a base table and the ranks appended to it), got ${describe(item)}`,
      );
    }
  });
  return data;
}

function missing(kind: "bpe" | "claude", name: string): string {
  const module = kind === "bpe" ? name : (DATA_MODULES[CLAUDE_FILES[name] ?? ""] ?? `claude-${name}`);
  const binding = module.replace(/[^A-Za-z0-9]+(.)/g, (_, c: string) => c.toUpperCase());
  const what = kind === "bpe" ? `the ${name} rank table` : `the Claude ${name} vocabulary`;
  return `ctxwin: ${what} was not given to init(): import ${binding} from "ctxwin/data/${module}" and call \`await init({ data: [${binding}] })\``;
}

/**
 * Loads the core for a runtime without a file system, with the default WebAssembly source the
 * web entry passes; resolves when counting can start. Call it once, before any counter is made
 * (later calls only add data).
 */
export async function initCore(defaultWasm: () => WasmSource, options: InitOptions = {}): Promise<void> {
  if (options === null || typeof options !== "object") throw typeError(`options must be an object, got ${describe(options)}`);
  const data = checkData(options.data);
  if (options.jinja !== undefined && typeof options.jinja?.Template !== "function") {
    throw typeError(`options.jinja must be the @huggingface/jinja module, got ${describe(options.jinja)}`);
  }
  if (loading === undefined) {
    const attempt = loadCore(options.wasm ?? defaultWasm(), options.wasm !== undefined).then((module) => {
      const loaded: Loaded = { module, given: new Set(), jinja: undefined };
      module.FS.mkdirTree(`${DATA_DIR}/openai`);
      module.FS.mkdirTree(`${DATA_DIR}/claude`);
      installCore({
        core: module.emnapiInit({ context: getDefaultContext() }),
        backend: "wasm",
        rankData: () => `${DATA_DIR}/openai`,
        claudeData: () => `${DATA_DIR}/claude`,
        files: undefined,
        jinjaTemplate: () => loaded.jinja?.Template,
        checkData(kind, name) {
          const path = kind === "bpe" ? `openai/${name}.bin` : CLAUDE_FILES[name];
          // An unknown name is left to the counter, which names the valid ones.
          if (path !== undefined && (kind === "claude" || /^\w+$/.test(name)) && !loaded.given.has(path)) {
            throw plainError(missing(kind, name), "ERR_CTXWIN_NOT_INITIALIZED");
          }
        },
      });
      return loaded;
    });
    // A failed load may be tried again (with another `wasm`, say).
    loading = attempt.catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
  }
  const loaded = await loading;
  if (options.jinja !== undefined) loaded.jinja = options.jinja;
  // Every table is decoded (and inflated) before any is written: a corrupt one leaves the core's
  // data as it was.
  const fresh = data.filter((item) => !loaded.given.has(item.path));
  const decoded = await Promise.all(fresh.map((item) => bytesOf(item, data.indexOf(item))));
  fresh.forEach((item, i) => {
    if (loaded.given.has(item.path)) return;
    loaded.module.FS.writeFile(`${DATA_DIR}/${item.path}`, decoded[i] as Uint8Array);
    loaded.given.add(item.path);
  });
}
