// ctxwin for Vercel's edge runtime (the `edge-light` export condition): the web entry, with the
// .wasm imported as a module the way Next.js gives edge functions one (the `?module` suffix),
// since edge runtimes compile no WebAssembly from bytes at run time.
import wasm from "../../prebuilds/wasm-web/ctxwin.wasm?module";
import { initCore, type InitOptions } from "../runtime/web-loader.js";

export * from "./api.js";

/** Loads the WebAssembly core and the data tables given; resolves when counting can start. */
export function init(options?: InitOptions): Promise<void> {
  return initCore(() => wasm, options);
}
