// ctxwin for Cloudflare Workers (the `workerd` export condition): the web entry, with the .wasm
// imported as a module (wrangler's CompiledWasm rule for *.wasm), since workerd compiles no
// WebAssembly from bytes at run time.
//
//   import { init, getCounter } from "ctxwin";
//   import o200kBase from "ctxwin/data/o200k_base";
//   await init({ data: [o200kBase] });   // once per isolate, e.g. at the top of the module
import wasm from "../../prebuilds/wasm-web/ctxwin.wasm";
import { initCore, type InitOptions } from "../runtime/web-loader.js";

export * from "./api.js";

/** Loads the WebAssembly core and the data tables given; resolves when counting can start. */
export function init(options?: InitOptions): Promise<void> {
  return initCore(() => wasm, options);
}
