// ctxwin for browsers and Web Workers (the `browser` and `worker` export conditions): the same
// API as on Node, on the WebAssembly core, which `await init()` loads once before counting.
//
//   import { init, getCounter } from "ctxwin";
//   import o200kBase from "ctxwin/data/o200k_base";
//   await init({ data: [o200kBase] });
//   getCounter("gpt-4o").count("hello");
//
// The .wasm is found beside this module through `new URL(..., import.meta.url)`, which Vite,
// webpack, Parcel and Rollup copy into the build; with other bundlers (esbuild) serve the file and
// pass its URL: `init({ wasm: "/ctxwin.wasm" })`.
import { initCore, type InitOptions } from "../runtime/web-loader.js";

export * from "./api.js";

/** Loads the WebAssembly core and the data tables given; resolves when counting can start. */
export function init(options?: InitOptions): Promise<void> {
  return initCore(() => new URL("../../prebuilds/wasm-web/ctxwin.wasm", import.meta.url), options);
}
